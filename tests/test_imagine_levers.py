"""Grounding's opt-in levers: state columns the model never sees, short sequences batched apart."""

import json

import numpy as np
import torch
from imagine_helpers import tiny_config, tiny_model

from imaginebench_data.imagine.config import GroundingConfig
from imaginebench_data.imagine.train import SHORT, TrainSettings, epoch_batches


def test_hidden_columns_do_not_change_what_the_model_sees():
    model = tiny_model(hidden_columns=[7, 9])
    states = torch.randn(4, 10, generator=torch.Generator().manual_seed(0))
    changed = states.clone()
    changed[:, [7, 9]] += 5.0
    assert torch.equal(model.embed_states(states), model.embed_states(changed))
    changed[:, 8] += 1.0  # a column it does see
    assert not torch.allclose(model.embed_states(states), model.embed_states(changed))


def test_hidden_columns_are_seen_as_their_mean():
    model = tiny_model(hidden_columns=[2])
    plain = tiny_model()  # the same weights (same seed), every column seen
    states = torch.randn(3, 10, generator=torch.Generator().manual_seed(1))
    at_mean = states.clone()
    at_mean[:, 2] = model.state_mean[2]
    assert torch.equal(model.embed_states(states), plain.embed_states(at_mean))
    assert not torch.allclose(plain.embed_states(states), plain.embed_states(at_mean))


def test_config_file_names_hidden_columns_only_where_there_are_some(tmp_path):
    tiny_config().save(tmp_path / "plain.json")
    assert "hidden_columns" not in json.loads((tmp_path / "plain.json").read_text())
    assert GroundingConfig.load(tmp_path / "plain.json").hidden_columns == []
    tiny_config(hidden_columns=[3, 4]).save(tmp_path / "hidden.json")
    assert GroundingConfig.load(tmp_path / "hidden.json").hidden_columns == [3, 4]


def test_opt_in_levers_leave_the_checkpoint_key_of_before():
    # the key names the checkpoint folders that committed cards cite: off, the levers are not in it
    before = {"epochs", "batch_size", "lr", "weight_decay", "warmup_steps", "dynamics_per_episode", "seed",
              "precision"}
    assert set(TrainSettings().key()) == before
    assert TrainSettings(hide_history=True).key()["hide_history"] is True
    assert set(TrainSettings(short_apart=True).key()) == before | {"short_apart"}


def test_short_apart_batches_short_and_long_sequences_apart():
    lengths = [10, 300, 12, 40, 41, 500, 8, 9, 200, 15]
    order = np.random.default_rng(0).permutation(len(lengths))
    plain = epoch_batches(lengths, order, 3, False, np.random.default_rng(1))
    assert plain == [list(order[k : k + 3]) for k in range(0, 10, 3)]  # as before: the order, chunked
    batches = epoch_batches(lengths, order, 3, True, np.random.default_rng(1))
    assert sorted(i for b in batches for i in b) == list(range(10))  # every sequence once
    for batch in batches:
        short = [lengths[i] <= SHORT for i in batch]
        assert all(short) or not any(short)
    assert sum(1 for b in batches if lengths[b[0]] <= SHORT) == 2  # 6 short in batches of 3
