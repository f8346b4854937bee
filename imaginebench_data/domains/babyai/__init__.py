"""BabyAI: two rooms on a minigrid grid, a ball, a box, a key and a door; 7 allocentric actions."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ...core.domain import Domain, OriginalLayout
from . import checks, original
from .decode import decode
from .draw import draw_states
from .expert import BabyAIExpert
from .render import render
from .sim import ACTION_NAMES, N_ACTIONS, STATE_DIM, BabyAISimulator
from .tasks import HORIZON, PROMPT_STEPS, SHAPING, STAGE_PENALTY, subgoals, tasks

DOMAIN = Domain(
    name="babyai",
    env_id="imaginebench/BabyAI-v0",  # kwargs level, task
    state_space=gym.spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32),
    action_space=gym.spaces.Discrete(N_ACTIONS),
    tasks=tasks,
    simulator=BabyAISimulator,
    expert=BabyAIExpert,
    illegal_kinds=checks.ILLEGAL_KINDS,
    illegal=checks.illegal,
    transition_distance=checks.transition_distance,
    transition_tolerance=checks.TRANSITION_TOLERANCE,
    original=OriginalLayout(prefix="babyai", state_dim=STATE_DIM, templates=original.templates,
                            slot_words=original.SLOT_WORDS, task_slots=original.task_slots),
    decode_state=decode,
    decoding="onto the grid's state space: numbers rounded to integers, each into its range, the "
    "carried object consistent, the agent and floor objects off walls and each other (nearest cell)",
    prompt_steps=PROMPT_STEPS,
    subgoals=subgoals,
    prompting=f"the model is prompted afresh from the state reached every {PROMPT_STEPS} imagined "
    "steps, with the same instruction, until the task holds or its time limit; a staged task is "
    "prompted as two training tasks, the first not yet holding: open the door, then go to / pick up "
    "the object nearest the agent at the start (easy); pick up the key, then open the door (hard)",
    draw_states=draw_states,
    render=render,
    notes={
        "state": "17 numbers, cells as (row, col) on a 15-column x 8-row minigrid grid: ball colour, "
        "row, col (0-2); box (3-5); key (6-8); door colour, row, col, state 0 open / 1 closed / "
        "2 locked (9-12); agent row, col (13-14); carried type 0 nothing / 5 key / 6 ball / 7 box, "
        "carried colour (15-16). Colours red 0, green 1, blue 2, purple 3, yellow 4, grey 5. "
        "A carried object is reported at (0, 0).",
        "level": "two rooms: left rows/cols 1-6, right rows 1-6 x cols 8-13, dividing wall at "
        "col 7 with one door; ball, box and key start on distinct cells of the left room, the "
        "agent on another; colours redrawn at every reset (the target's pinned by the task).",
        "action": "Discrete(7): " + ", ".join(f"{i} {name}" for i, name in enumerate(ACTION_NAMES))
        + ". Moves step one cell unless it is a wall or a closed/locked door (objects do not "
        "block); pick up takes the object in the agent's own cell if the hands are empty; drop "
        "puts the carried object in the agent's own cell if it holds no object and is not the "
        "doorway; toggle opens/closes the door if it is 4-adjacent (a locked door opens only "
        "with the key of its colour in hand).",
        "tasks": "train/rephrase: go to the {colour} {ball, box, key} (agent on its cell) or door "
        "(agent beside it), open the {colour} door, pick up the {colour} {type} (held), put "
        "{c1} {t1} next to {c2} {t2} (4-adjacent, neither held); easy: open the door then go to "
        "any object / then pick up any object, go to a wall (agent in row 1 or 6 or column 1, 6, 8 "
        "or 13), go to the centre (rows and columns 3-4); hard: key then open the locked door "
        "(the step that opens it with the key held), the three items on one row or column, the "
        "three in a pile (one 2 x 2 block). A carried object is on no cell: it is never at, "
        "next to, in a line or in a pile.",
        "illegal": "out_of_grid, non_integer, out_of_range (colour, door state, carried type), "
        "overlap (two objects in a cell or one in the doorway), agent_in_wall (wall or closed "
        "doorway), object_in_wall, door_off_wall (not in column 7, rows 1-6), carry_mismatch "
        "(held object not at (0, 0) or colour wrong), non_finite.",
        "transition_error": "number of the 17 entries in which the stored next state and the one "
        "re-simulated (minigrid grid rebuilt from the stored state) round to different integers; "
        "tolerance 0 (a fractional entry is flagged as the illegal kind non_integer instead).",
        "imagined_states": "the generator decodes each regressed state onto the grid's state space "
        "(Domain.decode_state: integers in range, a consistent carried object, agent and objects "
        "off walls and each other), as argmax picks its actions; moves are not repaired. Cards of "
        "generated data report the raw predictions' rates too (provenance.decoding).",
        "rewards": f"1 on the success transition, else {SHAPING} * (d(s) - d(s')), d a task "
        "Manhattan heuristic (carried objects at the agent's cell; staged tasks add "
        f"{STAGE_PENALTY:g} until their first stage is done). No time discount (the step count "
        f"is not in the state). Time limit {HORIZON} steps.",
    },
)

__all__ = ["DOMAIN"]
