"""Instruction phrasings for Meta-World, written for this package.

Each task has a training phrase and a rephrase phrase (different words for the same goal);
training and rephrase templates never share a sentence. ``{p}`` is the task's phrase.
"""

from __future__ import annotations

TRAIN_PHRASES = {
    "reach": "move the gripper to the goal position",
    "push": "push the puck to the goal",
    "pick-place": "pick up the puck and place it at the goal",
    "button-press": "press the button",
    "door-unlock": "unlock the door",
    "door-open": "open the door",
    "window-open": "slide the window open",
    "faucet-open": "turn the faucet on",
    "coffee-push": "push the mug under the coffee machine",
    "coffee-button": "press the button on the coffee machine",
}
REPHRASE_PHRASES = {
    "reach": "bring the robot hand over to the marked spot",
    "push": "shove the little disc along the table until it sits on the marked spot",
    "pick-place": "lift the small disc and set it down on the marked spot",
    "button-press": "push in the switch on the box in front of you",
    "door-unlock": "turn the latch so the safe door is no longer locked",
    "door-open": "swing the safe door wide",
    "window-open": "move the sliding pane aside so the window is open",
    "faucet-open": "rotate the tap handle so water would run",
    "coffee-push": "slide the cup along until it stands below the espresso maker",
    "coffee-button": "hit the switch of the espresso maker",
}
TRAIN_TEMPLATES = (
    "Use the gripper to {p}.",
    "Please {p}.",
    "{P}.",
    "Can you {p}?",
    "Your task is to {p}.",
    "I want you to {p}.",
    "Robot, {p}.",
    "Go ahead and {p}.",
    "Could you {p}, please?",
    "Now {p}.",
    "Try to {p}.",
    "With the robot arm, {p}.",
)
REPHRASE_TEMPLATES = (
    "I would be grateful if the arm could {p}.",
    "The job right now: {p}.",
    "Would you mind if you {p}?",
    "It would help a lot to {p}.",
    "Operate the manipulator and {p}.",
    "Here is what I need: {p}.",
    "Kindly {p} for me.",
    "Take the claw and {p}.",
    "Let's {p}.",
    "Make it happen: {p}.",
    "When you are ready, {p}.",
)

# Easy level: unseen obstacles (walls) and the opposite skills.
EASY_PHRASINGS = {
    "reach-wall": ("Move the gripper to the goal position, going around the wall in the way.",
                   "Reach the goal with the gripper even though a wall stands between.",
                   "Get the hand to the target spot; mind the wall.",
                   "Steer the gripper past the wall to the goal.",
                   "There is a wall in the way: reach the goal anyway."),
    "push-wall": ("Push the puck to the goal, around the wall.",
                  "Slide the puck to the goal while avoiding the wall.",
                  "Move the puck past the wall to the goal by pushing it.",
                  "A wall blocks the way; push the puck to the goal anyway.",
                  "Get the puck to the goal without hitting the wall."),
    "pick-place-wall": ("Pick up the puck, carry it over the wall and place it at the goal.",
                        "Lift the puck over the wall and put it at the goal.",
                        "Grab the puck and set it on the goal beyond the wall.",
                        "Carry the puck past the wall to the goal.",
                        "Place the puck at the goal; a wall is in between."),
    "button-press-wall": ("Press the button behind the wall.",
                          "Reach around the wall and press the button.",
                          "Push the button even though a wall is in front of it.",
                          "Get past the wall and press the button.",
                          "The button sits behind a wall: press it."),
    "door-lock": ("Lock the door.", "Turn the lock so the door is locked.",
                  "Use the gripper to lock the door.", "Secure the door with its lock.",
                  "Rotate the latch down to lock the door."),
    "door-close": ("Close the door.", "Shut the open door.", "Use the gripper to close the door.",
                   "Swing the door shut.", "Push the door closed."),
    "window-close": ("Close the window.", "Slide the window shut.", "Use the gripper to close the window.",
                     "Push the window closed.", "Shut the sliding window."),
    "faucet-close": ("Turn the faucet off.", "Close the faucet.", "Use the gripper to turn off the faucet.",
                     "Rotate the faucet handle to shut it.", "Shut off the tap."),
}
HARD_PHRASINGS = {
    "make-coffee": ("Make coffee: push the mug under the machine, then press its button.",
                    "First slide the mug below the coffee machine, then press the button.",
                    "Put the mug under the coffee machine and start it with the button.",
                    "Get the mug in place under the machine and press the coffee button.",
                    "Push the cup under the spout, then push the machine's button."),
    "locked-door-open": ("Unlock the door, then open it.",
                         "Turn the lock up to unlock the safe, then swing its door open.",
                         "The door is locked: unlock it first and then pull it open.",
                         "Open the locked door by flipping its lock and swinging it wide.",
                         "First undo the lock, then open the door with the handle."),
    "hammer": ("Pick up the hammer and drive the nail in.",
               "Use the hammer to hit the nail into the wall.",
               "Grab the hammer and strike the nail at the goal.",
               "Hammer the nail in with the hammer.",
               "Take the hammer and knock the nail home."),
    "soccer": ("Push the ball into the goal.", "Score: get the soccer ball into the net.",
               "Kick the ball into the goal.", "Move the soccer ball into the goal.",
               "Put the ball in the net."),
}


def level_phrasings(task: str, level: str) -> tuple[str, ...]:
    """The phrasings of ``task`` at ``level``."""
    if level in ("train", "rephrase"):
        phrase = (TRAIN_PHRASES if level == "train" else REPHRASE_PHRASES)[task]
        templates = TRAIN_TEMPLATES if level == "train" else REPHRASE_TEMPLATES
        return tuple(t.format(p=phrase, P=phrase[0].upper() + phrase[1:]) for t in templates)
    return (EASY_PHRASINGS if level == "easy" else HARD_PHRASINGS)[task]
