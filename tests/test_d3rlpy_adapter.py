"""d3rlpy (its own environment, see the README): our MDPDataset keeps every observation on its
own step, where d3rlpy's ``get_minari`` shifts each episode by one more step."""

import gymnasium as gym
import minari
import numpy as np
import pytest

d3rlpy = pytest.importorskip("d3rlpy")

from minari.data_collector import EpisodeBuffer  # noqa: E402
from test_loader import write_dataset  # noqa: E402

from imaginebench_data.adapters.d3rlpy import to_d3rlpy  # noqa: E402
from imaginebench_data.loader import load  # noqa: E402
from imaginebench_data.pipeline.build import build  # noqa: E402

TRAIN = "imaginebench/clevr-train-real-v0"


class Lengths:
    name, dim = "lengths", 2

    def encode(self, texts):
        return np.array([[len(t), 1.0] for t in texts], np.float32)


def test_our_episodes_keep_each_observation_on_its_step(minari_root, tmp_path):
    build(TRAIN, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    dataset = to_d3rlpy(TRAIN, encoder=Lengths())
    ours = list(minari.load_dataset(TRAIN).iterate_episodes())
    assert len(dataset.episodes) == len(ours) == 8
    for theirs, episode in zip(dataset.episodes, ours):
        np.testing.assert_array_equal(theirs.observations[:, :10], episode.observations["state"][:-1])
        np.testing.assert_array_equal(theirs.actions[:, 0], episode.actions)
        np.testing.assert_array_equal(theirs.rewards[:, 0], episode.rewards)
        assert bool(theirs.terminated) == bool(episode.terminations[-1])
    with pytest.raises(ValueError):  # get_minari takes only Box observations
        d3rlpy.datasets.get_minari(TRAIN)
    cql = d3rlpy.algos.DiscreteCQLConfig(batch_size=16).create(device="cpu:0")
    cql.fit(dataset, n_steps=20, n_steps_per_epoch=20, show_progress=False,
            logger_adapter=d3rlpy.logging.NoopAdapterFactory())
    chosen = cql.predict(dataset.episodes[0].observations[:4])
    assert chosen.shape == (4,) and ((0 <= chosen) & (chosen < 40)).all()


def test_every_transition_reaches_d3rlpy_truncated_episodes_included(minari_root):
    """A truncated episode's last transition, and a truncated episode of one step, are trained on
    (d3rlpy counts a timeout episode's rows less one as its transitions)."""
    episodes = [(1, False, "Push the red ball."), (3, True, "Move the blue ball."),
                (2, False, "Push the red ball."), (1, True, "Get the green ball.")]
    write_dataset(TRAIN, episodes)
    rows = load(TRAIN)
    dataset = to_d3rlpy(rows, encoder=None)
    picker = d3rlpy.dataset.BasicTransitionPicker()
    picked = [picker(episode, i) for episode in dataset.episodes for i in range(episode.transition_count)]
    assert len(dataset.episodes) == 4
    assert dataset.transition_count == len(picked) == len(rows) == 7
    np.testing.assert_array_equal([p.observation for p in picked], rows.observations)
    np.testing.assert_array_equal([p.action[0] for p in picked], rows.actions)
    np.testing.assert_array_equal([p.reward[0] for p in picked], rows.rewards)
    np.testing.assert_array_equal([bool(p.terminal) for p in picked], rows.terminals)
    going_on = ~rows.terminals  # a terminal transition's next observation is d3rlpy's zeros
    np.testing.assert_array_equal(np.array([p.next_observation for p in picked])[going_on],
                                  rows.next_observations[going_on])
    drawn = {tuple(dataset.sample_transition().observation[:2]) for _ in range(400)}
    assert drawn == {tuple(row) for row in rows.observations[:, :2]}


def test_d3rlpy_get_minari_shifts_every_later_episode(minari_root):
    """A Box dataset whose observation is (episode, step): d3rlpy's loader misaligns it."""
    buffers = []
    for e in range(3):
        obs = np.array([[e, t, 0, 0] for t in range(6)], np.float32)  # T+1 = 6 observations
        flags = np.zeros(5, bool)
        buffers.append(EpisodeBuffer(id=e, observations=obs, actions=np.zeros(5, np.int64),
                                     rewards=np.zeros(5), terminations=flags.copy(),
                                     truncations=np.r_[flags[:-1], True], infos={}))
    minari.create_dataset_from_buffers("toy/aligned-v0", buffers, env="CartPole-v1",
                                       action_space=gym.spaces.Discrete(2),
                                       observation_space=gym.spaces.Box(-10, 10, (4,), np.float32))
    dataset, _ = d3rlpy.datasets.get_minari("toy/aligned-v0")
    second = dataset.episodes[1].observations[:, :2]
    assert second[0].tolist() != [1, 0]  # it should be episode 1's first observation, (1, 0)
    assert second[0].tolist() == [0, 5]  # but it is episode 0's last one
