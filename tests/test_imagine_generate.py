"""Generation: stopping on the predicate, alignment, cache = naive = unbatched, bad output kept."""

import numpy as np
import pandas as pd
import pytest
from imagine_helpers import CLEVR, set_heads, tiny_model

from imaginebench_data.core.text import observation_space
from imaginebench_data.datasets.validate import validate_episode
from imaginebench_data.imagine.generate import Prompt, imagine, imagine_batch
from imaginebench_data.pipeline.rollout import episode_start, rollout_episode
from imaginebench_data.quality.checkers import INFO_KEYS, annotate


@pytest.fixture(scope="module")
def sim():
    return CLEVR.simulator()


def no_sentence(text):
    return None


def start_for(level, index, sim, seed=5):
    start = episode_start(CLEVR, level, index, seed, sim)
    return start, Prompt(start.task, start.instruction, start.state)


def test_rollout_stops_at_the_first_transition_that_reaches_the_goal(sim):
    start, prompt = start_for("train", 0, sim)  # red behind blue
    goal = np.array(start.state)
    goal[0:2] = goal[2:4] + np.array([0.0, 0.3])  # red 0.3 m behind (+y of) blue
    delta = (goal - start.state) / 10
    model = tiny_model()
    set_heads(model, action=3, delta=delta)
    [rollout] = imagine_batch(model, [prompt], no_sentence)
    path = start.state + np.arange(11)[:, None] * delta
    reached = np.flatnonzero(start.task.success(path[:-1], np.full(10, 3), path[1:]))
    assert len(reached) and rollout.success
    steps = reached[0] + 1
    assert len(rollout.actions) == steps and rollout.states.shape == (steps + 1, 10)
    np.testing.assert_allclose(rollout.states, path[: steps + 1], atol=1e-5)
    assert (rollout.actions == 3).all()


def test_nothing_moving_runs_to_the_time_limit(sim):
    model = tiny_model()
    set_heads(model, action=0, delta=np.zeros(10))
    prompts = [start_for("train", 1, sim)[1], start_for("easy", 2, sim)[1]]
    rollouts = imagine_batch(model, prompts, no_sentence)
    assert [len(r.actions) for r in rollouts] == [50, 1]  # train horizon 50, easy horizon 1
    assert not any(r.success for r in rollouts)
    np.testing.assert_allclose(rollouts[0].states, np.repeat(prompts[0].start[None], 51, 0))


def test_cached_equals_naive_and_batching_changes_nothing(sim):
    model = tiny_model(seed=3)
    prompts = [start_for(level, i, sim)[1] for level in ("train", "easy", "hard") for i in range(3)]
    cached = imagine_batch(model, prompts, no_sentence, cache=True)
    naive = imagine_batch(model, prompts, no_sentence, cache=False)
    alone = [r for p in prompts[:4] for r in imagine_batch(model, [p], no_sentence)]
    assert len({len(model.tokenizer(p.instruction).input_ids) for p in prompts}) > 1  # padding is exercised
    for a, b in zip(cached, naive):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_allclose(a.states, b.states, atol=1e-4)
    for a, b in zip(cached[:4], alone):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_allclose(a.states, b.states, atol=1e-4)
    in_chunks = list(imagine(model, prompts, no_sentence, batch_size=4))
    assert [len(r.actions) for r in in_chunks] == [len(r.actions) for r in cached]


def test_non_finite_output_is_kept_flagged_and_writable(sim):
    model = tiny_model()
    set_heads(model, action=1, delta=np.full(10, np.nan))
    start, prompt = start_for("hard", 0, sim)
    [rollout] = imagine_batch(model, [prompt], no_sentence)
    assert len(rollout.actions) == start.task.horizon and not rollout.success
    assert np.isnan(rollout.states[1:]).all()
    episode = annotate(CLEVR, rollout_episode(CLEVR, start, rollout.states, rollout.actions,
                                              source="imaginary"), sim)
    assert episode.truncations[-1] and (episode.rewards == 0).all()
    assert (~episode.infos["legal"][1:]).all() and episode.infos["legal"][0]
    non_finite_bit = 1 << CLEVR.illegal_kinds.index("non_finite")
    assert (episode.infos["illegal_mask"][1:] & non_finite_bit).all()
    validate_episode(0, episode, observation_space(CLEVR.state_space), CLEVR.action_space, INFO_KEYS)


def test_continuous_actions_are_executed_as_the_simulator_would():
    import gymnasium as gym

    from imaginebench_data.pipeline.generators import executed_actions

    space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    actions = np.array([[0.5, -0.5], [1.2, 0.0], [np.nan, 0.3], [-3.0, 1.0]], np.float32)
    executed, outside = executed_actions(space, actions)
    assert outside == 3
    np.testing.assert_array_equal(executed, np.float32([[0.5, -0.5], [1.0, 0.0], [0.0, 0.3], [-1.0, 1.0]]))
    assert all(space.contains(a) for a in executed)
    discrete = np.array([3, 7])
    assert executed_actions(gym.spaces.Discrete(40), discrete) == (discrete, 0)


def test_the_correction_is_fed_back_and_each_raw_prediction_checked(sim):
    from imaginebench_data.domains.clevr import checks
    from imaginebench_data.domains.clevr.decode import project_onto_table
    from imaginebench_data.quality.frame import episode_row
    from imaginebench_data.quality.stats import raw_summary

    start, prompt = start_for("train", 0, sim)
    delta = np.zeros(10)
    delta[0] = 0.3  # red 30 cm towards +x a step: through the wall within a few steps
    model = tiny_model()
    set_heads(model, action=0, delta=delta)
    [plain] = imagine_batch(model, [prompt], no_sentence)
    [rollout] = imagine_batch(model, [prompt], no_sentence, decode=CLEVR.decode_state)
    np.testing.assert_array_equal(plain.raw_states, plain.states)  # nothing corrected without a decoding
    # each raw prediction is the model's step from the corrected state, and is what got corrected
    np.testing.assert_allclose(rollout.raw_states[1:], rollout.states[:-1] + delta, atol=1e-5)
    np.testing.assert_array_equal(rollout.states[1:], project_onto_table(None, rollout.raw_states[1:]))
    raw_illegal = checks.illegal(rollout.raw_states).any(axis=1)
    assert raw_illegal.sum() >= 3 and not checks.illegal(rollout.states).any()

    episode = rollout_episode(CLEVR, start, rollout.states, rollout.actions, source="imaginary")
    episode.raw_states = rollout.raw_states
    annotate(CLEVR, episode, sim)
    infos, raw = episode.infos, episode.raw_infos
    assert infos["legal"].all()
    np.testing.assert_array_equal(~raw["legal"], raw_illegal)
    for t, action in enumerate(episode.actions):  # both from the simulator's one step per transition
        stepped = sim.resimulate(start.task, episode.states[t], action, None)[None]
        assert raw["transition_error"][t + 1] == pytest.approx(
            checks.transition_distance(stepped, rollout.raw_states[t + 1][None])[0], abs=1e-6)
        assert infos["transition_error"][t + 1] == pytest.approx(
            checks.transition_distance(stepped, episode.states[t + 1][None])[0], abs=1e-6)
    row = episode_row(CLEVR, episode.metadata, episode.rewards, infos, raw)
    assert row["illegal_states"] == 0 and row["raw_illegal_states"] == int(raw_illegal.sum())
    assert row["raw_transition_errors"] == int((~raw["transition_ok"][1:]).sum())
    summary = raw_summary(pd.DataFrame([row, row]), CLEVR.illegal_kinds)
    assert summary["illegal_state_rate"] == pytest.approx(raw_illegal.mean())
    assert summary["illegal_by_kind"]["off_table"] > 0 and summary["goal_consistency"] == row["raw_success"]
    assert raw_summary(pd.DataFrame([episode_row(CLEVR, episode.metadata, episode.rewards, infos)]),
                       CLEVR.illegal_kinds) is None
