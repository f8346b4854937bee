"""Sampler: exact per-source shares, filters, embedding join, dtypes."""

from __future__ import annotations

import string

import gymnasium as gym
import minari
import numpy as np
import pandas as pd
import pytest
import torch
from minari.data_collector import EpisodeBuffer
from tiny import toy_card_of

from imaginebench_data.loader import Sampler, Transitions, get_encoder, leftover_rows

TEXTS = ["Push the red ball to the left.", "Move the blue ball behind the green ball.",
         "Gather all balls around the green ball."]


def make_transitions(name, n, texts=TEXTS, continuous=False, **flags):
    """n rows; observation row i is [source marker, i, 0]; instruction of row i is texts[i % len]."""
    rng = np.random.default_rng(len(name) + n)
    obs = np.stack([np.full(n, len(name)), np.arange(n), np.zeros(n)], 1).astype(np.float32)
    instructions = sorted(set(texts))
    ids = np.asarray([instructions.index(texts[i % len(texts)]) for i in range(n)], dtype=np.int64)
    ones = np.ones(n, bool)
    return Transitions(
        dataset_id=name, observations=obs, next_observations=obs + 1,
        actions=rng.normal(size=(n, 2)).astype(np.float32) if continuous else np.arange(n) % 40,
        rewards=np.arange(n, dtype=np.float32), terminals=np.arange(n) % 7 == 6,
        timeouts=np.zeros(n, bool), episode_ids=np.arange(n) // 7, steps=np.arange(n) % 7,
        instruction_ids=ids, instructions=instructions,
        legal=flags.get("legal", ones), transition_ok=flags.get("transition_ok", ones),
        success=flags.get("success", ones), goal_consistent=flags.get("goal_consistent", ones),
        episodes=pd.DataFrame(), card={},
    )


def test_leftover_rows_keep_whole_shares_and_draw_the_rest_in_proportion():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert leftover_rows([0.5, 0.5], 256, rng).tolist() == [128, 128]
    assert leftover_rows([3, 0], 5, rng).tolist() == [5, 0]
    assert rng.bit_generator.state == state  # whole shares draw nothing: the batches' rows stay as they were
    draws = np.array([leftover_rows([0.2, 0.5, 0.3], 7, rng) for _ in range(4000)])  # 1.4, 3.5, 2.1
    assert (draws.sum(1) == 7).all()
    assert all(set(np.unique(draws[:, k])) <= {low, low + 1} for k, low in enumerate((1, 3, 2)))
    np.testing.assert_allclose(draws.mean(0), [1.4, 3.5, 2.1], atol=0.04)  # about 5 standard errors
    ones = np.array([leftover_rows([1, 1], 1, rng) for _ in range(4000)])
    # found 2026-12-06: every row of a batch of one came from the first dataset
    assert abs(ones[:, 0].mean() - 0.5) < 0.04


def test_exact_shares_and_source_index():
    a, b = make_transitions("real", 50), make_transitions("imaginary", 80)
    sampler = Sampler({a: 1.0, b: 3.0}, encoder=None)
    np.testing.assert_allclose(sampler.ratios, [0.25, 0.75])
    batch = sampler.sample(400, as_numpy=True)
    assert np.bincount(batch["dataset"]).tolist() == [100, 300]
    # rows really come from the source they are labelled with
    np.testing.assert_array_equal(batch["observations"][:, 0], np.where(batch["dataset"] == 0, 4, 9))
    assert "instruction_embeddings" not in batch
    assert sampler.split(256) == {"real": 64, "imaginary": 192}
    assert sampler.split(2) == {"real": 0.5, "imaginary": 1.5}  # a mean over batches
    ones = np.concatenate([sampler.sample(1, as_numpy=True)["dataset"] for _ in range(2000)])
    assert abs(ones.mean() - 0.75) < 0.05  # batches of one follow the ratios too (about 5 standard errors)
    assert sampler.counts == {"real": 50, "imaginary": 80}


@pytest.mark.parametrize("as_numpy", [True, False])
def test_every_column_of_a_mixed_batch_comes_from_the_same_row(as_numpy):
    """Three sources, one storing float64 states (numpy batches promote it, as concatenate
    would): row b of every key is row ``index[b]`` of the source ``dataset[b]`` says."""
    a, b, c = (make_transitions(name, n) for name, n in (("real", 50), ("imaginary", 80), ("oracle-x", 64)))
    c.observations = c.observations.astype(np.float64)
    c.next_observations = c.next_observations.astype(np.float64)
    sources = [a, b, c]
    batch = Sampler({a: 1.0, b: 2.0, c: 1.0}, encoder=None, seed=3).sample(203, as_numpy=as_numpy,
                                                                             with_index=True)
    batch = {key: np.asarray(value) for key, value in batch.items()}
    counts = np.bincount(batch["dataset"], minlength=3)  # shares 50.75, 101.5, 50.75
    assert counts.sum() == 203 and all(low <= n <= low + 1 for n, low in zip(counts, (50, 101, 50)))
    assert batch["observations"].dtype == (np.float64 if as_numpy else np.float32)
    for row, (k, i) in enumerate(zip(batch["dataset"], batch["index"])):
        t = sources[k]
        np.testing.assert_array_equal(batch["observations"][row], t.observations[i])
        np.testing.assert_array_equal(batch["next_observations"][row], t.next_observations[i])
        assert batch["actions"][row] == t.actions[i] and batch["rewards"][row] == t.rewards[i]
        assert batch["terminals"][row] == t.terminals[i] and batch["timeouts"][row] == t.timeouts[i]


def test_filters_exclude_flagged_rows():
    n = 60
    legal = np.arange(n) % 3 != 0  # rows 0, 3, 6, ... illegal
    ok = np.arange(n) < 45
    a = make_transitions("real", n, legal=legal, transition_ok=ok)
    b = make_transitions("imaginary", 30)
    unfiltered = Sampler({a: 1, b: 1}, encoder=None, seed=1).sample(2000, as_numpy=True)
    rows = unfiltered["observations"][unfiltered["dataset"] == 0, 1].astype(int)
    assert (~legal[rows]).sum() > 0  # flagged rows do get drawn without the filter
    sampler = Sampler({a: 1, b: 1}, encoder=None, filters=("legal", "transition_ok"), seed=1)
    assert sampler.counts == {"real": int((legal & ok).sum()), "imaginary": 30}
    assert sampler.counts["real"] == 30
    batch = sampler.sample(2000, as_numpy=True, with_index=True)
    rows = batch["observations"][batch["dataset"] == 0, 1].astype(int)
    np.testing.assert_array_equal(rows, batch["index"][batch["dataset"] == 0])
    assert legal[rows].all() and ok[rows].all()
    assert len(np.unique(rows)) == 30  # uniform over all 30 kept rows


def test_the_clean_preset_keeps_legal_goal_consistent_rows_and_adapters_agree():
    from imaginebench_data.adapters import to_d4rl

    n = 40
    legal, consistent = np.arange(n) % 4 != 0, np.arange(n) < 28
    a = make_transitions("imaginary", n, legal=legal, goal_consistent=consistent)
    sampler = Sampler({a: 1}, encoder=None, filters="clean")
    assert sampler.filters == ("legal", "goal_consistent")
    assert sampler.counts == {"imaginary": int((legal & consistent).sum())} == {"imaginary": 21}
    kept = to_d4rl(a, encoder=None, filters="clean")["observations"][:, 1].astype(int)
    np.testing.assert_array_equal(kept, np.flatnonzero(legal & consistent))
    assert Sampler({a: 1}, encoder=None, filters=("clean", "legal", "success")).filters == (
        "legal", "goal_consistent", "success")  # presets expand, repeats drop


def test_filter_that_empties_a_source():
    a = make_transitions("real", 10, success=np.zeros(10, bool))
    with pytest.raises(ValueError, match=r"filter 'success' leaves dataset 'real'"):
        Sampler({a: 1.0}, encoder=None, filters=("success",))
    with pytest.raises(ValueError, match=r"unknown filter 'legl'.*clean \(legal and goal_consistent\)"):
        Sampler({a: 1.0}, encoder=None, filters=("legl",))


def test_embeddings_joined_from_one_table(tmp_path):
    encoder = get_encoder("minilm")
    a = make_transitions("real", 20, texts=TEXTS[:2])
    b = make_transitions("imaginary", 20, texts=TEXTS[1:])
    sampler = Sampler({a: 0.5, b: 0.5}, encoder="minilm", seed=3, cache_dir=str(tmp_path))
    assert sampler.instructions == sorted(TEXTS)  # shared instruction counted once
    assert sampler.embeddings.shape == (3, 384)
    batch = sampler.sample(64, as_numpy=True, with_index=True)
    datasets = [a, b]
    texts = [datasets[s].instruction_texts[i] for s, i in zip(batch["dataset"], batch["index"])]
    assert len(set(texts)) == 3
    emb = batch["instruction_embeddings"]
    assert emb.shape == (64, 384) and emb.dtype == np.float32
    np.testing.assert_allclose(emb, encoder.encode(texts), atol=1e-6)


def test_torch_dtypes_and_devices():
    a = make_transitions("real", 30)
    batch = Sampler({a: 1.0}, encoder=None).sample(16, device="cpu")
    assert batch["observations"].dtype == torch.float32 and batch["observations"].shape == (16, 3)
    assert batch["next_observations"].dtype == torch.float32
    assert batch["actions"].dtype == torch.long and batch["actions"].shape == (16,)
    for key in ("rewards", "terminals", "timeouts"):
        assert batch[key].dtype == torch.float32 and batch[key].shape == (16,)
    assert batch["dataset"].dtype == torch.long
    c = make_transitions("cont", 30, continuous=True)
    cont = Sampler({c: 1.0}, encoder=None).sample(8)
    assert cont["actions"].dtype == torch.float32 and cont["actions"].shape == (8, 2)
    with pytest.raises(ValueError, match="actions"):
        Sampler({a: 1.0, c: 1.0}, encoder=None)


def test_same_seed_same_batches():
    a, b = make_transitions("real", 40), make_transitions("imaginary", 40)
    x = Sampler({a: 0.3, b: 0.7}, encoder=None, seed=7).sample(33, as_numpy=True)
    y = Sampler({a: 0.3, b: 0.7}, encoder=None, seed=7).sample(33, as_numpy=True)
    for key in x:
        np.testing.assert_array_equal(x[key], y[key])
    assert np.bincount(x["dataset"]).tolist() in ([9, 24], [10, 23])  # 9.9 and 23.1 on average


def test_sources_given_by_id(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    charset = string.ascii_letters + string.digits + " .,;:!?'\"-()/&"
    space = gym.spaces.Dict({"state": gym.spaces.Box(-np.inf, np.inf, (2,), np.float32),
                             "instruction": gym.spaces.Text(400, min_length=1, charset=charset)})
    for k, name in enumerate(["imaginebench/clevr-train-real-v0", "imaginebench/clevr-hard-imaginary-v0"]):
        states = np.full((4, 2), k, np.float32)
        options = {"task_id": "t", "level": name.split("-")[1], "phrasing_id": 0,
                   "source": name.split("-")[2], "instruction": TEXTS[k]}
        buffer = EpisodeBuffer(id=0, seed=0, options=options, observations={
            "state": states, "instruction": [TEXTS[k]] * 4}, actions=np.zeros(3, np.int64),
            rewards=np.zeros(3, np.float32), terminations=np.array([0, 0, 1], bool),
            truncations=np.zeros(3, bool), infos={"legal": np.ones(4, bool)})
        with pytest.warns(UserWarning):
            dataset = minari.create_dataset_from_buffers(name, [buffer], observation_space=space,
                                                         action_space=gym.spaces.Discrete(40),
                                                         data_format="hdf5")
        dataset.storage.update_metadata({"imaginebench_card": toy_card_of(dataset, name)})
    ratios = {"imaginebench/clevr-train-real-v0": 2, "imaginebench/clevr-hard-imaginary-v0": 1}
    sampler = Sampler(ratios, encoder=None, cache_dir=str(tmp_path / "cache"))
    assert sampler.names == ["imaginebench/clevr-train-real-v0", "imaginebench/clevr-hard-imaginary-v0"]
    batch = sampler.sample(9, as_numpy=True)
    np.testing.assert_array_equal(batch["observations"][:, 0], [0] * 6 + [1] * 3)


@pytest.mark.parametrize("datasets, kwargs, error, message", [
    ("imaginebench/clevr-hard-real-v0", {}, TypeError, r"a dict of datasets .* got a str"),
    (["imaginebench/clevr-hard-real-v0"], {}, TypeError, r"got a list"),
    ({"real": "half"}, {}, TypeError, r"the ratio of 'real' must be a number, got 'half'"),
    ({"real": None}, {}, TypeError, r"the ratio of 'real' must be a number, got None"),
    ({"real": True}, {}, TypeError, r"the ratio of 'real' must be a number, got True"),
    ({"real": 1.0}, {"filters": None}, TypeError, r"filters: expected a flag or preset name"),
    ({"real": 1.0}, {"filters": ["legal", 3]}, TypeError, r"filters: expected"),
    ({"real": 1.0}, {"seed": -1}, ValueError, r"seed must be a non-negative integer, got -1"),
])
def test_bad_arguments_are_named_before_any_dataset_is_read(datasets, kwargs, error, message):
    """Found by trying them (2026-12-06): a string gave "malformed dataset id 'i'", a list an
    AttributeError after loading, a ratio of "half" a bare float() error; no dataset is read here
    ("real" stands for Transitions, which these arguments never reach)."""
    if isinstance(datasets, dict):
        datasets = {make_transitions(name, 14): ratio for name, ratio in datasets.items()}
    with pytest.raises(error, match=message):
        Sampler(datasets, encoder=None, **kwargs)


@pytest.mark.parametrize("size", [-5, 2.5, "8", None])
def test_a_batch_size_that_is_not_a_count_is_refused(size):
    sampler = Sampler({make_transitions("real", 14): 1.0}, encoder=None)
    for call in (sampler.sample, sampler.split):
        with pytest.raises(ValueError, match="batch_size must be a non-negative integer"):
            call(size)


def test_a_batch_larger_than_the_memory_available_is_refused_before_it_is_drawn(monkeypatch):
    import types

    import psutil

    monkeypatch.setattr(psutil, "virtual_memory", lambda: types.SimpleNamespace(available=300 << 20))
    sampler = Sampler({make_transitions("real", 30): 1.0}, encoder=None)
    assert sampler.sample(16, as_numpy=True)["observations"].shape == (16, 3)  # small: not checked
    state = sampler.rng.bit_generator.state
    with pytest.raises(MemoryError, match=r"a batch of 10,000,000 rows takes about [\d.]+ GiB \(\d+ bytes a "
                                          r"row\), more than 80% of the 0\.3 GiB of memory available"):
        sampler.sample(10**7)
    assert sampler.rng.bit_generator.state == state  # nothing drawn
