"""The locked-door scene: metaworld's door-lock safe whose door also swings, held shut by its lock.

metaworld 3.1.1 has no such scene: the door-lock/door-unlock safe (``sawyer_door_lock.xml``)
has a lock but a door without a hinge, the door-open safe has a hinge but no lock. This
scene is the door-lock model, edited at load time with ``mujoco.MjSpec`` (no XML is
shipped), plus:

- ``doorjoint``: a hinge on the door (``door_link``) with the door-open scene's conventions:
  vertical axis at the door's left edge, range -2..0 rad (negative = open, towards the
  robot), the safe's joint defaults (damping 2); the door handle geom is named ``handle``
  and the lock's hinge ``lockjoint``, whose stops are made as firm as the latch (metaworld's
  soft stop let the arm, rising from under the turned-up lock, lever it 0.6 rad past them).
- ``latch``: a joint equality holding ``doorjoint`` at 0 (shut), made stiff (time constant
  ``2 x timestep``, impedance 0.99-0.999): a pull the arm can produce opens a latched door
  by under 1e-3 rad. It is switched before each env step (``do_simulation``) from the state:
  latched = the lock is turned down further than ``LATCH_ANGLE`` (0.38 rad from horizontal,
  the angle at which door-unlock's success check starts to hold) and the latch was already
  on or the door is within ``LATCH_REACH`` of shut (a bolt only catches a closed door). The
  switch is MuJoCo's ``eq_active``, part of the integration state the dataset stores per
  step, so re-simulation from a stored full state is exact.

Placement and goals: the safe is placed uniformly in x 0..0.1, y 0.8..0.95 (door-open's x
range, door-unlock's and door-open's y ranges joined); the lock starts turned down (locked);
the goal is door-unlock's (lock pivot + (0.1, -0.04, 0)), and the door-open goal is the safe
+ ``DOOR_OPEN_GOAL`` (scenes.py) as in door-open. Observed objects: 1 = the lock
(door-unlock's site and quaternion), 2 = the handle (door-open's geom and quaternion).

Expert: door-unlock's scripted policy, then ``LockedDoorOpenPolicy``, metaworld's door-open
policy with one change for where door-unlock leaves the hand (under the turned-up lock,
level with the handle and 0.08-0.1 m left of it, where door-open's policy would push at once,
from the wrong side): the hand first backs off to 0.08 m in front of the handle while
rising to door-open's approach height, lines up over the handle, and only then runs
door-open's drop-and-push, pushing only within 0.05 m of the handle.
"""

from __future__ import annotations

import mujoco
import numpy as np
from gymnasium.spaces import Box
from metaworld.envs.sawyer_door_unlock_v3 import SawyerDoorUnlockEnvV3
from metaworld.policies import SawyerDoorOpenV3Policy
from scipy.spatial.transform import Rotation

ENV_NAME = "locked-door-v3"
LATCH_ANGLE = 0.38  # rad: lock angles above this hold the door (0 = turned up, 1.57 = locked)
LATCH_REACH = 0.05  # rad: the latch catches the door only this close to shut
LOCKED = 1.5708
LATCH_SOLREF = (0.005, 1.0)
LATCH_SOLIMP = (0.99, 0.999, 0.001, 0.5, 2.0)
PLACEMENT_LOW = np.array([0.0, 0.8, 0.15])
PLACEMENT_HIGH = np.array([0.1, 0.95, 0.15])
UNLOCK_GOAL = np.array([0.1, -0.04, 0.0])  # from the lock pivot, as door-unlock
LOCK_PIVOT = np.array([0.0, -0.118, 0.061])  # lock pivot from the safe (door closed)


def locked_door_spec(path: str) -> mujoco.MjSpec:
    """The door-lock model at ``path`` with the door hinge, names and latch added."""
    spec = mujoco.MjSpec.from_file(path)
    door = spec.body("door_link")
    door.add_joint(spec.find_default("dl_base"), name="doorjoint", type=mujoco.mjtJoint.mjJNT_HINGE,
                   axis=[0.0, 0.0, 1.0], range=[-2.0, 0.0])
    lock = spec.body("lock_link").joints[0]
    lock.name = "lockjoint"
    lock.solref_limit, lock.solimp_limit = list(LATCH_SOLREF), list(LATCH_SOLIMP)  # a firm stop when up
    for geom in door.geoms:
        if geom.meshname == "door_handle":
            geom.name = "handle"
    latch = spec.add_equality(name="latch", type=mujoco.mjtEq.mjEQ_JOINT, objtype=mujoco.mjtObj.mjOBJ_JOINT,
                              name1="doorjoint")
    latch.solref, latch.solimp = list(LATCH_SOLREF), list(LATCH_SOLIMP)
    return spec


class SawyerLockedDoorEnvV3(SawyerDoorUnlockEnvV3):
    """Goal-observable locked-door scene (see the module docstring), built reset, with
    seeded placements (``seed()`` then ``reset()``), leaving the global numpy RNG alone."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.door_qpos = self.model.joint("doorjoint").qposadr.item()
        self.lock_qpos = self.model.joint("lockjoint").qposadr.item()
        self.latch_id = self.model.equality("latch").id
        self._random_reset_space = Box(PLACEMENT_LOW, PLACEMENT_HIGH, dtype=np.float64)
        pivot = LOCK_PIVOT + UNLOCK_GOAL
        self.goal_space = Box(PLACEMENT_LOW + pivot, PLACEMENT_HIGH + pivot + 1e-4, dtype=np.float64)
        # as metaworld's goal-observable wrappers (env_dict._create_observable_goal_envs)
        self._partially_observable = False
        self._freeze_rand_vec = False
        del self.sawyer_observation_space
        self._set_task_called = True
        self.seeded_rand_vec = True
        self.seed(seed)
        self.reset()

    def _initialize_simulation(self) -> tuple[mujoco.MjModel, mujoco.MjData]:
        model = locked_door_spec(self.fullpath).compile()
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, self.width)
        model.vis.global_.offheight = max(model.vis.global_.offheight, self.height)
        return model, mujoco.MjData(model)

    def latched(self) -> bool:
        """Whether the lock holds the door during the next step (see the module docstring)."""
        qpos = self.data.qpos
        catches = bool(self.data.eq_active[self.latch_id]) or abs(qpos[self.door_qpos]) < LATCH_REACH
        return bool(qpos[self.lock_qpos] > LATCH_ANGLE and catches)

    def do_simulation(self, ctrl, n_frames=None) -> None:
        self.data.eq_active[self.latch_id] = self.latched()
        super().do_simulation(ctrl, n_frames)

    def _get_pos_objects(self) -> np.ndarray:
        return np.concatenate([self._get_site_pos("lockStartUnlock"), self.data.geom("handle").xpos])

    def _get_quat_objects(self) -> np.ndarray:
        handle = Rotation.from_matrix(self.data.geom("handle").xmat.reshape(3, 3)).as_quat()
        return np.concatenate([self.data.body("door_link").xquat, handle])

    def _set_obj_xyz(self, pos) -> None:
        """Lock at angle ``pos`` (rad), door shut, both at rest."""
        qpos, qvel = self.data.qpos.copy(), self.data.qvel.copy()
        qpos[self.lock_qpos], qpos[self.door_qpos] = float(pos), 0.0
        qvel[self.lock_qpos] = qvel[self.door_qpos] = 0.0
        self.set_state(qpos, qvel)

    def reset_model(self) -> np.ndarray:
        self._reset_hand()
        self.model.body("door").pos = self._get_state_rand_vec()
        self._set_obj_xyz(LOCKED)
        self.data.eq_active[self.latch_id] = True
        self.obj_init_pos = self.data.body("lock_link").xpos.copy()
        self._target_pos = self.obj_init_pos + UNLOCK_GOAL
        self.maxPullDist = np.linalg.norm(self._target_pos - self.obj_init_pos)
        return self._get_obs()


class LockedDoorOpenPolicy(SawyerDoorOpenV3Policy):
    """Door-open, approached from above (see the module docstring). Positions in metres."""

    @staticmethod
    def _desired_pos(o_d: dict[str, np.ndarray]) -> np.ndarray:
        hand, handle = o_d["hand_pos"], o_d["door_pos"]
        push_to = handle - np.array([0.05, 0.0, 0.0])  # door-open's push target
        above = push_to + np.array([0.06, 0.02, 0.2])  # door-open's approach point
        if abs(hand[2] - push_to[2]) <= 0.04 and np.linalg.norm(hand[:2] - handle[:2]) <= 0.05:
            return push_to
        if np.linalg.norm(hand[:2] - above[:2]) > 0.02:
            if hand[2] < above[2] - 0.05:  # back off the door and rise clear of the lock
                return np.array([hand[0], min(hand[1], push_to[1] - 0.08), above[2]])
            return above
        return push_to + np.array([0.06, 0.02, 0.0])  # door-open's drop onto the handle
