"""The LIBERO expert: scripted pick-and-place over the item poses, in OSC delta actions.

Each task carries a plan (``task.goal["moves"]``): [item, destination] pairs done in order.
A move is a sequence of phases, each a target for the grip site and a gripper command:

    hover   above the item (its top + 6 cm; at least 23 cm up while still far), gripper open
    descend to the item's centre (at least 1 cm above the floor; tall items 3.5 cm below
            their top, so the hand clears it)
    grasp   close the gripper for 10 steps in place
    lift    straight up to the carry height (item bottom 3.5 cm above the basket's rim)
    carry   level, to above the destination
    lower   to the release height (grip site 17.5 cm up over the basket, where the hand,
            21 cm across, clears the 14 cm rim; item bottom 1.5 cm above the floor elsewhere)
    release open the gripper for 8 steps
    retreat back up to the carry height

"reach" stops after hover and a descent to 3 cm above the item's centre (or the grasp
height of a tall item); "lift" (pick)
stops after lift. Destinations: "basket" (a spot per item inside it), "next_to:<other>"
(8.5 cm from the other item), "aside" (15 cm from the item's start region centre) and
"out" (0.5 m from the basket), the last three at the candidate spot farthest from every
other item and the basket inside the arm's comfortable reach. Position actions are
``clip(20 * error)`` (full speed beyond 5 cm; OSC moves about 1 cm per step at full
speed); rotation actions hold the hand pointing down.
"""

from __future__ import annotations

import numpy as np

from ...core.task import Task
from .layout import OBJECTS, REST_HEIGHT, position, quaternion, region_centre

POSITION_GAIN = 20.0
ROTATION_GAIN = 1.0
DOWN_XYZW = np.array([1.0, 0.0, 0.0, 0.0])  # fingers open along world y
HOVER_ABOVE_TOP = 0.06
MIN_GRASP_HEIGHT = 0.01  # the flat cream cheese (1.8 cm): fingertips touch the floor
TRAVEL_HEIGHT = 0.23  # the hand crosses the scene above the basket's rim and every item
FINGER_DEPTH = 0.035  # the hand (2.4 cm above the grip site) must stay above the item's top
CARRY_BOTTOM = 0.17  # carried item bottom: the basket rim (0.135) + 3.5 cm
BASKET_RELEASE = 0.175  # grip-site height over the basket: the hand (21 cm across) stays above the rim
FLOOR_RELEASE = 0.015
REACH_ABOVE = 0.03
PICK_LIFT = 0.10  # a pick lifts the item 10 cm
GRASP_STEPS = 10
RELEASE_STEPS = 8
PHASE_LIMIT = 40  # steps before a stuck phase moves on
TOLERANCE = 0.01
# Item centres in the basket (from its origin; inside walls at x +-0.059, y -0.061..0.066):
# the flat cream cheese along the far wall, the can and the bottle side by side before it.
BASKET_SPOT = {"alphabet_soup": (-0.028, -0.028), "cream_cheese": (0.0, 0.04),
               "salad_dressing": (0.035, -0.03)}
NEXT_TO_GAP = 0.085
ASIDE_DISTANCE = 0.15
OUT_DISTANCE = 0.50
REACH_BOX = ((-0.25, -0.3), (0.2, 0.3))  # xy spots the arm reaches comfortably
BASKET_RADIUS = 0.12
PHASES = ("hover", "descend", "grasp", "lift", "carry", "lower", "release", "retreat")


def grasp_height(state: np.ndarray, item: str) -> float:
    """Grip-site height to grasp ``item``: its centre, or lower than its top by the finger
    depth for tall items (the hand would hit the top), never below 1.5 cm."""
    z = float(position(state, item)[2])
    return max(MIN_GRASP_HEIGHT, z, z + REST_HEIGHT[item] - FINGER_DEPTH)


def free_spot(state: np.ndarray, item: str, centre: np.ndarray, radius: float) -> np.ndarray:
    """The xy at ``radius`` from ``centre`` (24 candidates) farthest from the other items and
    the basket rim, inside ``REACH_BOX``."""
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    spots = centre + radius * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    clearance = np.linalg.norm(spots - position(state, "basket")[:2], axis=-1) - BASKET_RADIUS
    for other in OBJECTS:
        if other != item:
            clearance = np.minimum(clearance, np.linalg.norm(spots - position(state, other)[:2], axis=-1))
    low, high = np.asarray(REACH_BOX)
    inside = np.all((spots >= low) & (spots <= high), axis=-1)
    return spots[np.argmax(np.where(inside, clearance, clearance - 10.0))]


def destination(state: np.ndarray, item: str, where: str, hold: float) -> tuple[np.ndarray, float]:
    """(xy, release height of the grip site) for moving ``item``, held ``hold`` metres
    below the grip site's height above its bottom, to ``where``."""
    if where == "basket":
        return position(state, "basket")[:2] + np.asarray(BASKET_SPOT[item]), BASKET_RELEASE
    floor = FLOOR_RELEASE + hold
    if where.startswith("next_to:"):
        return free_spot(state, item, position(state, where.split(":", 1)[1])[:2], NEXT_TO_GAP), floor
    if where == "aside":
        return free_spot(state, item, region_centre(item), ASIDE_DISTANCE), floor
    if where == "out":
        return free_spot(state, item, position(state, "basket")[:2], OUT_DISTANCE), floor
    raise ValueError(f"unknown LIBERO expert destination {where!r}")


def _rotation_action(state: np.ndarray) -> np.ndarray:
    """World-frame axis-angle (small-angle) turning the hand towards pointing down."""
    x, y, z, w = quaternion(state, "eef")
    gx, gy, gz, gw = DOWN_XYZW
    # error = goal * conj(current), xyzw
    ew = gw * w + gx * x + gy * y + gz * z
    ev = np.array([-gw * x + gx * w - gy * z + gz * y,
                   -gw * y + gy * w - gz * x + gx * z,
                   -gw * z + gz * w - gx * y + gy * x])
    return np.clip(ROTATION_GAIN * 2.0 * np.sign(ew or 1.0) * ev, -1.0, 1.0)


def grasped(state: np.ndarray, item: str) -> bool:
    """The item is in the closed hand and off the floor."""
    near = np.linalg.norm(position(state, item) - position(state, "eef")) < 0.03
    return bool(near and position(state, item)[2] > REST_HEIGHT[item] + 0.01 and state[14] - state[15] < 0.07)


class LiberoExpert:
    """``act(state) -> (7,) float32`` for one episode of ``task`` (see the module docstring)."""

    def __init__(self, task: Task, rng: np.random.Generator | None = None, sim=None):
        self._plan(task.goal["moves"])

    @classmethod
    def for_moves(cls, moves: list[list[str]]) -> LiberoExpert:
        expert = cls.__new__(cls)
        expert._plan(moves)
        return expert

    def _plan(self, moves: list[list[str]]) -> None:
        self.moves = [tuple(move) for move in moves]
        self.move = 0
        self.phase = "hover"
        self.steps = 0
        self.anchor: np.ndarray | None = None  # xyz held during grasp/release
        self.spot: tuple[np.ndarray, float] | None = None
        self.hold = 0.0  # grip-site height above the held item's bottom (m)
        self.offset = np.zeros(2)  # grip-site xy minus the held item's xy
        self.started = False

    def _start_move(self, state: np.ndarray) -> None:
        item, _ = self.moves[self.move]
        self.phase = "lift" if grasped(state, item) else "hover"
        self.steps, self.anchor, self.spot = 0, None, None

    def _target(self, state: np.ndarray) -> tuple[np.ndarray, float, bool]:
        """(grip-site target, gripper command, phase finished)."""
        item, where = self.moves[self.move]
        eef, xyz = position(state, "eef"), position(state, item)
        top = xyz[2] + REST_HEIGHT[item]
        if self.phase == "hover":
            far = np.linalg.norm(eef[:2] - xyz[:2]) > 0.03
            target = np.array([xyz[0], xyz[1], max(top + HOVER_ABOVE_TOP, TRAVEL_HEIGHT if far else 0.0)])
            near = np.linalg.norm(eef[:2] - target[:2]) < TOLERANCE and abs(eef[2] - target[2]) < 0.02
            return target, -1.0, near
        if self.phase == "descend":
            height = grasp_height(state, item)
            if where == "reach":  # 3 cm above the centre, where the hand clears the item
                height = max(height, xyz[2] + REACH_ABOVE)
            target = np.array([xyz[0], xyz[1], height])
            return target, -1.0, np.linalg.norm(eef - target) < TOLERANCE
        if self.phase in ("grasp", "release"):
            self.anchor = eef.copy() if self.anchor is None else self.anchor
            limit = GRASP_STEPS if self.phase == "grasp" else RELEASE_STEPS
            return self.anchor, 1.0 if self.phase == "grasp" else -1.0, self.steps >= limit
        if self.phase == "lift":
            if self.anchor is None:
                self.anchor = eef.copy()
                self.hold = float(eef[2] - xyz[2] + REST_HEIGHT[item])
                self.offset = eef[:2] - xyz[:2]
            height = self.anchor[2] + PICK_LIFT if where == "lift" else CARRY_BOTTOM + self.hold
            return np.array([self.anchor[0], self.anchor[1], height]), 1.0, eef[2] > height - 0.02
        self.spot = destination(state, item, where, self.hold) if self.spot is None else self.spot
        xy, release = self.spot
        xy = xy + self.offset  # the item, not the hand, goes to the spot
        carry = CARRY_BOTTOM + self.hold
        if self.phase == "carry":
            target = np.array([xy[0], xy[1], carry])
            return target, 1.0, np.linalg.norm(eef[:2] - xy) < TOLERANCE
        if self.phase == "lower":
            target = np.array([xy[0], xy[1], release])
            return target, 1.0, np.linalg.norm(eef - target) < TOLERANCE
        target = np.array([xy[0], xy[1], carry])  # retreat
        return target, -1.0, eef[2] > target[2] - 0.03

    def _next_phase(self, state: np.ndarray) -> None:
        _, where = self.moves[self.move]
        last = {"reach": "descend", "lift": "lift"}.get(where, "retreat")
        if self.phase == last:
            if self.move + 1 < len(self.moves):
                self.move += 1
                self._start_move(state)
            return  # the plan is done: hold the last target
        self.phase = PHASES[PHASES.index(self.phase) + 1]
        self.steps, self.anchor = 0, None

    def act(self, state: np.ndarray) -> np.ndarray:
        state = np.asarray(state, np.float64)
        if not self.started:  # an item already in the hand (place tasks) skips to lift
            self._start_move(state)
            self.started = True
        for _ in range(3):  # finished phases hand over to the next within the same step
            target, grip, done = self._target(state)
            if not (done or self.steps >= PHASE_LIMIT):
                break
            self._next_phase(state)
        self.steps += 1
        action = np.empty(7)
        action[:3] = np.clip(POSITION_GAIN * (target - position(state, "eef")), -1.0, 1.0)
        action[3:6] = _rotation_action(state)
        action[6] = grip
        return action.astype(np.float32)


def prepare_start(sim, task: Task, state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bring a freshly placed scene to the task's start (``task.goal["start"]``): "home" as is,
    "held:<item>" grasped and lifted by the expert's own pick, "in_basket:<item>" dropped into
    the basket near its centre and settled."""
    start = task.goal["start"]
    if start == "home":
        return state
    kind, item = start.split(":")
    if kind == "in_basket":
        basket = position(state, "basket")
        xy = basket[:2] + rng.uniform(-0.02, 0.02, 2)
        sim.place(item, np.array([*xy, basket[2] + REST_HEIGHT[item] + 0.02]))
        for _ in range(10):
            state = sim.step(np.zeros(7))
        return state
    pick = LiberoExpert.for_moves([[item, "lift"]])
    for _ in range(3 * PHASE_LIMIT):
        state = sim.step(pick.act(state))
        lifted = position(state, item)[2] > REST_HEIGHT[item] + 0.04
        if pick.phase == "lift" and grasped(state, item) and lifted:
            return state
    return state
