"""make_env_and_datasets and FlatObservation: the env's flat observations are the adapter's rows."""

import numpy as np
import pytest
from tiny import TextIds

import imaginebench_data as ib
from imaginebench_data.pipeline.build import build

TRAIN, EASY = "imaginebench/clevr-train-real-v0", "imaginebench/clevr-easy-real-v0"


@pytest.fixture
def clevr(minari_root, tmp_path):
    for dataset_id in (TRAIN, EASY):
        build(dataset_id, episodes=6, workers=1, cards_dir=tmp_path / "cards", progress=False)


def test_the_flat_env_observes_what_the_adapter_stores(clevr):
    encoder = TextIds()
    env, train, level = ib.make_env_and_datasets("clevr-easy", source="real", encoder=encoder)
    width = env.observation_space.shape[0]
    assert train["observations"].shape[1] == level["observations"].shape[1] == width == 11
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    raw = env.unwrapped._obs()
    assert np.array_equal(observation[:10], raw["state"])
    assert observation[10] == encoder.encode([raw["instruction"]])[0, 0]  # the adapter's encoding of it
    first = ib.load(EASY)
    np.testing.assert_array_equal(level["observations"][:, :10], first.observations)
    np.testing.assert_array_equal(level["observations"][:, 10],
                                  encoder.encode(first.instructions)[first.instruction_ids, 0])


def test_plain_env_and_transitions_without_flattening(clevr):
    env, train, level = ib.make_env_and_datasets("clevr-easy", source="real", flat=False)
    assert isinstance(train, ib.Transitions) and train.dataset_id == TRAIN and level.dataset_id == EASY
    assert set(env.reset(seed=0)[0]) == {"state", "instruction"}
    with pytest.raises(ValueError, match="'<domain>-<level>'"):
        ib.make_env_and_datasets("clevr")
