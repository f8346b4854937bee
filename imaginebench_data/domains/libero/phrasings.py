"""Instruction phrasings for LIBERO, written for this package.

``{o}`` / ``{p}`` are item labels ("alphabet soup", "cream cheese", "salad dressing").
Training and rephrase templates never share a sentence; the easy and hard levels have
their own templates.
"""

from __future__ import annotations

TRAIN = {
    "pick": ("Pick up the {o}.", "Grab the {o} with the gripper.", "Use the gripper to lift the {o}.",
             "Take hold of the {o} and raise it.", "Lift the {o} off the floor.",
             "Robot, pick the {o} up.", "Grasp the {o}."),
    "place": ("Put the {o} in the basket.", "Place the {o} into the basket.",
              "Move the {o} to the basket.", "Drop the {o} in the basket.",
              "Bring the {o} over to the basket and let it go.", "Robot, put the {o} in the basket.",
              "Carry the {o} to the basket."),
}
REPHRASE = {
    "pick": ("Close the claw around the {o} and hoist it.", "Seize the {o} and hold it up.",
             "I need the {o} up in the air; grab it.", "Snatch the {o} from the ground.",
             "Get a firm grip on the {o} and raise it a little.", "Clutch the {o} and elevate it."),
    "place": ("Deposit the {o} inside the basket.", "Stow the {o} in the basket.",
              "The {o} belongs in the basket; set it there.", "Load the {o} into the basket.",
              "Unload the {o} into the basket.", "Make sure the {o} ends up inside the basket."),
}
EASY = {
    "pick-and-place": ("Pick up the {o} and put it in the basket.",
                       "Grab the {o}, then place it into the basket.",
                       "Lift the {o} from the floor and drop it in the basket."),
    "place-to": ("Pick up the {o} and put it next to the {p}.",
                 "Grab the {o} and set it down beside the {p}.",
                 "Move the {o} so that it stands close to the {p}."),
    "reach": ("Move the gripper close to the {o}.", "Reach for the {o} without picking it up.",
              "Bring the hand next to the {o}."),
}
HARD = {
    "sequential": ("Put the {o} in the basket, then put the {p} in the basket.",
                   "First place the {o} into the basket, and after that the {p}.",
                   "Pick up the {o} and drop it in the basket; then do the same with the {p}."),
    "aside": ("Pick up the {o} and put it down on the other side, away from where it was.",
              "Move the {o} aside, well away from its spot, and leave it on the floor.",
              "Carry the {o} over to the other side and set it down."),
    "all": ("Put the alphabet soup, the cream cheese and the salad dressing in the basket, one by one.",
            "Pack all three items into the basket one after another.",
            "Place every item on the floor into the basket."),
    "out-of": ("The basket is on fire: take the {o} out of it and put it far away.",
               "Remove the {o} from the basket and set it down far from it.",
               "Get the {o} out of the basket and carry it well away."),
}


def phrasings(level: str, kind: str, item: str = "", other: str = "") -> tuple[str, ...]:
    """The phrasings of a task of ``kind`` at ``level`` with item labels filled in."""
    table = {"train": TRAIN, "rephrase": REPHRASE, "easy": EASY, "hard": HARD}[level]
    return tuple(t.format(o=item, p=other) for t in table[kind])
