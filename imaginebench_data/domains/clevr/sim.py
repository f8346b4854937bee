"""The CLEVR-Robot simulator: five balls on a walled table and a point-mass pusher.

Written on the ``mujoco`` bindings. Balls slide in the plane (two slide joints each),
so the simulator state is exactly the 10 numbers of the dataset state: the xy centre of
each ball in the fixed colour order red, blue, green, purple, cyan. Velocities are zero
between actions (every push ends with a settle phase, after which velocities are reset),
which makes one push a deterministic function of the 10-number state: re-simulating a
stored transition from its start state reproduces it exactly.

Action ``a`` in ``0..39`` pushes ball ``a // 8`` along direction ``a % 8``: the pusher is
teleported behind the ball (opposite the direction), then driven along the direction.
Units are metres; the table spans ``[-TABLE_HALF, TABLE_HALF]`` on both axes.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...core.simulator import WholeStateSimulator

BALL_RADIUS = 0.13
N_BALLS = 5
COLOURS = ("red", "blue", "green", "purple", "cyan")
RGBA = ("1 0.1 0.1 1", "0.1 0.2 1 1", "0.1 0.8 0.2 1", "0.6 0.2 0.8 1", "0.1 0.9 0.9 1")
STATE_DIM = 2 * N_BALLS
N_DIRECTIONS = 8
N_ACTIONS = N_BALLS * N_DIRECTIONS
# Push directions, in the original's order: +x, +y, -x, -y, then the four diagonals.
DIRECTIONS = np.array(
    [[1, 0], [0, 1], [-1, 0], [0, -1], [0.8, 0.8], [-0.8, 0.8], [0.8, -0.8], [-0.8, -0.8]],
    dtype=np.float64,
)
TABLE_HALF = 1.0  # walls stand just outside this square
PUSHER_RADIUS = 0.05
PUSH_OFFSET = BALL_RADIUS + PUSHER_RADIUS + 0.02  # pusher centre behind the ball, before a push
PUSH_SPEED = 0.6  # m/s commanded to the pusher
PUSH_SUBSTEPS = 20
SETTLE_SUBSTEPS = 20
PARK = (0.0, -3.0)  # where the pusher waits between pushes, far off the table
# Random scenes: the original's spawn box, balls' surfaces at least SPAWN_GAP apart.
SPAWN_LOW = np.array([-0.5, -0.3])
SPAWN_HIGH = np.array([0.5, 0.5])
SPAWN_GAP = 0.1


def _model_xml() -> str:
    wall = TABLE_HALF + 0.05
    balls = "\n".join(
        f"""    <body name="ball{i}" pos="0 0 {BALL_RADIUS}">
      <joint name="ball{i}_x" type="slide" axis="1 0 0" damping="0.4"/>
      <joint name="ball{i}_y" type="slide" axis="0 1 0" damping="0.4"/>
      <geom type="sphere" size="{BALL_RADIUS}" mass="0.1" rgba="{RGBA[i]}" contype="1" conaffinity="3"/>
    </body>"""
        for i in range(N_BALLS)
    )
    walls = "\n".join(
        f'    <geom type="box" pos="{x} {y} {BALL_RADIUS}" size="{sx} {sy} {BALL_RADIUS}" '
        f'contype="2" conaffinity="1" rgba="0.5 0.5 0.5 1"/>'
        for x, y, sx, sy in (
            (wall, 0, 0.05, wall + 0.05),
            (-wall, 0, 0.05, wall + 0.05),
            (0, wall, wall + 0.05, 0.05),
            (0, -wall, wall + 0.05, 0.05),
        )
    )
    return f"""<mujoco model="clevr_robot">
  <option timestep="0.005" integrator="implicitfast" gravity="0 0 0"/>
  <worldbody>
    <geom name="table" type="plane" size="{TABLE_HALF + 0.1} {TABLE_HALF + 0.1} 0.01"
          contype="0" conaffinity="0"/>
{walls}
{balls}
    <body name="pusher" pos="0 0 {BALL_RADIUS}">
      <joint name="pusher_x" type="slide" axis="1 0 0"/>
      <joint name="pusher_y" type="slide" axis="0 1 0"/>
      <geom type="sphere" size="{PUSHER_RADIUS}" mass="1" rgba="0.9 0.9 0.9 1" contype="1" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <velocity joint="pusher_x" kv="50" ctrlrange="-2 2"/>
    <velocity joint="pusher_y" kv="50" ctrlrange="-2 2"/>
  </actuator>
</mujoco>"""


class ClevrSimulator(WholeStateSimulator):
    """One MuJoCo model and data; place any 10-number state, apply pushes, read the state.

    ``state`` arrays have shape ``(10,)`` = ``[x_red, y_red, x_blue, y_blue, ...]``: the whole
    simulator state (velocities are zero between pushes), so ``set_state`` is exact and no
    further state is stored. States are kept in float32 precision: ``place`` rounds to float32
    so that a stored (float32) state re-simulates to the same result as the live run.
    """

    def __init__(self) -> None:
        self.model = mujoco.MjModel.from_xml_string(_model_xml())
        self.data = mujoco.MjData(self.model)
        super().__init__(STATE_DIM)

    # --- pushes from any state (the expert plans with these) --------------------------------
    def place(self, state: np.ndarray) -> None:
        state = np.asarray(state, dtype=np.float32).astype(np.float64)
        if state.shape != (STATE_DIM,):
            raise ValueError(f"CLEVR state must have shape ({STATE_DIM},), got {state.shape}")
        self.data.qpos[:STATE_DIM] = state
        self.data.qpos[STATE_DIM:] = PARK
        self.data.qvel[:] = 0.0
        self.data.ctrl[:] = 0.0
        mujoco.mj_forward(self.model, self.data)

    def get_state(self) -> np.ndarray:
        return self.data.qpos[:STATE_DIM].astype(np.float32)

    def push(self, action: int) -> np.ndarray:
        """Apply discrete action ``action`` from the current state; return the new state."""
        if not 0 <= int(action) < N_ACTIONS:
            raise ValueError(f"CLEVR action must be in [0, {N_ACTIONS}), got {action}")
        ball, direction = divmod(int(action), N_DIRECTIONS)
        unit = DIRECTIONS[direction] / np.linalg.norm(DIRECTIONS[direction])
        centre = self.data.qpos[2 * ball : 2 * ball + 2]
        self.data.qpos[STATE_DIM:] = centre - PUSH_OFFSET * unit
        self.data.qvel[:] = 0.0
        mujoco.mj_forward(self.model, self.data)
        self.data.ctrl[:] = PUSH_SPEED * DIRECTIONS[direction]
        mujoco.mj_step(self.model, self.data, nstep=PUSH_SUBSTEPS)
        self.data.ctrl[:] = 0.0
        self.data.qpos[STATE_DIM:] = PARK
        self.data.qvel[STATE_DIM:] = 0.0
        mujoco.mj_step(self.model, self.data, nstep=SETTLE_SUBSTEPS)
        # Rest between actions: the next push starts from the 10 numbers alone.
        self.place(self.get_state())
        return self.get_state()

    def step_from(self, state: np.ndarray, action: int) -> np.ndarray:
        """Put the simulator in ``state``, apply ``action``, return the next state."""
        self.place(state)
        return self.push(action)

    def random_state(self, rng: np.random.Generator) -> np.ndarray:
        """A random scene: balls uniform in the spawn box, surfaces at least SPAWN_GAP apart.

        Tries are drawn ``SPAWN_BLOCK`` at a time and checked together (a reset takes ~200
        tries); ``rng`` is then wound back to just after the accepted try, so the scene and
        every later draw are those of drawing and checking one try at a time."""
        # PCG64 (``default_rng``'s) spends exactly one 64-bit step per double and can skip ahead.
        blocks = isinstance(rng.bit_generator, (np.random.PCG64, np.random.PCG64DXSM))
        while True:
            saved = rng.bit_generator.state if blocks else None
            tries = rng.uniform(SPAWN_LOW, SPAWN_HIGH, size=(SPAWN_BLOCK if saved else 1, N_BALLS, 2))
            accepted = np.flatnonzero(_spread_out(tries))
            if len(accepted) == 0:
                continue
            if saved is not None:  # one 64-bit step per double: rewind, then skip the used tries
                rng.bit_generator.state = saved
                rng.bit_generator.advance(int(accepted[0] + 1) * N_BALLS * 2)
                # advance() drops the buffered half of a 64-bit step that 32-bit draws (e.g.
                # small-range integers) keep; doubles never touch it, so it is put back.
                state = rng.bit_generator.state
                rng.bit_generator.state = {**state, "has_uint32": saved["has_uint32"],
                                           "uinteger": saved["uinteger"]}
            return tries[accepted[0]].reshape(-1).astype(np.float32)


SPAWN_BLOCK = 64  # random scenes drawn and checked together (a reset needs ~200 on average)
_PAIRS = np.triu_indices(N_BALLS, 1)  # (first, second) ball of each of the 10 pairs


def _spread_out(centres: np.ndarray) -> np.ndarray:
    """``(k,)`` bool: which of the ``(k, N_BALLS, 2)`` scenes have every two balls' surfaces at
    least SPAWN_GAP apart (the distances computed as ``np.linalg.norm`` of each pair)."""
    gaps = np.linalg.norm(centres[:, _PAIRS[0]] - centres[:, _PAIRS[1]], axis=-1)
    return np.all(gaps >= 2 * BALL_RADIUS + SPAWN_GAP, axis=-1)
