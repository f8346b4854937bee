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


@pytest.mark.parametrize("name, source, error, shown", [
    (None, "imaginary", ValueError, "expected a name '<domain>-<level>'"),
    ("clevr-medium", "imaginary", ValueError, "unknown level 'medium' in 'clevr-medium': expected one of "),
    ("clevr-hard", "oracle", ValueError, "source 'oracle' for level 'hard': expected one of real, imaginary"),
    ("clevr-train", "imaginary", ValueError, "source 'imaginary' for level 'train': expected one of real "),
    ("clever-hard", "imaginary", KeyError, "unknown domain 'clever'.*did you mean 'clevr'"),
])
def test_a_wrong_name_or_source_is_named_as_given(minari_root, name, source, error, shown):
    """Found 2026-12-06: these named an id the user never wrote ('...-medium-imaginary-v0') or
    said the train level's imaginary set was not built, as if one could be."""
    with pytest.raises(error, match=shown):
        ib.make_env_and_datasets(name, source=source, encoder=None)


def test_flat_observation_wants_the_dict_observation_and_the_env_can_draw(clevr):
    import gymnasium as gym

    with pytest.raises(TypeError, match=r"Dict\(state, instruction\).*got Box"):
        ib.FlatObservation(gym.make("CartPole-v1"), encoder=None)
    env, _, _ = ib.make_env_and_datasets("clevr-easy", source="real", encoder=None, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8 and frame.std() > 0
