"""Meta-World: a Sawyer arm in metaworld v3 scenes, a 91-number entity-slot state, Box(4) actions."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ...core.domain import Domain, OriginalLayout
from . import checks, original
from .decode import project_onto_arm
from .expert import MetaWorldExpert
from .layout import STATE_DIM
from .render import render
from .sim import REPLAY_STEPS, SIM_STATE_DIM, MetaWorldSimulator
from .tasks import HORIZON, LONG_HORIZON, LONG_TASKS, STAGED_HORIZON, tasks

DOMAIN = Domain(
    name="metaworld",
    env_id="imaginebench/MetaWorld-v0",  # kwargs level, task
    state_space=gym.spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32),
    action_space=gym.spaces.Box(-1.0, 1.0, (4,), np.float32),
    tasks=tasks,
    simulator=MetaWorldSimulator,
    expert=MetaWorldExpert,
    illegal_kinds=checks.ILLEGAL_KINDS,
    illegal=checks.illegal,
    transition_distance=checks.transition_distance,
    transition_tolerance=checks.TRANSITION_TOLERANCE,
    original=OriginalLayout(prefix="metaworld", state_dim=STATE_DIM, templates=original.templates,
                            slot_words=original.SLOT_WORDS, task_slots=original.task_slots),
    decode_state=project_onto_arm,  # onto the arm's state space (decode.py)
    decoding="the slots of entities absent from the scene (all zero in the state the step started "
    "from) kept empty; the opening clipped into [0, 1], the tool centre into the arm's workspace, "
    "quaternions scaled to unit norm",
    render=render,
    # its easy and hard scenes fill entity slots (wall, hammer, nail, ball) that are empty in
    # every training state: the model sees those columns as in training (imagine/train.py); and
    # 16 one-step rollouts per episode and epoch, batched apart, so that each action is also
    # learnt from its state alone (docs/experiments.md, "Meta-World: one-step rollouts"); and
    # every 10th episode of each task held out, not every 10th episode, which with its 10
    # tasks in turn held out all of coffee-button's ("Meta-World: a training task the model
    # was never shown")
    grounding_levers=("hide_unseen", "short_apart", ("steps_per_episode", 16), "holdout_per_task"),
    notes={
        "state": "91 numbers in fixed entity slots, the same for every task: 0-2 gripper tool "
        "centre xyz, 3 gripper opening (0 closed .. 1 open), 4-6 target location (goal xyz of the "
        "current stage), then 7 numbers (xyz + quaternion) each for target object (puck or mug), "
        "button, lock, handle, window, faucet, wall, coffee machine, coffee-machine button, hammer, "
        "nail, soccer ball. Entities absent from the scene are zero; a zero simulator quaternion "
        "is stored as the identity (1, 0, 0, 0). Metres, metaworld's world frame.",
        "action": "Box(-1, 1, (4,)): end-effector xyz displacement (x 0.01 m) and gripper effort; "
        "frame skip 5 (metaworld v3).",
        "simulator": "metaworld 3.1.1 v3 scenes (goal-observable envs), seeded resets with a fresh "
        "random goal and object placement; experts are metaworld's scripted v3 policies, episodes "
        "stop at the first success.",
        "staged_tasks": "make-coffee runs in the coffee-push scene (mug, machine and button): stage 1 "
        "puts the mug within 0.07 m of the spot 0.22 m in front of the machine, stage 2 presses the "
        "button; success needs both at once. The stage shows in the state: the target location "
        "switches from the mug goal to the pressed-button position once the mug is in place. The "
        "expert chains the coffee-push and coffee-button policies. locked-door-open runs in the "
        "locked-door scene: stage 1 turns the lock up (door-unlock's check, restated as the lock "
        "site at least 0.068 m above the handle, 0.101 m when fully up, which the door's swing "
        "leaves unchanged), stage 2 is door-open's |handle_x - goal_x| <= 0.08 (with the target "
        "required at the open goal's height, 0.05 m above the handle); success needs both; the "
        "target location switches from door-unlock's goal to door-open's (safe + (-0.3, "
        "-0.45, 0)) once the lock is up. Its expert chains door-unlock's policy and door-open's, "
        "the latter made to back off and approach the handle from above first.",
        "locked_door": "locked-door-open's scene is built here (metaworld 3.1.1 has none): the "
        "door-lock safe, loaded with mujoco.MjSpec, gets door-open's hinge on its door (vertical, "
        "-2..0 rad) and a latch, a stiff joint equality holding the door shut, switched on before "
        "each step while the lock is turned down more than 0.38 rad (where door-unlock's check "
        "stops holding) and the latch is on or the door within 0.05 rad of shut. The switch is "
        "MuJoCo's eq_active, stored with the full simulator state; measured, door-open's policy "
        "moves a locked door by under 1e-3 rad. The lock's stops are made as firm. Lock slot: "
        "door-unlock's lock site and door quaternion; handle slot: door-open's handle geom and "
        "quaternion.",
        "transition_error": f"real episodes store the full simulator state per step (infos['sim_state'], "
        f"{SIM_STATE_DIM} float64: goal, body placements, MuJoCo integration state) and are "
        "re-simulated exactly from it; data without it (imaginary, imported) is re-simulated in a "
        "scene rebuilt from the 91 numbers (hand driven to the stored gripper pose, objects as last "
        f"reset), {REPLAY_STEPS} steps before the step judged, the stored actions since replayed "
        "so that the scene is moving (fewer at an episode's start), and judged by the simulated "
        "change added to the stored state. Distance: largest "
        f"entity displacement (m), 0.1 x opening change, 0.05 x quaternion change; tolerance "
        f"{checks.TRANSITION_TOLERANCE} m. The rebuilt path knows no velocities but those its replay "
        "makes: on real data (20 of metaworld-train-real's expert episodes, 1,175 transitions, "
        "measured 2026-12-07) it puts 8.3% of transitions beyond the tolerance (faucet-open 28%, "
        "door-open 15%, pick-place 11%, the other tasks 0-8%; 9.7% of 20 easy expert episodes), the "
        "floor to read imaginary figures against (24.0% rebuilt at each step, the path before "
        "2026-12-07); the exact path's floor is 0.",
        "rewards": "10 * (d_before - d_after) + 10 on success, d = the task's success-condition "
        "distances beyond their thresholds (m; staged tasks: of the stages reached before the step "
        "and the one under way); a simplification of the original's difference of "
        f"Meta-World dense rewards, computable on imagined states. Horizon {HORIZON} steps "
        f"({LONG_HORIZON} for "
        f"{', '.join(LONG_TASKS)}; "
        + "; ".join(f"{steps} for {name}" for name, steps in STAGED_HORIZON.items()) + ").",
        "soccer": "success is |ball - goal| <= 0.07 m in the table plane: metaworld v3's documented "
        "x-weighted check is never met by its scripted policy.",
        "decoding": "a generator's next state is projected onto the arm's state space "
        "(Domain.decode_state): the slots that were empty (all zero) in the state the step started "
        "from stay empty (a scene's entities are fixed by its task), the gripper opening is clipped "
        "into [0, 1] and the tool centre into the workspace box of the checkers, and each present "
        "entity's quaternion is scaled to unit norm; entity positions and the target location are "
        "kept as regressed. The cards report the raw model output's rates beside the projected ones.",
    },
)

__all__ = ["DOMAIN"]
