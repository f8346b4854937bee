"""A tiny build of libero-train-real (2 short episodes), loaded back the way a user would."""

import minari
import numpy as np
from tiny import tiny_real_build


def test_tiny_libero_build(minari_root, tmp_path):
    card = tiny_real_build("imaginebench/libero-train-real-v0", 2, tmp_path)
    assert card.tasks == 2
    dataset = minari.load_dataset("imaginebench/libero-train-real-v0")
    episode = next(dataset.iterate_episodes())
    steps = len(episode.actions)
    assert episode.observations["state"].shape == (steps + 1, 44)
    assert episode.infos["sim_state"].shape == (steps + 1, 300)
    assert np.all(np.abs(episode.actions) <= 1.0)
    env = dataset.recover_environment(eval_env=True)
    assert env.unwrapped.level == "train" and env.spec.id == "imaginebench/Libero-v0"
    env.close()
