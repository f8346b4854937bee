"""The Meta-World simulator: metaworld v3 scenes behind the 91-number entity-slot state.

One metaworld env per scene, built on first use (0.1-0.2 s each) and reused; the
locked-door scene is this package's (locked_door.py), the others are metaworld's. Resets are
seeded: ``reset(task, rng)`` draws a seed from ``rng`` and resets the scene with a
fresh random goal and object placement from it (``seeded_rand_vec``), so a recipe seed fixes
every episode.

The dataset state is an observation: it does not hold joint angles, velocities, the solver's
warm start or the randomised placement of fixed bodies. The full simulator state
(``get_sim_state``, ``SIM_STATE_DIM`` float64 numbers) is::

    [goal xyz (3) | model.body_pos (3 * nbody) | mujoco integration state | zero padding]

Restoring it and applying the same action reproduces a live step exactly
(``set_state`` with a stored ``sim_state``). From a 91-number state alone (``set_state`` without it) the hand
is driven to the stored gripper position and opening in the task's scene (objects stay where
the scene was left), one step is simulated, and the predicted next state is the stored state
plus the simulated change: an approximation that is fair to the hand's motion and blind to
contacts with objects placed elsewhere. A rebuild is at rest, so the checkers rebuild the
state ``REPLAY_STEPS`` steps back and replay the stored actions since before the step they
judge (``RebuiltSceneSimulator``): on 20 of metaworld-train-real's expert episodes this puts
8.3% of transitions beyond the tolerance, against 24.0% judged from a rebuild of s_t itself
(2026-12-07; ``experiments/checker_floor.py``).

Such a rebuild starts from where the scene was left, so the checkers first put the scene in
one fixed state per episode (``start_rebuilds``: its reset from seed 0, made in a new env).
Before that (until 2026-11-30), an episode's rebuilds started from whatever the worker's
simulator had re-simulated before, and which episodes a worker gets depends on timing: one
episode of 80 in Meta-World's hard imagined set got other transition errors in a rebuild.
"""

from __future__ import annotations

import warnings

import mujoco
import numpy as np

from ...core.simulator import RebuiltSceneSimulator
from ...core.task import Task
from .layout import OPENING, SLOT_START, STATE_DIM, TARGET, pose_slot
from .predicates import stage
from .scenes import SCENES, Scene

SIM_STATE_DIM = 512
INTEGRATION = mujoco.mjtState.mjSTATE_INTEGRATION
REBUILD_SETTLE_STEPS = 15  # env steps that drive the hand to a rebuilt gripper position
REPLAY_STEPS = 5  # stored steps replayed from a rebuild before the step judged (RebuiltSceneSimulator)


def _make_env(name: str):
    from metaworld.env_dict import ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE

    from .locked_door import ENV_NAME, SawyerLockedDoorEnvV3

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == ENV_NAME:
            env = SawyerLockedDoorEnvV3(seed=0)
        else:
            env = ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE[f"{name}-goal-observable"](seed=0)
    env._freeze_rand_vec = False
    env.seeded_rand_vec = True
    return env


def _has(accessor, name: str) -> bool:
    try:
        accessor(name)
    except KeyError:
        return False
    return True


class MetaWorldSimulator(RebuiltSceneSimulator):
    """Live metaworld scenes; see the module docstring. States are ``(91,)`` float32."""

    needs_task = True  # the scene (which entities, which env) is the task's
    replay_steps = REPLAY_STEPS

    def __init__(self) -> None:
        self._envs: dict[str, object] = {}
        self.task: Task | None = None
        self.scene: Scene | None = None
        self.env = None
        self.raw_obs: np.ndarray | None = None  # the env's 39-number observation (for experts)
        self._fixed: dict[str, np.ndarray] = {}  # scene -> the sim state rebuilds start from

    # --- scenes ---------------------------------------------------------------------------
    def _use(self, task: Task) -> None:
        scene = SCENES[task.goal["scene"]]
        if scene.env not in self._envs:
            self._envs[scene.env] = _make_env(scene.env)
        self.task, self.scene, self.env = task, scene, self._envs[scene.env]

    def reset(self, task: Task, rng: np.random.Generator) -> np.ndarray:
        """A fresh seeded scene for ``task`` in which it is not already solved."""
        self._use(task)
        noop = np.zeros((1, 4), np.float32)
        while True:
            self.env.seed(int(rng.integers(2**31 - 1)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.env.reset()
            # metaworld's reset observation can predate the scene's last placement (window-close
            # reports its window shut); one zero action makes the observation match the physics.
            state = self.step(np.zeros(4))
            if not task.success(state[None], noop, state[None])[0]:
                return state

    # --- the 91 numbers ---------------------------------------------------------------------
    def state(self) -> np.ndarray:
        env, obs, scene = self.env, self.raw_obs, self.scene
        data, model = env.data, env.model
        state = np.zeros(STATE_DIM)
        state[0:3] = env.tcp_center
        state[OPENING] = obs[3]
        state[TARGET] = obs[36:39]
        slots = {scene.first: pose_slot(obs[4:7], obs[7:11])}
        if scene.second:
            slots[scene.second] = pose_slot(obs[11:14], obs[14:18])
        if _has(model.body, "wall"):
            slots["wall"] = pose_slot(data.body("wall").xpos, data.body("wall").xquat)
        if _has(model.body, "coffee_machine"):
            slots["coffee"] = pose_slot(data.body("coffee_machine").xpos, data.body("coffee_machine").xquat)
            slots.setdefault("coffee_button", pose_slot(data.site("buttonStart").xpos, np.zeros(4)))
            slots.setdefault("target_object", pose_slot(data.body("obj").xpos, data.body("obj").xquat))
        for name, values in slots.items():
            state[SLOT_START[name]:SLOT_START[name] + 7] = values
        if scene.staged_targets:  # the target moves on with the stage (visible in the state)
            done = int(stage(state[None], scene_conditions(self.task))[0])
            if done >= 1:
                offset = scene.staged_targets[min(done, len(scene.staged_targets)) - 1]
                state[TARGET] = data.body(scene.staged_origin).xpos + np.asarray(offset)
        return state.astype(np.float32)

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action) -> np.ndarray:
        """Continue the live scene by one action (clipped to [-1, 1]); exact."""
        action = np.clip(np.asarray(action, np.float64), -1.0, 1.0)
        self.env.curr_path_length = 0  # our horizon (100) is below metaworld's own limit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.raw_obs, *_ = self.env.step(action)
        return self.state()

    def get_sim_state(self) -> np.ndarray:
        model, data = self.env.model, self.env.data
        physics = np.empty(mujoco.mj_stateSize(model, INTEGRATION))
        mujoco.mj_getState(model, data, physics, INTEGRATION)
        full = np.concatenate([self.env._target_pos, model.body_pos.ravel(), physics])
        if len(full) > SIM_STATE_DIM:
            raise ValueError(f"scene {self.scene.env} has a {len(full)}-number state; SIM_STATE_DIM "
                             f"is {SIM_STATE_DIM}")
        return np.concatenate([full, np.zeros(SIM_STATE_DIM - len(full))])

    def set_sim_state(self, task: Task, sim_state: np.ndarray) -> None:
        self._use(task)
        model, data = self.env.model, self.env.data
        sim_state = np.asarray(sim_state, np.float64)
        bodies = 3 * model.nbody
        self.env._target_pos = sim_state[:3].copy()
        model.body_pos[:] = sim_state[3:3 + bodies].reshape(-1, 3)
        physics = sim_state[3 + bodies:3 + bodies + mujoco.mj_stateSize(model, INTEGRATION)]
        mujoco.mj_setState(model, data, physics, INTEGRATION)
        mujoco.mj_forward(model, data)
        self.raw_obs = self.env._get_obs()

    def start_rebuilds(self, task: Task) -> None:
        """Put ``task``'s scene in its reset from seed 0, as a new env makes it (computed once per
        scene), so that what this simulator did before (the hand, the objects, the solver's warm
        start, fixed bodies placed from a stored ``sim_state``) does not reach the rebuilds."""
        name = task.goal["scene"]
        if name not in self._fixed:
            new = MetaWorldSimulator()  # scenes can share an env: this one is untouched
            new.reset(task, np.random.default_rng(0))
            self._fixed[name] = new.get_sim_state()
        self.set_sim_state(task, self._fixed[name])

    def set_state(self, task: Task, state: np.ndarray,
                  sim_state: np.ndarray | None = None) -> np.ndarray:
        """Exact from a stored ``sim_state``; else rebuilt from the 91 numbers (see the module
        docstring)."""
        if sim_state is not None:
            self.set_sim_state(task, sim_state)
            return self.state()
        if self.task is None or self.task.goal["scene"] != task.goal["scene"] or self.raw_obs is None:
            self.reset(task, np.random.default_rng(0))
        self._use(task)
        env = self.env
        state = np.asarray(state, np.float64)
        hand_target = state[0:3] + (env.get_endeff_pos() - env.tcp_center)
        grip = -1.0 if state[OPENING] > 0.5 else 1.0
        mocap = env.model.body_mocapid[env.data.body("mocap").id]
        for _ in range(REBUILD_SETTLE_STEPS):
            env.data.mocap_pos[mocap] = np.clip(hand_target, env.mocap_low, env.mocap_high)
            env.do_simulation([grip, -grip], env.frame_skip)
        env._target_pos = state[TARGET].copy()
        env.data.qvel[:] = 0.0
        mujoco.mj_forward(env.model, env.data)
        self.raw_obs = env._get_obs()
        return self.state()


def scene_conditions(task: Task) -> list[dict]:
    return task.goal["conditions"]
