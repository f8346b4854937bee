"""Instructions as the original release words them, written by hand for the import tests.

Two kinds, as its users have them (reference facts 0.5, 2.2, 3.2, 4.2, 5.2):

- ``*_ORIGINAL``: the original's own sentences, in its style (BabyAI's lower-case templates
  without a full stop, HalfCheetah's and LIBERO's short imperatives, Meta-World's polite
  requests);
- ``*_PARAPHRASES``: the kind of rewording an LLM gives when asked for 10-40 paraphrases of an
  instruction (the Hugging Face rows' ``instructions`` lists): varied verbs, politeness,
  questions, synonyms ("sphere", "tap", "claw"), clauses added; a few happen to be ours.

Placeholders: ``{c}`` colour and ``{t}`` object type (BabyAI), ``{c1} {t1}`` / ``{c2} {t2}``
for put-next, ``{o}`` an item (LIBERO, written as the original's key, e.g. ``alphabet_soup``).
"""

BABYAI_PARAPHRASES = {
    "goto": (
        "make your way over to the {c} {t}",
        "could you walk until you reach the {c} {t}?",
        "head in the direction of the {c} {t} and stop once you are there",
        "navigate towards the {c} {t}",
        "your destination is the {c} {t}, please go there",
        "travel across the room to where the {c} {t} is",
        "I'd like you to end up at the {c} {t}",
        "find where the {c} {t} is and walk up to it",
        "move yourself to the location of the {c} {t}",
        "proceed to the {c} {t}",
        "go over to that {c} {t}",
        "walk up to the {c} {t}, please",
        "get yourself next to the {c} {t}",
        "can you approach the {c} {t} for me",
    ),
    "open": (
        "could you open up the {c} door for me?",
        "the {c} door needs to be opened",
        "go ahead and open the {c} door",
        "swing the {c} door open, please",
        "make sure the {c} door ends up open",
        "I want the {c} door opened",
        "walk over and unlatch the {c} door so it is open",
        "your job is to get the {c} door open",
        "open that {c} door",
        "please toggle the {c} door so that it opens",
        "get the {c} coloured door open",
        "pull open the {c} door",
    ),
    "pickup": (
        "grab hold of the {c} {t}",
        "could you pick the {c} {t} up for me?",
        "lift up the {c} {t} and keep it",
        "please collect the {c} {t}",
        "go and take the {c} {t} in your hands",
        "your task is to fetch the {c} {t}",
        "retrieve the {c} {t}",
        "snatch up the {c} {t}",
        "pick up that {c} {t}, please",
        "I need you to get the {c} {t} and hold onto it",
        "obtain the {c} {t}",
        "take hold of the {c} {t}",
    ),
    "putnext": (
        "place the {c1} {t1} beside the {c2} {t2}",
        "could you move the {c1} {t1} so it sits next to the {c2} {t2}?",
        "set the {c1} {t1} down right by the {c2} {t2}",
        "bring the {c1} {t1} over and leave it adjacent to the {c2} {t2}",
        "the {c1} {t1} should end up beside the {c2} {t2}",
        "carry the {c1} {t1} to the {c2} {t2} and drop it there",
        "put the {c1} {t1} close to the {c2} {t2}",
        "arrange the {c1} {t1} so that it touches the side of the {c2} {t2}",
        "position the {c1} {t1} alongside the {c2} {t2}",
        "drop the {c1} {t1} right beside the {c2} {t2}",
    ),
}

CHEETAH_ORIGINAL = {  # the original's real-level sentences
    "run-forward": "Run forward.",
    "run-backward": "Run backward.",
    "jump-forward": "Jump a step forward.",
    "jump-backward": "Jump a step backward.",
}
CHEETAH_PARAPHRASES = {
    "run-forward": (
        "Dash ahead as quickly as you can.",
        "Sprint in the forward direction.",
        "Race onward.",
        "Charge forward at a run.",
        "Keep running straight ahead.",
        "Go forward at a fast run.",
    ),
    "run-backward": (
        "Run in reverse.",
        "Sprint backwards.",
        "Hurry backward as fast as possible.",
        "Retreat at a run.",
        "Keep running towards the rear.",
        "Race in the backward direction.",
    ),
    "jump-forward": (
        "Hop ahead by one step.",
        "Make a single leap forward.",
        "Spring one step forward.",
        "Bound a step ahead.",
        "Take one jump to the front.",
        "Do a forward hop.",
    ),
    "jump-backward": (
        "Hop backward by one step.",
        "Make a single leap to the rear.",
        "Spring one step back.",
        "Bound a step backwards.",
        "Take one jump towards the back.",
        "Do a backward hop.",
    ),
}

METAWORLD_ORIGINAL = {  # the original's kind of sentence per train task (its 20 per task are not public)
    "reach": (
        "Relocate the gripper to the designated spot.",
        "Guide the robotic arm so that its gripper arrives at the target location.",
        "Could you move the gripper over to the goal point?",
    ),
    "push": (
        "Shove the puck across the table until it reaches the goal.",
        "Use the gripper to slide the puck to the designated position.",
        "Would you push the puck towards the target spot?",
    ),
    "pick-place": (
        "Grasp the puck, lift it, and set it down at the goal.",
        "Pick up the object with the gripper and place it at the target location.",
        "Could you carry the puck to the goal and put it there?",
    ),
    "button-press": (
        "Press the button down with the gripper.",
        "Push in the button using the robotic gripper.",
        "Would you kindly depress the button?",
    ),
    "door-unlock": (
        "I despise when the door is locked; could you employ the gripper to unlock it?",
        "Turn the lock with the gripper so the door is no longer locked.",
        "Use the gripper to unlock the door.",
    ),
    "door-open": (
        "Pull the door open with the gripper.",
        "Grab the door handle and swing the door open.",
        "Could you open the door using the robotic arm?",
    ),
    "window-open": (
        "The closed window bothers me; could you please operate the gripper to open it?",
        "Slide the window open with the gripper.",
        "Push the window handle so the window opens.",
    ),
    "faucet-open": (
        "Turn the faucet on by rotating its handle.",
        "Use the gripper to twist the faucet handle open.",
        "Could you open the tap with the robotic arm?",
    ),
    "coffee-push": (
        "Slide the mug under the coffee machine.",
        "Push the coffee cup into place beneath the machine's spout.",
        "Would you move the mug so it sits under the coffee maker?",
    ),
    "coffee-button": (
        "Utilize the gripper to depress the button on the coffee machine.",
        "Press the coffee machine's button with the gripper.",
        "Could you push the button on the coffee maker?",
    ),
}

LIBERO_ORIGINAL = {  # the original's real-level sentence per task kind
    "pick": "Employ the gripper to seize the {o}.",
    "place": "Transfer the {o} to the basket.",
}
LIBERO_PARAPHRASES = {
    "pick": (
        "Engage the robotic gripper to grasp the {o}.",
        "Deploy the gripping apparatus to capture the {o}.",
        "Use the robot's claw to get hold of the {o}.",
        "Clamp the gripper around the {o} and take it.",
        "Have the gripper grab the {o}.",
        "Secure the {o} in the gripper's fingers.",
    ),
    "place": (
        "Park the {o} in the basket.",
        "Unload the {o} into the basket.",
        "Drop the {o} into the basket.",
        "Deposit the {o} inside the basket.",
        "Move the {o} over into the basket.",
        "Put the {o} away in the basket.",
    ),
}
