"""A planning expert for every CLEVR task: greedy search over the 40 pushes in the simulator.

At each step every push is simulated from the current state. A push that satisfies the
task's predicate is taken at once; otherwise the push that most lowers a goal-distance
heuristic is taken. When no single push helps, pairs of pushes are searched (40 x 40)
and the first push of the best pair is taken; if even that fails, a random push shakes
the scene. Ties are broken by the episode's random generator, so a seed fixes the run.
"""

from __future__ import annotations

import numpy as np

from ...core.task import Task
from .predicates import GREEN, RELATION_UNIT, ball_xy, relation_holds
from .sim import BALL_RADIUS, N_ACTIONS, N_BALLS, ClevrSimulator

GATHER_TARGET_DISTANCE = 2.2 * BALL_RADIUS
LINE_TARGETS = np.array([[-0.6, 0.1], [-0.3, 0.1], [0.0, 0.1], [0.3, 0.1], [0.6, 0.1]])
MIN_IMPROVEMENT = 1e-3


def _rotation(degrees: float) -> np.ndarray:
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    return np.array([[c, -s], [s, c]])


# Aim points spread over the goal sector (angle offsets from its axis, at AIM_DISTANCE
# from the reference ball), so a blocked point leaves others to aim for.
AIM_DISTANCE = 2.4 * BALL_RADIUS  # inside the success ring (0.26, 0.39)
AIM_SPREAD_DEG = (-35.0, -17.5, 0.0, 17.5, 35.0)
AIMS = {
    relation: np.stack([AIM_DISTANCE * _rotation(d) @ unit for d in AIM_SPREAD_DEG])
    for relation, unit in RELATION_UNIT.items()
}


def _relation_cost(states: np.ndarray, src: int, dst: int, relation: str) -> np.ndarray:
    """Distance from ``src`` to the nearest aim point of the goal region; 0 once it holds."""
    offset = ball_xy(states, src) - ball_xy(states, dst)
    distance = np.linalg.norm(offset[..., None, :] - AIMS[relation], axis=-1).min(axis=-1)
    return np.where(relation_holds(states, src, dst, relation), 0.0, distance)


def goal_cost(goal: dict, states: np.ndarray) -> np.ndarray:
    """(N,) heuristic distance to the goal; used only to rank pushes, never to judge success."""
    kind = goal["kind"]
    if kind == "relation":
        return _relation_cost(states, goal["src"], goal["dst"], goal["relation"])
    if kind.startswith("relations"):
        return sum(_relation_cost(states, s, d, r) for s, d, r in goal["relations"])
    if kind == "push":
        shift = ball_xy(states, goal["ball"]) @ RELATION_UNIT[goal["relation"]]
        return -shift
    if kind == "line":
        centres = states.reshape(-1, N_BALLS, 2)
        return np.linalg.norm(centres - LINE_TARGETS, axis=-1).sum(axis=-1)
    if kind == "gather":
        centres = states.reshape(-1, N_BALLS, 2)
        dist = np.linalg.norm(centres - centres[:, GREEN : GREEN + 1], axis=-1)
        excess = np.maximum(dist - GATHER_TARGET_DISTANCE, 0.0)
        return excess.sum(axis=-1)
    raise ValueError(f"no expert heuristic for CLEVR goal kind {kind!r}")


class ClevrExpert:
    """``act(state) -> action`` for one task; deterministic given ``rng``."""

    def __init__(self, task: Task, rng: np.random.Generator, sim: ClevrSimulator | None = None):
        self.task = task
        self.rng = rng
        self.sim = sim or ClevrSimulator()
        self.actions = np.arange(N_ACTIONS)
        self.plan: list[int] = []

    def _expand(self, state: np.ndarray) -> np.ndarray:
        return np.stack([self.sim.step_from(state, a) for a in self.actions])

    def _succeeds(self, state: np.ndarray, nexts: np.ndarray) -> np.ndarray:
        prev = np.repeat(state[None], len(nexts), axis=0)
        return self.task.success(prev, self.actions[: len(nexts)], nexts)

    def _pick(self, scores: np.ndarray) -> int:
        best = np.flatnonzero(scores <= scores.min() + 1e-9)
        return int(self.rng.choice(best))

    def act(self, state: np.ndarray) -> int:
        if self.plan:
            return self.plan.pop(0)
        nexts = self._expand(state)
        wins = np.flatnonzero(self._succeeds(state, nexts))
        if len(wins):
            return int(self.rng.choice(wins))
        costs = goal_cost(self.task.goal, nexts)
        current = goal_cost(self.task.goal, state[None])[0]
        if costs.min() < current - MIN_IMPROVEMENT:
            return self._pick(costs)
        # No single push helps: search pairs of pushes and commit to the best pair, so the
        # second push is not undone by a greedy step that only sees one push ahead.
        pair_costs = np.full((N_ACTIONS, N_ACTIONS), np.inf)
        for first, mid in enumerate(nexts):
            seconds = self._expand(mid)
            pair_costs[first] = goal_cost(self.task.goal, seconds)
            pair_costs[first, self._succeeds(mid, seconds)] = -np.inf
        if pair_costs.min() < current - MIN_IMPROVEMENT:
            first, second = divmod(self._pick(pair_costs.reshape(-1)), N_ACTIONS)
            self.plan = [int(second)]
            return int(first)
        return int(self.rng.integers(N_ACTIONS))
