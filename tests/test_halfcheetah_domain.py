"""HalfCheetah: simulator and reset, checkers on corrupted rollouts, expert, eval env."""


import numpy as np
import pytest
from checking import corrupted

from imaginebench_data import get_domain, make_env
from imaginebench_data.domains.halfcheetah.checks import JOINT_RANGE
from imaginebench_data.domains.halfcheetah.layout import DX, JOINTS, QVEL, ROOTZ, TIME, X
from imaginebench_data.domains.halfcheetah.sim import SIM_STATE_DIM
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import annotate

HC = get_domain("halfcheetah")
KIND_BIT = {kind: 1 << i for i, kind in enumerate(HC.illegal_kinds)}


@pytest.fixture(scope="module")
def sim():
    return HC.simulator()


@pytest.fixture(scope="module")
def clean(sim):
    """A real hard-level episode (jump-in-place: 15 steps), checked."""
    return annotate(HC, expert_episode(HC, "hard", index=2, recipe_seed=5, sim=sim), sim)


def corrupt(episode, sim, t, edit, keep_sim_states=False):
    """The episode with ``edit`` applied (in place) to a copy of state t, checked again (by
    default as data without simulator states, like imaginary data)."""
    state = episode.states[t].copy()
    edit(state)
    return corrupted(HC, episode, sim, t, state, keep_sim_states)


def test_joint_ranges_are_the_models(sim):
    np.testing.assert_allclose(JOINT_RANGE, sim.model.jnt_range[3:9])


def test_reset_hides_absolute_x(sim):
    for seed in range(3):
        state = sim.reset(HC.tasks("train")[0], np.random.default_rng(seed))
        assert sim.data.qpos[0] != 0.0                      # gymnasium's reset noise moved the root
        assert state[DX] == 0.0 and np.all(state[X:] == 0.0)
        np.testing.assert_allclose(state[1:9], sim.data.qpos[1:], atol=1e-6)


def test_first_18_numbers_are_dx_then_gymnasiums_own_observation(sim):
    """0-17 are the issue's (and the original's) state: the step's x displacement, then
    HalfCheetah-v5's 17-number observation; the 4 counters only follow."""
    state = sim.reset(HC.tasks("train")[0], np.random.default_rng(4))
    np.testing.assert_allclose(state[1:18], sim.env._get_obs(), atol=1e-6)
    actions = np.random.default_rng(5).uniform(-1, 1, (20, 6))
    for action in actions:
        before = sim.data.qpos[0]
        state = sim.step(action)
        assert state[DX] == pytest.approx(sim.data.qpos[0] - before, abs=1e-6)
        np.testing.assert_allclose(state[1:18], sim.env._get_obs(), atol=1e-5)
    assert state[X] == pytest.approx(sim.data.qpos[0] - sim.origin, abs=1e-5) and abs(state[X]) > 0.01


def test_real_rollout_resimulates_exactly(clean, sim):
    assert clean.task_id == "jump-in-place" and clean.terminations[-1] and len(clean) == 15
    assert clean.infos["sim_state"].shape == (16, SIM_STATE_DIM)
    assert clean.infos["legal"].all() and clean.infos["transition_error"].max() == 0.0
    # without the stored simulator states: rebuilt from the 22 numbers, float32 rounding only
    rebuilt = corrupt(clean, sim, 0, lambda s: None)
    assert rebuilt.infos["transition_error"].max() < 1e-4


@pytest.mark.parametrize("kind, index, legal_value, illegal_value", [
    ("joint_out_of_range", JOINTS.start, 1.05 + 0.35, 1.05 + 0.45),        # bthigh, upper limit 1.05
    ("joint_out_of_range", JOINTS.start + 5, -0.5 - 0.35, -0.5 - 0.45),    # ffoot, lower limit -0.5
    ("too_fast", QVEL.start + 4, 45.0, 55.0),                              # a joint velocity, rad/s
    ("too_fast", QVEL.start, -19.0, -21.0),                                # root x velocity, m/s
    ("too_fast", DX, 0.9, 1.1),                                            # one step's displacement
    ("torso_in_floor", ROOTZ, -0.65, -0.75),
    ("bad_counters", TIME, 0.2, 0.225),                                    # 4 steps, 4.5 steps
    ("non_finite", QVEL.start + 2, 1.0, np.nan),
])
def test_each_illegal_kind_fires_on_its_side_of_the_bound(clean, sim, kind, index, legal_value,
                                                          illegal_value):
    t = 4
    assert corrupt(clean, sim, t, lambda s: s.__setitem__(index, legal_value)).infos["legal"][t]
    bad = corrupt(clean, sim, t, lambda s: s.__setitem__(index, illegal_value))
    assert bad.infos["illegal_mask"][t] == KIND_BIT[kind]
    assert np.flatnonzero(~bad.infos["legal"]).tolist() == [t]


def test_counters_contradicting_x_are_illegal(clean, sim):
    t = 6
    bad = corrupt(clean, sim, t, lambda s: s.__setitem__(X, s[X] + 0.5))  # x beyond the stored peak
    assert bad.infos["illegal_mask"][t] & KIND_BIT["bad_counters"]


def test_non_finite_state_has_infinite_transition_errors(clean, sim):
    t = 5
    bad = corrupt(clean, sim, t, lambda s: s.__setitem__(QVEL.start + 2, np.nan))
    assert np.isinf(bad.infos["transition_error"][[t, t + 1]]).all()
    assert not bad.infos["transition_ok"][[t, t + 1]].any()


@pytest.mark.parametrize("keep_sim_states", [True, False])
def test_teleported_step_is_a_transition_error(clean, sim, keep_sim_states):
    t = 7
    nudged = corrupt(clean, sim, t, lambda s: s.__setitem__(ROOTZ, s[ROOTZ] + 0.01), keep_sim_states)
    assert nudged.infos["transition_ok"][t]                 # 1 cm: within the 2 cm tolerance
    # (re-simulated from the nudged state, the next step also differs: contact is stiff)
    teleported = corrupt(clean, sim, t, lambda s: s.__setitem__(ROOTZ, s[ROOTZ] + 0.1), keep_sim_states)
    assert not teleported.infos["transition_ok"][t]
    assert teleported.infos["transition_error"][t] == pytest.approx(0.1, abs=0.005)
    assert teleported.infos["legal"].all()                  # a legal state, reached illegally


@pytest.mark.parametrize("level, index, steps", [("train", 2, 5), ("train", 3, 5), ("hard", 0, 200)])
def test_expert_solves(sim, level, index, steps):
    episode = expert_episode(HC, level, index, recipe_seed=3, sim=sim)
    assert episode.terminations[-1] and len(episode) <= steps


def test_env_contract():
    env = make_env("halfcheetah", level="hard")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and not info["success"]
    ids = [info["task_id"]] + [env.reset()[1]["task_id"] for _ in range(2)]
    assert ids == [t.id for t in HC.tasks("hard")]
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs) and isinstance(reward, float)
    assert obs["state"][TIME] == pytest.approx(0.05) and not terminated and not truncated
    env.close()


def test_env_truncates_at_200_steps_when_standing_still():
    env = make_env("halfcheetah", level="train", task="run-forward")
    env.reset(seed=1)
    for step in range(1, 201):
        _, _, terminated, truncated, _ = env.step(np.zeros(6, np.float32))
        assert not terminated and truncated == (step == 200)
    env.close()
