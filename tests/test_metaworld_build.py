"""A tiny build of metaworld-train-real, loaded back the way a user would."""

import minari
import numpy as np

from imaginebench_data.build.pipeline import build


def test_tiny_metaworld_build(minari_root, tmp_path):
    result = build("imaginebench/metaworld-train-real-v0", episodes=4, workers=1,
                   cards_dir=tmp_path / "cards", progress=False)
    card = result.card
    assert card["episodes"] == 4 and card["tasks"] == 4
    assert card["goal_consistency"] == 1.0
    assert card["transition_error_rate"] == 0.0 and card["illegal_state_rate"] == 0.0
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
