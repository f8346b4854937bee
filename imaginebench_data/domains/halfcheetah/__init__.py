"""HalfCheetah: gymnasium HalfCheetah-v5, a 22-number state (the original's 18 + 4 counters), Box(6)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ...core.domain import Domain, OriginalLayout
from . import checks, original
from .decode import project_onto_cheetah
from .expert import HalfCheetahExpert
from .layout import ORIGINAL_DIM, PEAK, STATE_DIM, TIME, TROUGH, X, from_original
from .render import render
from .sim import SIM_STATE_DIM, HalfCheetahSimulator
from .tasks import HORIZON, tasks

DOMAIN = Domain(
    name="halfcheetah",
    env_id="imaginebench/HalfCheetah-v0",  # kwargs level, task
    state_space=gym.spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32),
    action_space=gym.spaces.Box(-1.0, 1.0, (6,), np.float32),
    tasks=tasks,
    simulator=HalfCheetahSimulator,
    expert=HalfCheetahExpert,
    illegal_kinds=checks.ILLEGAL_KINDS,
    illegal=checks.illegal,
    transition_distance=checks.transition_distance,
    transition_tolerance=checks.TRANSITION_TOLERANCE,
    original=OriginalLayout(prefix="mujoco", state_dim=ORIGINAL_DIM, to_states=from_original,
                            templates=original.templates,
                            slot_words=original.SLOT_WORDS, task_slots=original.task_slots),
    decode_state=project_onto_cheetah,  # onto the cheetah's state space, counters moved on by dx
    decoding="each leg joint clipped into its range widened by the simulator's measured overshoot "
    "(0.25 rad), the torso kept at or above the lowest height measured (-0.6 m, lying flat), "
    "velocities and the step's dx clipped into the speed bounds of the checkers; the counters "
    "(time, furthest x forward and backward) moved on from the previous state by the projected dx "
    "instead of regressed",
    render=render,
    history_columns=(X, TIME, PEAK, TROUGH),
    notes={
        "state": "22 numbers: 0 dx, the root's x displacement in the last step (m; 0 in a reset "
        "state, where the original put the absolute x); 1-8 qpos[1:9] (torso height relative to the "
        "start, torso pitch, then bthigh, bshin, bfoot, fthigh, fshin, ffoot angles; m, rad); 9-17 "
        "qvel (root x, z, pitch velocity, 6 joint velocities; m/s, rad/s); 18 x, displacement since "
        "the reset (m); 19 t, time since the reset (s, 0.05 per step); 20 peak and 21 trough, the largest "
        "and smallest x "
        "so far. 0-17 are the original's 18 numbers; 18-21 carry the history its success tests read "
        "(sum of dx, step count), so each predicate is a function of one transition and staged "
        "order is checkable. Take states[..., :18] for the original's layout.",
        "action": "Box(-1, 1, (6,)): motor controls of the 6 leg joints (gears 120, 90, 60, 120, 60, 30); "
        "frame skip 5, 0.05 s per step.",
        "simulator": "gymnasium 1.x HalfCheetah-v5 (mujoco), gymnasium's own seeded reset noise; "
        f"horizon {HORIZON} steps. Absolute x is never stored in the state (the floor is an infinite "
        "plane; dynamics do not depend on it).",
        "expert": "no learning: a CEM planner over the true simulator (32 action sequences of 10 steps, "
        "2 refits to the best 1/8, warm-started, batched with mujoco.rollout on one thread) maximising "
        "the task's reward on the rollout's states; staged tasks switch direction where the first "
        "stage completes. About 12 ms per step on one core.",
        "tasks": "train/rephrase: run-forward, run-backward (x beyond +-7 m after 99 steps), "
        "jump-forward, jump-backward (x beyond 0 after 5 steps; as in the original, no height test); "
        "easy: run-forward-fast, run-backward-fast (+-8.5 m after 99 steps); hard: "
        "forward-then-backward, backward-then-forward (more than 3 m one way, then 3 m back from the "
        "furthest point: order checked, unlike the original's order-blind counts), jump-in-place "
        "(abs(x) < 1.05 m after 15 steps). The jump tasks get their own direction's phrasings (the "
        "original swapped them).",
        "rewards": "run = dx / 0.05 s (gymnasium's reward_run), ctrl = -0.1 |a|^2: forward tasks "
        "run + ctrl, backward -run + ctrl, jump-in-place -|run| + ctrl, staged tasks the current "
        "stage's direction (the original: |run| + ctrl).",
        "transition_error": "real episodes store the full simulator state per step (infos['sim_state'], "
        f"{SIM_STATE_DIM} float64: qpos with absolute x, qvel, reset x, counters) and re-simulate "
        "exactly; other data re-simulates from qpos/qvel rebuilt from the 22 numbers (x since the "
        "reset for absolute x), exact up to float32 rounding. Distance: largest difference in m, rad "
        f"and s, velocities times 0.05 s; tolerance {checks.TRANSITION_TOLERANCE}.",
        "decoding": "a generator imagines the 18 physics numbers, projected onto the cheetah's "
        "state space (Domain.decode_state): leg joints clipped into jnt_range widened by 0.25 rad "
        "(the most the simulator was measured past it), the torso height kept at or above -0.6 m "
        "(lying flat, the lowest measured), velocities and dx clipped into the checkers' speed "
        "bounds; pitch and the rest kept as regressed. Its counters (18-21) are bookkeeping, moved "
        "on from the previous state by the projected dx, so imagined success is judged on the sum "
        "of imagined displacements, as in the original. The cards report the raw model output's "
        "rates beside the projected ones.",
    },
)

__all__ = ["DOMAIN"]
