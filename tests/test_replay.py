"""Stored actions replayed in the real simulator (``quality/replay.py``, ``inspect --replay``)."""

from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.data import read_episodes
from imaginebench_data.pipeline.build import build
from imaginebench_data.quality.replay import (
    StartMismatchError,
    replay_reaches_goal,
    replayed,
    replayed_dataset,
)

CLEVR, BABYAI = get_domain("clevr"), get_domain("babyai")
EASY, BABYAI_TRAIN = "imaginebench/clevr-easy-real-v0", "imaginebench/babyai-train-real-v0"


def episodes(dataset_id: str, domain) -> list:
    return read_episodes(dataset_id)[0]


@pytest.fixture
def built(minari_root, tmp_path):
    build(EASY, episodes=12, workers=1, cards_dir=tmp_path, progress=False)
    build(BABYAI_TRAIN, episodes=12, workers=1, cards_dir=tmp_path, progress=False)


def test_expert_actions_reach_their_goal_where_they_were_stored_as_reaching_it(built):
    for dataset_id, domain in ((EASY, CLEVR), (BABYAI_TRAIN, BABYAI)):
        stored = episodes(dataset_id, domain)
        reached = [bool(e.terminations[-1]) for e in stored]
        assert replayed(domain, stored).tolist() == reached
        assert sum(reached) >= 10  # the experts reach nearly every goal
    assert replayed_dataset(EASY).tolist() == replayed(CLEVR, episodes(EASY, CLEVR)).tolist()


def test_states_that_claim_the_goal_with_actions_that_do_not_reach_it_fail_the_replay(built):
    stored = episodes(EASY, CLEVR)
    assert all(replayed(CLEVR, stored))
    # the same states (still goal consistent), each push given to the next ball: the instructed one stays
    pushed_elsewhere = [replace(e, actions=(e.actions + 8) % 40) for e in stored]
    assert not any(replayed(CLEVR, pushed_elsewhere))
    # the push in the opposite direction (+x, +y, -x, -y, +x+y, -x+y, +x-y, -x-y: the domain's order)
    opposite = np.array([2, 3, 0, 1, 7, 6, 5, 4])
    reversed_ = [replace(e, actions=(e.actions // 8) * 8 + opposite[e.actions % 8]) for e in stored]
    assert not any(replayed(CLEVR, reversed_))
    keys = [replace(e, actions=np.zeros_like(e.actions)) for e in episodes(BABYAI_TRAIN, BABYAI)]
    assert sum(replayed(BABYAI, keys)) <= 1  # turning left in place reaches no goal (but a start beside it)


def test_an_episode_that_did_not_start_from_its_seeds_reset_is_refused_in_one_line(built):
    episode = episodes(EASY, CLEVR)[3]
    moved = replace(episode, states=episode.states.copy())
    moved.states[0, 0] += 0.01
    expected = (rf"task {episode.task_id!r} with seed {episode.seed}: expected its first state to be the "
                r"reset its seed draws, found it 0\.01")
    with pytest.raises(StartMismatchError, match=expected):
        replay_reaches_goal(CLEVR, CLEVR.simulator(), moved)


def test_inspect_replay_adds_the_column_and_its_share(built):
    result = CliRunner().invoke(app, ["inspect", EASY, "--replay"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "actions_replayed" in result.output
    assert "12 episodes, goal consistency 100.00%" in result.output
    assert result.output.rstrip().endswith("actions replayed reach the goal 100.00%")
    plain = CliRunner().invoke(app, ["inspect", EASY], env={"COLUMNS": "200"})
    assert "actions_replayed" not in plain.output and "replayed" not in plain.output


@pytest.mark.parametrize("domain_name", ["metaworld", "halfcheetah"])
def test_rebuilt_scenes_replay_their_expert_and_not_its_negated_actions(minari_root, tmp_path, domain_name):
    """MuJoCo scenes reset from the episode's seed: the expert's torques reach the goal again,
    the same torques negated reach none (the states, and so the goal consistency, unchanged)."""
    dataset_id, domain = f"imaginebench/{domain_name}-train-real-v0", get_domain(domain_name)
    build(dataset_id, episodes=4, workers=1, cards_dir=tmp_path, progress=False)
    stored = episodes(dataset_id, domain)
    assert [e.task_id for e in stored] == [t.id for t in domain.tasks("train")][:4]
    assert replayed(domain, stored).tolist() == [bool(e.terminations[-1]) for e in stored] == [True] * 4
    assert not any(replayed(domain, [replace(e, actions=-e.actions) for e in stored]))
