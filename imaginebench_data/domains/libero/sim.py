"""The LIBERO simulator: one robosuite/LIBERO floor scene behind the 44-number state.

The scene (``scene.bddl``) is built once per process (``ControlEnv`` construction and its
first reset take about 4 s each) and reused: every later reset restores a saved settled
state and places the items itself, never reloading the model. The Panda is driven by
robosuite's OSC_POSE controller at 20 Hz (25 MuJoCo steps of 2 ms per action).

The dataset state is an observation. The full simulator state (``get_sim_state``,
``SIM_STATE_DIM`` float64 numbers) is::

    [mujoco integration state (mj_getState, mjSTATE_INTEGRATION: time, qpos, qvel, act,
     warm start, ctrl, ...) | gripper command ramp (2) | OSC goal orientation (3 x 3)]

The last two are controller memory outside MuJoCo: the Panda gripper ramps its command by
0.01 per substep, and OSC keeps its previous goal orientation when an action's rotation is
exactly zero. Restoring all three and applying the same action reproduces a live step
bit for bit (``set_state`` with a stored ``sim_state``).

From a 44-number state alone (``set_state`` without ``sim_state``, imaginary data) the scene is
rebuilt approximately: joint angles, fingers and item poses are written into the model,
velocities are zero, the OSC goal orientation is the current hand orientation and the
gripper ramp is saturated towards the stored finger opening; one step is simulated and the
prediction is the stored state plus the simulated change. The ramp is memory of the commands
before, which the state does not hold: a rebuild saturates it closed when the finger position
(``layout.finger_position``: half the difference of the two finger joints) is below
``OPEN_FINGER``, and ``prime`` keeps it closed only if the step's action closes the gripper
too. An open gripper's finger position is 0.039-0.040 m; the hand holds the soup can at 0.031 m,
the cream cheese at 0.021 m and the salad dressing at 0.018 m, and a reset leaves it at about
0.02 m, opening.

Measured on 18 of libero-train-real's expert episodes (2026-12-07, ``experiments/checker_floor.py``),
the rebuilt path puts 9.2% of transitions beyond the tolerance (6.5% of 18 easy ones). Before
(until 2026-12-07) a rebuild opened the hand whenever the finger position was above 0.02 m, so a
held soup can or cream cheese fell out of it: 28.0%; with 0.035 m and no ``prime``, 9.7%, but a
hand opening from a reset was rebuilt closing, which put two or three of the first steps of
every imagined easy episode beyond the tolerance. Each step is judged from a rebuild at rest
(``replay_steps`` 0): replaying the 5 stored steps before it, as Meta-World's checker does,
brought the floor to 2.6% (0.035 m, no ``prime``) but costs LIBERO's checks six simulator steps
for one, an easy verified set's attempts 4.5-4.8 times as long (2026-12-07).
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

import mujoco
import numpy as np

from ...core.simulator import RebuiltSceneSimulator
from ...core.task import Task
from .expert import prepare_start
from .layout import (
    EEF,
    EEF_QUAT,
    ENTITIES,
    FINGERS,
    JOINTS,
    REST_HEIGHT,
    SLOT_START,
    START_REGIONS,
    STATE_DIM,
    finger_position,
    position,
    wxyz_to_xyzw,
    xyzw_to_wxyz,
)

BDDL = Path(__file__).with_name("scene.bddl")
INTEGRATION = mujoco.mjtState.mjSTATE_INTEGRATION
SIM_STATE_DIM = 300  # 284 MuJoCo + 2 gripper ramp + 9 OSC goal orientation, zero padded
SETTLE_STEPS = 5  # zero actions after placing the items, as the original's reset
PLACEMENT_CLEARANCE = 0.002  # items are placed this far above their rest height
OPEN_FINGER = 0.035  # finger position (m) above which a rebuilt gripper counts as open
SCENE_SEED = 0  # the global NumPy seed the scene is built under


@contextlib.contextmanager
def global_numpy_seed(seed: int):
    """Run a block with NumPy's global random stream seeded, then put the caller's stream back.

    robosuite's object placement samplers draw from the global stream, so without this the
    settled scene every reset starts from would depend on what the process drew before (other
    simulators, other builds), and so would every episode, in the last digits.
    """
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(saved)


def make_control_env():
    """A LIBERO ``ControlEnv`` of the floor scene: no renderer, no cameras, no time limit."""
    # robosuite warns at import that it has no private macro file; nothing to act on here.
    logging.getLogger("robosuite_logs").setLevel(logging.ERROR)
    from libero.libero.envs.env_wrapper import ControlEnv

    env = ControlEnv(bddl_file_name=str(BDDL), has_renderer=False, has_offscreen_renderer=False,
                     use_camera_obs=False, ignore_done=True, horizon=10**9)
    env.reset()
    return env


class LiberoSimulator(RebuiltSceneSimulator):
    """The live floor scene; see the module docstring. States are ``(44,)`` float32."""

    def __init__(self) -> None:
        with global_numpy_seed(SCENE_SEED):
            self.env = make_control_env()
        self.robosuite = self.env.env
        self.robot = self.robosuite.robots[0]
        self.model = self.env.sim.model._model
        self.data = self.env.sim.data._data
        self.task: Task | None = None
        m = self.model
        self._eef_site = m.site("gripper0_grip_site").id
        self._hand = m.body(self.robot.robot_model.eef_name).id
        self._bodies = {name: m.body(f"{name}_1_main").id for name in ENTITIES}
        self._free = {name: m.jnt_qposadr[m.joint(f"{name}_1_joint0").id] for name in ENTITIES}
        self._free_vel = {name: m.jnt_dofadr[m.joint(f"{name}_1_joint0").id] for name in ENTITIES}
        self._arm = m.jnt_qposadr[[m.joint(f"robot0_joint{i}").id for i in range(1, 8)]]
        self._fingers = m.jnt_qposadr[[m.joint(f"gripper0_finger_joint{i}").id for i in (1, 2)]]
        for _ in range(40):  # let the items the LIBERO reset dropped come to rest
            self.robosuite.step(np.zeros(7))
        self._settled = self.get_sim_state()
        self._item_quat = {name: self.data.xquat[self._bodies[name]].copy() for name in ENTITIES}

    # --- the 44 numbers ---------------------------------------------------------------------
    def state(self) -> np.ndarray:
        d = self.data
        state = np.empty(STATE_DIM)
        state[JOINTS] = d.qpos[self._arm]
        state[EEF] = d.site_xpos[self._eef_site]
        state[EEF_QUAT] = wxyz_to_xyzw(d.xquat[self._hand])
        state[FINGERS] = d.qpos[self._fingers]
        for name in ENTITIES:
            start = SLOT_START[name]
            state[start:start + 3] = d.xpos[self._bodies[name]]
            state[start + 3:start + 7] = wxyz_to_xyzw(d.xquat[self._bodies[name]])
        return state.astype(np.float32)

    # --- full simulator state ---------------------------------------------------------------
    def get_sim_state(self) -> np.ndarray:
        physics = np.empty(mujoco.mj_stateSize(self.model, INTEGRATION))
        mujoco.mj_getState(self.model, self.data, physics, INTEGRATION)
        full = np.concatenate([physics, self.robot.gripper.current_action,
                               np.asarray(self.robot.controller.goal_ori).ravel()])
        if len(full) > SIM_STATE_DIM:
            raise ValueError(f"the LIBERO scene has a {len(full)}-number state (this MuJoCo's integration "
                             f"state is {len(physics)}); SIM_STATE_DIM is {SIM_STATE_DIM}")
        return np.concatenate([full, np.zeros(SIM_STATE_DIM - len(full))])

    def set_sim_state(self, sim_state: np.ndarray) -> None:
        sim_state = np.asarray(sim_state, np.float64)
        size = mujoco.mj_stateSize(self.model, INTEGRATION)
        mujoco.mj_setState(self.model, self.data, sim_state[:size], INTEGRATION)
        self.robot.gripper.current_action = sim_state[size:size + 2].copy()
        self.robot.controller.goal_ori = sim_state[size + 2:size + 11].reshape(3, 3).copy()
        self.robot.controller.new_update = True
        mujoco.mj_forward(self.model, self.data)

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action) -> np.ndarray:
        """Continue the live scene by one action (clipped to [-1, 1]); exact."""
        self.robosuite.step(np.clip(np.asarray(action, np.float64), -1.0, 1.0))
        return self.state()

    def place(self, name: str, xyz: np.ndarray, quat_wxyz: np.ndarray | None = None) -> None:
        """Teleport item ``name`` (at rest) to ``xyz``."""
        adr, dof = self._free[name], self._free_vel[name]
        self.data.qpos[adr:adr + 3] = xyz
        self.data.qpos[adr + 3:adr + 7] = self._item_quat[name] if quat_wxyz is None else quat_wxyz
        self.data.qvel[dof:dof + 6] = 0.0
        mujoco.mj_forward(self.model, self.data)

    def reset(self, task: Task, rng: np.random.Generator) -> np.ndarray:
        """A fresh scene for ``task``: the arm at its home pose, every item (and the basket)
        uniformly in its start region, then the task's preparation (``task.goal["start"]``:
        "home", "held" = the item already grasped and lifted by the expert's own pick, or
        "in_basket" = the item dropped into the basket). Redrawn while the task is solved."""
        self.task = task
        noop = np.zeros((1, 7), np.float32)
        while True:
            self.set_sim_state(self._settled)
            for name in ENTITIES:
                x0, y0, x1, y1 = START_REGIONS[name]
                xy = rng.uniform((x0, y0), (x1, y1))
                self.place(name, np.array([*xy, REST_HEIGHT[name] + PLACEMENT_CLEARANCE]))
            for _ in range(SETTLE_STEPS):
                state = self.step(np.zeros(7))
            state = prepare_start(self, task, state, rng)
            if not task.success(state[None], noop, state[None])[0]:
                return state

    def set_state(self, task: Task | None, state: np.ndarray,
                  sim_state: np.ndarray | None = None) -> np.ndarray:
        """Exact from a stored ``sim_state``; else rebuilt from the 44 numbers (``rebuild``)."""
        if sim_state is None:
            return self.rebuild(state)
        self.set_sim_state(sim_state)
        return self.state()

    def prime(self, state: np.ndarray, action: np.ndarray) -> None:
        """A rebuilt gripper is closing only where its fingers stand below ``OPEN_FINGER`` and
        the next action closes it (its command, action[6], above 0): the ramp is the
        controller's memory of the commands before, which the state does not hold, and a hand
        opening from a reset's half-closed fingers is opening."""
        self.saturate_grip(closed=finger_position(state) < OPEN_FINGER and action[6] > 0)

    def saturate_grip(self, closed: bool) -> None:
        """The gripper's command ramp at its closed end, (-1, 1) (finger 1 commanded to 0,
        finger 2 to 0), or at its open end."""
        self.robot.gripper.current_action = np.array([-1.0, 1.0]) if closed else np.array([1.0, -1.0])

    def rebuild(self, state: np.ndarray) -> np.ndarray:
        """Write a 44-number state into the scene (see the module docstring); returns the
        state the simulator now observes (joint limits and the basket's pose are kept)."""
        state = np.asarray(state, np.float64)
        self.set_sim_state(self._settled)
        d = self.data
        d.qpos[self._arm] = state[JOINTS]
        d.qpos[self._fingers] = state[FINGERS]
        for name in ENTITIES:
            quat = xyzw_to_wxyz(state[SLOT_START[name] + 3:SLOT_START[name] + 7])
            norm = np.linalg.norm(quat)
            self.place(name, position(state, name), quat / norm if norm > 1e-6 else None)
        d.qvel[:] = 0.0
        mujoco.mj_forward(self.model, self.data)
        self.saturate_grip(closed=finger_position(state) < OPEN_FINGER)
        self.robot.controller.goal_ori = d.site_xmat[self._eef_site].reshape(3, 3).copy()
        self.robot.controller.new_update = True
        return self.state()
