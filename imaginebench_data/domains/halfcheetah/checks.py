"""HalfCheetah state checkers: illegal states by kind, and the distance used for transition error.

- ``joint_out_of_range``: a leg joint angle (state 3-8) outside the model's ``jnt_range``
  widened by ``JOINT_MARGIN``. MuJoCo's joint limits are soft: measured overshoot is up to
  0.25 rad in the 30,800 steps of the four demo real datasets and 0.23 rad under random
  bang-bang controls (40,000 steps), so the margin is 0.4 rad.
- ``too_fast``: a velocity (state 9-17) or the step's displacement (state 0) beyond what the
  model reaches. Measured maxima over expert rollouts of every task and 80,000 steps of
  uniform and bang-bang random controls: root x 11.7 m/s, root z 5.3 m/s, pitch 10.6 rad/s,
  joints 35.5 rad/s; the bounds ``SPEED_BOUND`` are about 1.5 times those, and
  abs(dx) <= 20 m/s x 0.05 s = 1 m.
- ``torso_in_floor``: the torso's height (state 1, relative to its start 0.7 m above the
  floor) below -0.7, i.e. its centre under the floor (measured minimum -0.60: lying flat).
- ``bad_counters``: the history numbers contradict each other: time negative or off the
  0.05 s grid of the steps, the peak below max(x, 0) or the trough above min(x, 0) (by more
  than 1 mm).
- ``non_finite``: any NaN or infinity.

Transition distance: the largest absolute difference between the stored next state and the
re-simulated one over positions, angles, displacements and counters (m, rad, s), and over
velocities times the step length 0.05 s (the displacement a velocity error makes in one
step). Tolerance 0.02 (2 cm, about 1 degree, 0.4 m/s; any miscounted step, 0.05 s).
"""

from __future__ import annotations

import numpy as np

from .layout import DT, DX, JOINTS, PEAK, QVEL, ROOTZ, STATE_DIM, TIME, TROUGH, X, steps

ILLEGAL_KINDS = ("joint_out_of_range", "too_fast", "torso_in_floor", "bad_counters", "non_finite")
# HalfCheetah-v5's jnt_range of bthigh, bshin, bfoot, fthigh, fshin, ffoot (rad), checked
# against the loaded model in the tests.
JOINT_RANGE = np.array([[-0.52, 1.05], [-0.785, 0.785], [-0.4, 0.785],
                        [-1.0, 0.7], [-1.2, 0.87], [-0.5, 0.5]])
JOINT_MARGIN = 0.4
JOINT_OVERSHOOT = 0.25  # rad: the most the simulator was measured past jnt_range
LYING_FLAT = -0.6  # m: the lowest torso height measured (lying flat)
SPEED_BOUND = np.array([20.0, 8.0, 16.0] + [50.0] * 6)  # |qvel|: m/s, m/s, rad/s, 6 x rad/s
MAX_STEP_DISPLACEMENT = SPEED_BOUND[0] * DT
FLOOR_HEIGHT = -0.7
COUNTER_SLACK = 1e-3      # m
TIME_SLACK = 0.01          # steps (float32 rounding of t is about 1e-4 steps)
TRANSITION_TOLERANCE = 0.02
# Per-number weights of the transition distance: velocities count for one step's travel.
WEIGHTS = np.ones(STATE_DIM)
WEIGHTS[QVEL] = DT


def illegal(states: np.ndarray) -> np.ndarray:
    """(N, 5) bool, columns in ``ILLEGAL_KINDS`` order."""
    raw = np.asarray(states, np.float64).reshape(-1, STATE_DIM)
    non_finite = ~np.isfinite(raw).all(axis=-1)
    s = np.nan_to_num(raw, nan=0.0, posinf=1e6, neginf=-1e6)
    joints = s[:, JOINTS]
    low, high = JOINT_RANGE[:, 0] - JOINT_MARGIN, JOINT_RANGE[:, 1] + JOINT_MARGIN
    out_of_range = ((joints < low) | (joints > high)).any(-1)
    too_fast = (np.abs(s[:, QVEL]) > SPEED_BOUND).any(-1) | (np.abs(s[:, DX]) > MAX_STEP_DISPLACEMENT)
    in_floor = s[:, ROOTZ] < FLOOR_HEIGHT
    taken, x = steps(s), s[:, X]
    bad_counters = (s[:, TIME] < 0) | (np.abs(taken - np.rint(taken)) > TIME_SLACK)
    bad_counters |= (s[:, PEAK] < np.maximum(x, 0.0) - COUNTER_SLACK)
    bad_counters |= (s[:, TROUGH] > np.minimum(x, 0.0) + COUNTER_SLACK)
    valid = ~non_finite
    return np.stack([out_of_range & valid, too_fast & valid, in_floor & valid, bad_counters & valid,
                     non_finite], axis=-1)


def transition_distance(predicted: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """(N,) weighted largest difference (see the module docstring); inf where either is non-finite."""
    predicted = np.asarray(predicted, np.float64).reshape(-1, STATE_DIM)
    stored = np.asarray(stored, np.float64).reshape(-1, STATE_DIM)
    distance = np.max(np.abs(predicted - stored) * WEIGHTS, axis=-1)
    return np.where(np.isfinite(distance), distance, np.inf)
