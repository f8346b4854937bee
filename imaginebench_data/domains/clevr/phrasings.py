"""Instruction phrasings for CLEVR, written for this package.

Training and rephrase templates never share a sentence: rephrase measures whether a
policy (or a language model) carries a goal over to wording it has not seen.
Placeholders: ``{a}`` source colour, ``{b}`` reference colour, ``{rel}`` relation words.
"""

from __future__ import annotations

TRAIN_RELATION_WORDS = {
    "behind": "behind",
    "left": "to the left of",
    "front": "in front of",
    "right": "to the right of",
}
REPHRASE_RELATION_WORDS = {
    "behind": "at the back of",
    "left": "on the left side of",
    "front": "ahead of",
    "right": "on the right side of",
}

TRAIN_TEMPLATES = (
    "Push the {a} ball {rel} the {b} ball.",
    "Move the {a} ball {rel} the {b} ball.",
    "Put the {a} ball {rel} the {b} ball.",
    "Can you push the {a} ball {rel} the {b} ball?",
    "Can you move the {a} ball {rel} the {b} ball?",
    "Please push the {a} ball {rel} the {b} ball.",
    "Please place the {a} ball {rel} the {b} ball.",
    "I want the {a} ball {rel} the {b} ball.",
    "Get the {a} ball {rel} the {b} ball.",
    "Keep pushing the {a} ball until it is {rel} the {b} ball.",
    "The {a} ball should end up {rel} the {b} ball.",
    "Make the {a} ball sit {rel} the {b} ball.",
    "Bring the {a} ball {rel} the {b} ball.",
    "Could you put the {a} ball {rel} the {b} ball?",
    "Slide the {a} ball {rel} the {b} ball.",
    "Position the {a} ball {rel} the {b} ball.",
)

REPHRASE_TEMPLATES = (
    "I would like the {a} sphere to rest {rel} the {b} sphere.",
    "Nudge the {a}-coloured orb over so it lands {rel} the {b} one.",
    "Relocate the ball that is {a} so that it is {rel} the {b} ball.",
    "Shove the {a} ball along until it stops {rel} the ball coloured {b}.",
    "Arrange things so the {a} ball ends {rel} the {b} ball.",
    "Your job: the {a} ball goes {rel} the {b} ball.",
    "Steer the {a} sphere into a spot {rel} the {b} sphere.",
    "See the {b} ball? Get the {a} ball {rel} it.",
    "Roll the {a} orb into place {rel} the {b} orb.",
    "Have the {a} ball settle {rel} the {b} ball, please.",
    "Drive the {a} ball next to the {b} ball, {rel} it.",
    "Let the {a} ball finish {rel} the {b} ball.",
)

# Easy level: one push of one ball. {d} is the direction phrase.
EASY_DIRECTION_WORDS = {
    "behind": ("backward", "towards the back"),
    "left": ("to the left", "leftward"),
    "front": ("towards the front", "frontward"),
    "right": ("to the right", "rightward"),
}
EASY_TEMPLATES = (
    "Push the {a} ball {d}.",
    "Give the {a} ball one push {d}.",
    "Nudge the {a} sphere {d} once.",
    "Move the ball that is {a} a little {d}.",
    "Shift the {a} orb {d} with a single push.",
)

# Hard level. Clauses are "the {a} ball {rel} the {b} ball" in training words.
# {clauses}: "the red ball to the left of the blue ball and ..."; {stated}: "... ball is to ...".
MULTI_RELATION_TEMPLATES = (
    "Push {clauses}.",
    "Arrange the balls so that {stated}, all at the same time.",
    "Make sure that {stated}.",
    "At once, get {clauses}.",
)
LINE_PHRASINGS = (
    "Line up the balls from left to right: red, blue, green, purple, cyan.",
    "Put all five balls in a row, left to right in the order red, blue, green, purple and cyan.",
    "Arrange the balls in a horizontal line ordered red, blue, green, purple, cyan from the left.",
    "Make a left-to-right row of the balls: red first, then blue, green, purple and cyan last.",
)
GATHER_PHRASINGS = (
    "Gather all the balls around the green ball.",
    "Bring every other ball close to the green ball.",
    "Use the green ball as the centre and cluster the rest around it.",
    "Collect the red, blue, purple and cyan balls next to the green ball.",
)


def relation_clause(src: str, dst: str, relation: str, stated: bool = False) -> str:
    verb = " is" if stated else ""
    return f"the {src} ball{verb} {TRAIN_RELATION_WORDS[relation]} the {dst} ball"


def join_clauses(clauses: list[str]) -> str:
    if len(clauses) == 2:
        return f"{clauses[0]} and {clauses[1]}"
    return ", ".join(clauses[:-1]) + f", and {clauses[-1]}"
