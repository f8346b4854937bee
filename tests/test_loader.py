"""load(): alignment of the flat arrays, the on-disk cache, and unknown ids."""

from __future__ import annotations

import shutil
import string

import gymnasium as gym
import h5py
import minari
import numpy as np
import pytest
from minari.data_collector import EpisodeBuffer
from tiny import toy_card_of

from imaginebench_data.datasets.ids import DatasetId
from imaginebench_data.datasets.read import read_card
from imaginebench_data.loader import DatasetNotFoundError, Transitions, load
from imaginebench_data.loader.transitions import DatasetChangedError

CHARSET = string.ascii_letters + string.digits + " .,;:!?'\"-()/&"
D = 4
# (length, terminated, instruction) per episode; the others end truncated.
EPISODES = [(3, True, "Push the red ball."), (5, False, "Move the blue ball."),
            (1, True, "Push the red ball."), (4, False, "Get the green ball.")]


def write_dataset(dataset_id, episodes=EPISODES, card=True, reward_offset=0.0, legal_false=(),
                  transition_bad=()):
    """A Minari dataset whose state at step t of episode e is [e, t, 100 e + t, 0].

    ``legal_false``/``transition_bad``: (episode, info index) pairs set False in the infos.
    Terminated episodes have ``infos["success"][T]`` True; actions are ``10 e + t``.
    """
    obs_space = gym.spaces.Dict({
        "state": gym.spaces.Box(-np.inf, np.inf, (D,), np.float32),
        "instruction": gym.spaces.Text(max_length=400, min_length=1, charset=CHARSET),
    })
    buffers = []
    for e, (length, terminated, text) in enumerate(episodes):
        t = np.arange(length + 1)
        states = np.stack([np.full(length + 1, e), t, 100 * e + t, 0 * t], 1).astype(np.float32)
        legal = np.ones(length + 1, bool)
        ok = np.ones(length + 1, bool)
        legal[[i for ep, i in legal_false if ep == e]] = False
        ok[[i for ep, i in transition_bad if ep == e]] = False
        success = np.zeros(length + 1, bool)
        success[length] = terminated
        buffers.append(EpisodeBuffer(
            id=e, seed=1000 + e,
            options={"task_id": f"task-{e}", "level": "train", "phrasing_id": e % 2, "source": "real",
                     "instruction": text},
            observations={"state": states, "instruction": [text] * (length + 1)},
            actions=(10 * e + t[:-1]).astype(np.int64),
            rewards=(e + t[:-1] / 10 + reward_offset).astype(np.float32),
            terminations=np.arange(length) == length - 1 if terminated else np.zeros(length, bool),
            truncations=np.zeros(length, bool) if terminated else np.arange(length) == length - 1,
            infos={"success": success, "legal": legal, "illegal_mask": (~legal).astype(np.int32),
                   "transition_error": np.zeros(length + 1, np.float32), "transition_ok": ok},
        ))
    with pytest.warns(UserWarning):  # Minari's reminders about authors, permalinks, ...
        ds = minari.create_dataset_from_buffers(dataset_id, buffers, observation_space=obs_space,
                                                action_space=gym.spaces.Discrete(40), data_format="hdf5")
    if card:  # a card with the checksum the arrays really hash to
        ds.storage.update_metadata({"imaginebench_card": toy_card_of(ds, dataset_id)})
    return ds


@pytest.fixture
def datasets(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    monkeypatch.setenv("IMAGINEBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path




def test_alignment(datasets):
    write_dataset("imaginebench/clevr-train-real-v0", legal_false=[(1, 2)], transition_bad=[(3, 2)])
    tr = load("imaginebench/clevr-train-real-v0")
    assert isinstance(tr, Transitions)
    lengths = [length for length, _, _ in EPISODES]
    assert len(tr) == sum(lengths) == 13
    assert tr.observations.shape == tr.next_observations.shape == (13, D)
    assert tr.observations.dtype == np.float32 and tr.actions.dtype == np.int64
    e, t = tr.episode_ids, tr.steps
    np.testing.assert_array_equal(e, np.repeat(np.arange(4), lengths))
    np.testing.assert_array_equal(t, np.concatenate([np.arange(n) for n in lengths]))
    np.testing.assert_array_equal(tr.observations[:, 0], e)
    np.testing.assert_array_equal(tr.observations[:, 1], t)
    np.testing.assert_array_equal(tr.next_observations[:, 0], e)
    np.testing.assert_array_equal(tr.next_observations[:, 1], t + 1)
    np.testing.assert_array_equal(tr.next_observations[:, 2], 100 * e + t + 1)
    np.testing.assert_array_equal(tr.actions, 10 * e + t)
    np.testing.assert_allclose(tr.rewards, e + t / 10, rtol=1e-6)
    last = t == np.array(lengths)[e] - 1
    terminated = np.array([term for _, term, _ in EPISODES])[e]
    np.testing.assert_array_equal(tr.terminals, last & terminated)
    np.testing.assert_array_equal(tr.timeouts, last & ~terminated)
    assert tr.terminals.sum() == 2 and tr.timeouts.sum() == 2
    # The final state of an episode is never an observation, only a next observation.
    final = {(ep, n) for ep, n in enumerate(lengths)}
    assert not final & {tuple(row) for row in tr.observations[:, :2].astype(int).tolist()}
    assert final <= {tuple(row) for row in tr.next_observations[:, :2].astype(int).tolist()}


def test_instructions_flags_and_episodes(datasets):
    write_dataset("imaginebench/clevr-train-real-v0", legal_false=[(1, 2)], transition_bad=[(3, 2)])
    tr = load("imaginebench/clevr-train-real-v0")
    assert tr.instructions == ["Get the green ball.", "Move the blue ball.", "Push the red ball."]
    expected = np.array([EPISODES[ep][2] for ep in tr.episode_ids])
    np.testing.assert_array_equal(np.asarray(tr.instructions)[tr.instruction_ids], expected)
    np.testing.assert_array_equal(tr.instruction_texts, expected)
    # state 2 of episode 1 illegal -> its transitions at steps 1 and 2 are flagged.
    np.testing.assert_array_equal(np.flatnonzero(~tr.legal), np.flatnonzero((tr.episode_ids == 1) &
                                                                            np.isin(tr.steps, [1, 2])))
    # infos transition_ok[2] of episode 3 describes its transition at step 1.
    np.testing.assert_array_equal(np.flatnonzero(~tr.transition_ok),
                                  np.flatnonzero((tr.episode_ids == 3) & (tr.steps == 1)))
    np.testing.assert_array_equal(tr.success, tr.terminals)
    np.testing.assert_array_equal(tr.goal_consistent, np.isin(tr.episode_ids, [0, 2]))
    ep = tr.episodes
    assert list(ep.columns) == ["episode_id", "task_id", "level", "phrasing_id", "source", "seed",
                                "length", "return"]
    assert ep["episode_id"].tolist() == [0, 1, 2, 3]
    assert ep["task_id"].tolist() == ["task-0", "task-1", "task-2", "task-3"]
    assert ep["seed"].tolist() == [1000, 1001, 1002, 1003]
    assert ep["phrasing_id"].tolist() == [0, 1, 0, 1]
    assert ep["length"].tolist() == [3, 5, 1, 4]
    np.testing.assert_allclose(ep["return"], [0.3, 6.0, 2.0, 12.6], rtol=1e-5)
    assert tr.card == read_card("imaginebench/clevr-train-real-v0")
    assert tr.dataset_id == "imaginebench/clevr-train-real-v0"


def test_cache_skips_minari_and_checksum_invalidates(datasets, monkeypatch):
    write_dataset("imaginebench/clevr-train-real-v0")
    first = load("imaginebench/clevr-train-real-v0")
    assert len(list((datasets / "cache").glob("*.ibcache"))) == 1

    def fail(*args, **kwargs):
        raise RuntimeError("minari.MinariDataset called")

    monkeypatch.setattr(minari, "MinariDataset", fail)
    second = load("imaginebench/clevr-train-real-v0")
    for name in ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts",
                 "episode_ids", "steps", "instruction_ids", "legal", "transition_ok", "success",
                 "goal_consistent"):
        a, b = getattr(first, name), getattr(second, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert second.instructions == first.instructions and second.card == first.card
    assert second.episodes.equals(first.episodes)

    # New data under a new checksum: the cache no longer matches, so Minari is read again.
    shutil.rmtree(datasets / "minari" / "imaginebench" / "clevr-train-real-v0")
    monkeypatch.undo()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets / "minari"))
    monkeypatch.setenv("IMAGINEBENCH_CACHE", str(datasets / "cache"))
    write_dataset("imaginebench/clevr-train-real-v0", reward_offset=5.0)  # other arrays: another checksum
    monkeypatch.setattr(minari, "MinariDataset", fail)
    with pytest.raises(RuntimeError, match="MinariDataset called"):
        load("imaginebench/clevr-train-real-v0")
    monkeypatch.undo()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets / "minari"))
    third = load("imaginebench/clevr-train-real-v0", cache_dir=datasets / "cache")
    np.testing.assert_allclose(third.rewards, first.rewards + 5.0, rtol=1e-6)
    assert len(list((datasets / "cache").glob("*.ibcache"))) == 2


def test_a_dataset_without_a_card_is_refused_by_name(datasets):
    write_dataset("imaginebench/nocard-train-real-v0", card=False)
    with pytest.raises(DatasetNotFoundError, match="nocard-train-real-v0.*not written by imaginebench-data"):
        load("imaginebench/nocard-train-real-v0", cache_dir=datasets / "other")
    assert not (datasets / "other").exists()


def test_a_not_found_error_names_at_most_a_dozen_local_datasets_of_the_domain_asked_for(monkeypatch):
    """Found 2026-12-06: the line named every local dataset (35 with the demo sets built)."""
    from imaginebench_data.datasets import read

    levels = ("train", "rephrase", "easy", "hard")
    many = ([f"imaginebench/{d}-{level}-real-v0" for d in ("babyai", "clevr") for level in levels]
            + [f"imaginebench/metaworld-train-real-v{v}" for v in range(14)])
    monkeypatch.setattr(read, "local_ids", lambda prefix="": many)
    clevr = read._local_like(DatasetId.parse("imaginebench/clevr-easy-real-v3"))
    assert clevr == ("Local imaginebench clevr datasets: " + ", ".join(many[4:8]))
    metaworld = read._local_like(DatasetId.parse("imaginebench/metaworld-easy-real-v0"))
    assert metaworld.endswith("metaworld-train-real-v11 and 2 more (`imaginebench list` shows them)")
    assert read._local_like(DatasetId.parse("imaginebench/libero-easy-real-v0")) == (
        "No local imaginebench libero datasets (22 of other domains: `imaginebench list` shows them)")


def test_unknown_id(datasets):
    write_dataset("imaginebench/clevr-train-real-v0")
    with pytest.raises(DatasetNotFoundError) as info:
        load("imaginebench/nope-easy-real-v0")
    message = str(info.value)
    assert "imaginebench/nope-easy-real-v0" in message
    assert "imaginebench/clevr-train-real-v0" in message  # what is available
    assert str(datasets / "minari") in message  # where it looked
    assert isinstance(info.value, KeyError)


TOY = "imaginebench/clevr-train-real-v0"


def _edit_rewards(datasets, value: float) -> None:
    """Change one stored reward behind Minari's back (the card keeps the old checksum)."""
    import h5py

    with h5py.File(datasets / "minari" / TOY / "data" / "main_data.hdf5", "r+") as f:
        f["episode_0"]["rewards"][0] = value


def test_changed_data_is_neither_served_nor_cached_and_a_clean_copy_loads_again(datasets):
    write_dataset(TOY)
    clean = load(TOY, cache_dir=datasets / "fresh")  # to compare with later
    original = float(clean.rewards[0])
    _edit_rewards(datasets, 99.0)
    with pytest.raises(DatasetChangedError, match=r"hash to .* its card says .*changed after it was written"):
        load(TOY)
    cached = list((datasets / "cache").glob("*")) if (datasets / "cache").exists() else []
    assert cached == []  # nothing was cached under the clean data's checksum
    _edit_rewards(datasets, original)  # the clean data again (as a rebuild writes it)
    again = load(TOY)
    np.testing.assert_array_equal(again.rewards, clean.rewards)


def test_data_is_cached_under_the_checksum_it_was_checked_against(datasets, monkeypatch):
    """A rebuild between ``load``'s first look at the card and its read of the data: what it read
    and checked (the new data) is cached under the new checksum, not the old one's key, where a
    reader of a card still naming the old checksum would be served it (found 2026-12-07)."""
    from dataclasses import replace

    from imaginebench_data.loader import cache, transitions

    write_dataset(TOY)
    card = read_card(TOY)
    before_rebuild = replace(card, checksum="0" * 64)  # the card as it was just before
    monkeypatch.setattr(transitions, "read_card", lambda dataset_id: before_rebuild)
    load(TOY, cache_dir=datasets / "raced")
    names = [path.name for path in (datasets / "raced").glob("*.ibcache")]
    toy = DatasetId.parse(TOY)
    assert names == [f"{toy.namespace}_{toy.name}-{cache.cache_key(card.checksum)}.ibcache"]


@pytest.mark.parametrize("damage", ["truncate", "flip-data", "flip-header", "extend", "magic"])
def test_a_damaged_cache_entry_is_rebuilt(datasets, damage):
    write_dataset(TOY)
    first = load(TOY)
    entry = next((datasets / "cache").glob("*.ibcache"))
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[:100]
    elif damage == "flip-data":
        data[-20] ^= 0xFF  # inside the last array
    elif damage == "flip-header":
        position = data.index(b"Push the red ball.")  # an instruction, still valid JSON after the flip
        data[position] ^= 0x20
    elif damage == "extend":
        data += b"\0"
    else:
        data[:8] = b"NOTCACHE"
    entry.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="is damaged.*rebuilding"):
        second = load(TOY)
    np.testing.assert_array_equal(second.rewards, first.rewards)
    np.testing.assert_array_equal(second.observations, first.observations)
    assert second.instructions == first.instructions
    assert load(TOY).rewards.tolist() == first.rewards.tolist()  # the rebuilt entry serves again


def test_the_cache_round_trips_every_array_and_the_episode_table_exactly(datasets):
    """A reload from the cache gives what flattening gave: every array with its dtype and
    shape, the instructions, and the episode table with its dtypes (a missing seed included)."""
    import pandas as pd

    from imaginebench_data.loader import cache
    from imaginebench_data.loader.transitions import _ARRAYS, _read_cache, _write_cache

    write_dataset(TOY)
    flat = load(TOY, cache_dir=datasets / "first")
    flat.episodes.loc[2, "seed"] = pd.NA  # a seed the table does not know
    stem = datasets / "manual" / "entry"
    _write_cache(stem, flat)
    cache._verified.clear()  # as in a fresh process: the CRC is checked
    again = _read_cache(stem, TOY, flat.card)
    for name in _ARRAYS:
        a, b = getattr(flat, name), getattr(again, name)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), name
        np.testing.assert_array_equal(a, b, err_msg=name)
        assert b.flags.writeable, name
    assert again.instructions == flat.instructions
    pd.testing.assert_frame_equal(again.episodes, flat.episodes)
    assert again.episodes["seed"].isna().tolist() == [False, False, True, False]
    assert again.episodes.dtypes.to_dict() == flat.episodes.dtypes.to_dict()


def test_an_empty_episode_table_round_trips(datasets):
    import pandas as pd

    from imaginebench_data.loader.transitions import (
        _EPISODE_COLUMNS,
        _episode_frame,
        _read_cache,
        _write_cache,
    )

    write_dataset(TOY)
    flat = load(TOY, cache_dir=datasets / "first")
    flat.episodes = _episode_frame({name: [] for name in _EPISODE_COLUMNS})
    _write_cache(datasets / "manual" / "empty", flat)
    again = _read_cache(datasets / "manual" / "empty", TOY, flat.card)
    pd.testing.assert_frame_equal(again.episodes, flat.episodes)
    np.testing.assert_array_equal(again.observations, flat.observations)


def test_an_unwritable_cache_slows_loading_but_never_fails_it(datasets, monkeypatch):
    import imaginebench_data.loader.cache as cache

    write_dataset(TOY)
    blocked = datasets / "blocked"
    blocked.write_text("a file where the cache folder should be")  # unwritable even for root
    with pytest.warns(UserWarning, match="cannot write the loader cache"):
        assert len(load(TOY, cache_dir=blocked / "cache")) == 13

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "_encode", disk_full)
    full = datasets / "full"
    with pytest.warns(UserWarning, match="No space left on device"):
        assert len(load(TOY, cache_dir=full)) == 13
    assert list(full.iterdir()) == []  # no partial temporary file is left behind


def test_reading_in_parallel_chunks_gives_what_one_process_gives(datasets, monkeypatch):
    """A cold load of many episodes reads chunks in forked processes: the same arrays, episode
    table and checksum as one process reading them in order, and damage is still refused."""
    import pandas as pd

    from imaginebench_data.loader import transitions
    from imaginebench_data.loader.transitions import _ARRAYS

    many = [(1 + e % 6, e % 3 != 0, f"Push ball {e % 5}.") for e in range(23)]
    write_dataset(TOY, episodes=many)
    serial = load(TOY, cache_dir=datasets / "serial")
    forked = []
    real_pool = transitions.LocalPool
    monkeypatch.setattr(transitions, "LocalPool",
                        lambda workers: forked.append(workers) or real_pool(workers))
    monkeypatch.setattr(transitions, "CHUNK", 4)  # 6 chunks, shared between 2 processes
    monkeypatch.setattr(transitions, "PARALLEL_EPISODES", 8)
    monkeypatch.setattr(transitions.os, "cpu_count", lambda: 2)
    parallel = load(TOY, cache_dir=datasets / "parallel")
    assert forked == [2]
    for name in _ARRAYS:
        a, b = getattr(serial, name), getattr(parallel, name)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert parallel.instructions == serial.instructions
    pd.testing.assert_frame_equal(parallel.episodes, serial.episodes)
    assert parallel.episode_ids.tolist() == np.repeat(np.arange(23), [1 + e % 6 for e in range(23)]).tolist()

    with h5py.File(minari.load_dataset(TOY).storage.data_path / "main_data.hdf5", "a") as file:
        file["episode_17/rewards"][0] += 1.0  # in the fifth chunk
    with pytest.raises(DatasetChangedError):
        load(TOY, cache_dir=datasets / "damaged")
