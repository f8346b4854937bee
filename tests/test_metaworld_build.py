"""A tiny build of metaworld-train-real, loaded back the way a user would."""

import minari
import numpy as np
from tiny import tiny_real_build


def test_tiny_metaworld_build(minari_root, tmp_path):
    card = tiny_real_build("imaginebench/metaworld-train-real-v0", 4, tmp_path)
    assert card.tasks == 4
    dataset = minari.load_dataset("imaginebench/metaworld-train-real-v0")
    episode = next(dataset.iterate_episodes())
    steps = len(episode.actions)
    assert episode.observations["state"].shape == (steps + 1, 91)
    assert episode.infos["sim_state"].shape[0] == steps + 1
    assert np.all(np.abs(episode.actions) <= 1.0)
    env = dataset.recover_environment(eval_env=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.unwrapped.level == "train"
    env.close()
