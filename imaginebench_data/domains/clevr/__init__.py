"""CLEVR-Robot: five balls on a table, 40 discrete pushes, four task levels."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ...core.domain import Domain, OriginalLayout
from . import checks, original
from .decode import project_onto_table
from .draw import draw_states
from .expert import ClevrExpert
from .render import render
from .sim import N_ACTIONS, STATE_DIM, TABLE_HALF, ClevrSimulator
from .symmetry import SYMMETRY
from .tasks import PROMPT_STEPS, subgoals, tasks

DOMAIN = Domain(
    name="clevr",
    env_id="imaginebench/Clevr-v0",  # kwargs level, task
    state_space=gym.spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32),
    action_space=gym.spaces.Discrete(N_ACTIONS),
    tasks=tasks,
    simulator=ClevrSimulator,
    expert=ClevrExpert,
    illegal_kinds=checks.ILLEGAL_KINDS,
    illegal=checks.illegal,
    transition_distance=checks.transition_distance,
    transition_tolerance=checks.TRANSITION_TOLERANCE,
    original=OriginalLayout(prefix="ball", state_dim=STATE_DIM, goal_key=original.goal_key,
                            task_key=original.task_key, templates=original.templates,
                            slot_words=original.SLOT_WORDS, task_slots=original.task_slots),
    decode_state=project_onto_table,
    decoding="ball centres projected onto the table: clipped inside the walls, and each overlapping "
    "pair pushed apart along the line of its centres until the two touch",
    prompt_steps=PROMPT_STEPS,
    subgoals=subgoals,
    symmetry=SYMMETRY,
    prompting=f"the model is prompted afresh from the state reached every {PROMPT_STEPS} imagined "
    "steps, with the same instruction, until the task holds or its time limit; a hard task of two "
    "or three relations is prompted one relation at a time, the first not yet holding, in a "
    "training phrasing",
    draw_states=draw_states,
    render=render,
    notes={
        "state": "10 numbers: (x, y) in metres of the red, blue, green, purple, cyan balls.",
        "action": "Discrete(40): ball = a // 8, direction = a % 8 of "
        "(+x, +y, -x, -y, +x+y, -x+y, +x-y, -x-y); one push of about 0.077 m.",
        "table": f"walls at |x|, |y| = {TABLE_HALF} m; balls of radius 0.13 m.",
        "transition_error": f"largest ball displacement between the stored next state and "
        f"the re-simulated one; tolerance {checks.TRANSITION_TOLERANCE} m.",
        "rewards": "train/rephrase: 10 * (d_before - d_after), d = distance between the two "
        "balls of the relation; easy: 1 on success; hard: 10 * change in satisfied "
        "sub-goals (relations, aligned pairs or gathered balls), on the post-step state.",
    },
)

__all__ = ["DOMAIN"]
