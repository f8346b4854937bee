"""The 44-number LIBERO state and the fixed facts of the floor scene it observes.

Index ranges (metres; quaternions xyzw, as robosuite reports them)::

    0-6    robot joint angles (rad), Panda joints 1..7
    7-9    end effector (grip site between the fingertips) xyz
    10-13  end-effector (hand body) quaternion
    14-15  finger joint positions (m): +opening/2 and -opening/2 (0.04 = fully open)
    16-22  alphabet soup    xyz + quaternion
    23-29  cream cheese     xyz + quaternion
    30-36  salad dressing   xyz + quaternion
    37-43  basket           xyz + quaternion

The scene (``scene.bddl``, the layout of LIBERO-Object task 0 with the three other grocery
items removed, as the original's own ``init.bddl``): a Panda arm whose base is at
(-0.6, 0, 0) on a floor at z = 0, the basket near (0, 0.26) and each item in a 5 x 5 cm start
region (``START_REGIONS``). ``REST_HEIGHT`` is each body origin's height when it stands on
the floor as placed (measured in the scene).
"""

from __future__ import annotations

import numpy as np

STATE_DIM = 44
JOINTS = slice(0, 7)
EEF = slice(7, 10)
EEF_QUAT = slice(10, 14)
FINGERS = slice(14, 16)
OBJECTS = ("alphabet_soup", "cream_cheese", "salad_dressing")
ENTITIES = OBJECTS + ("basket",)
SLOT_START = {name: 16 + 7 * i for i, name in enumerate(ENTITIES)}
LABEL = {"alphabet_soup": "alphabet soup", "cream_cheese": "cream cheese", "salad_dressing": "salad dressing"}

# Start regions (x_low, y_low, x_high, y_high) of the body origins, from LIBERO-Object task 0.
START_REGIONS = {
    "alphabet_soup": (-0.145, -0.265, -0.095, -0.215),
    "cream_cheese": (-0.175, 0.035, -0.125, 0.085),
    "salad_dressing": (0.025, -0.125, 0.075, -0.075),
    "basket": (-0.01, 0.25, 0.01, 0.27),
}
REST_HEIGHT = {"alphabet_soup": 0.0384, "cream_cheese": 0.0089, "salad_dressing": 0.0727,
               "basket": -0.0046}
# Heights of the items (m), bottom to top, and the basket's wall height (measured).
ITEM_HEIGHT = {"alphabet_soup": 0.076, "cream_cheese": 0.018, "salad_dressing": 0.146, "basket": 0.141}


def region_centre(name: str) -> np.ndarray:
    x0, y0, x1, y1 = START_REGIONS[name]
    return np.array([(x0 + x1) / 2, (y0 + y1) / 2])


def position(states: np.ndarray, entity: str) -> np.ndarray:
    """(..., 3) xyz of ``entity`` (an item, "basket" or "eef")."""
    states = np.asarray(states)
    if entity == "eef":
        return states[..., EEF]
    start = SLOT_START[entity]
    return states[..., start:start + 3]


def finger_position(states: np.ndarray) -> np.ndarray:
    """(...) how far each finger stands from closed (m): half the difference of the two finger
    joints (open: 0.039-0.040 m)."""
    states = np.asarray(states)
    return (states[..., FINGERS.start] - states[..., FINGERS.start + 1]) / 2


def quaternion(states: np.ndarray, entity: str) -> np.ndarray:
    """(..., 4) xyzw quaternion of ``entity`` (an item, "basket" or "eef")."""
    states = np.asarray(states)
    if entity == "eef":
        return states[..., EEF_QUAT]
    start = SLOT_START[entity] + 3
    return states[..., start:start + 4]


def xyzw_to_wxyz(quat: np.ndarray) -> np.ndarray:
    return np.asarray(quat)[..., [3, 0, 1, 2]]


def wxyz_to_xyzw(quat: np.ndarray) -> np.ndarray:
    return np.asarray(quat)[..., [1, 2, 3, 0]]
