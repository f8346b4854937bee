"""Instruction phrasings for HalfCheetah, written for this package.

Training and rephrase phrasings of a task never share a sentence; each jump task gets its
own direction's words (the original handed jump-forward the backward sentences and vice
versa).
"""

from __future__ import annotations

TRAIN = {
    "run-forward": ("Run forward.", "Run ahead.", "Please run forward.", "Keep running forward.",
                    "Run to the front.", "Move forward at a run.", "Go forward running.",
                    "Run in the forward direction."),
    "run-backward": ("Run backward.", "Run backwards.", "Please run backward.", "Keep running backward.",
                     "Run to the back.", "Move backward at a run.", "Go backward running.",
                     "Run in the backward direction."),
    "jump-forward": ("Jump a step forward.", "Jump forward a little.", "Please jump a step forward.",
                     "Make a small jump forward.", "Jump one step to the front.", "Do a jump forward.",
                     "Jump forward by a step.", "Take a jump forward."),
    "jump-backward": ("Jump a step backward.", "Jump backward a little.", "Please jump a step backward.",
                      "Make a small jump backward.", "Jump one step to the back.", "Do a jump backward.",
                      "Jump backward by a step.", "Take a jump backward."),
}
REPHRASE = {
    "run-forward": ("Bolt forward.", "Sprint ahead.", "Dash toward the front.", "Race onward.",
                    "Gallop forward.", "Head ahead at full tilt.", "Charge forward.",
                    "Speed off the way you are facing.", "Rush onward.", "Hurry ahead on all legs."),
    "run-backward": ("Backpedal back.", "Sprint in reverse.", "Dash toward the rear.", "Race the other way.",
                     "Gallop in reverse.", "Retreat at full tilt.", "Charge backwards.",
                     "Speed off the way your tail points.", "Rush rearward.", "Hurry back on all legs."),
    "jump-forward": ("Leap one step ahead.", "Hop a bit to the front.", "Bound forward once.",
                     "Spring a pace ahead.", "Give a little hop onward.", "Vault one step toward the front.",
                     "Hop forward a pace.", "Make a short leap ahead.", "Pounce a step onward.",
                     "Skip one pace ahead."),
    "jump-backward": ("Hop one step back.", "Leap a bit to the rear.", "Bound backward once.",
                      "Spring a pace back.", "Give a little hop rearward.", "Vault one step toward the rear.",
                      "Hop back a pace.", "Make a short leap in reverse.", "Pounce a step rearward.",
                      "Skip one pace back."),
}
EASY = {
    "run-forward-fast": ("Move forward faster.", "Run forward as fast as you can.", "Speed up going forward.",
                         "Run forward quicker than usual.", "Sprint forward at top speed."),
    "run-backward-fast": ("Move backward faster.", "Run backward as fast as you can.",
                          "Speed up going backward.", "Run backward quicker than usual.",
                          "Sprint backward at top speed."),
}
HARD = {
    "forward-then-backward": ("Move forward and slow down. Move backward.",
                              "Run forward first, then turn around and run back.",
                              "Go ahead a few metres, then come back the way you came.",
                              "First move forward; after that, move backward.",
                              "Head forward, stop, and then head backward."),
    "backward-then-forward": ("Move backward and slow down. Move forward.",
                              "Run backward first, then turn around and run forward.",
                              "Go back a few metres, then come forward again.",
                              "First move backward; after that, move forward.",
                              "Head backward, stop, and then head forward."),
    "jump-in-place": ("Jump in the original position.", "Jump on the spot.",
                      "Stay where you are while jumping.", "Hop without moving away from the start.",
                      "Jump but do not travel."),
}


def level_phrasings(task: str, level: str) -> tuple[str, ...]:
    """The phrasings of ``task`` at ``level``."""
    table = {"train": TRAIN, "rephrase": REPHRASE, "easy": EASY, "hard": HARD}[level]
    return table[task]
