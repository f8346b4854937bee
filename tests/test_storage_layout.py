"""The compact HDF5 layout (datasets/hdf5_layout.py): under 3 KB of metadata per episode, and
plain Minari reads back exactly what was written, in a fresh process with no import of ours."""

import json

import numpy as np
import pytest
from fresh import run_fresh
from tiny import toy_card

from imaginebench_data.cards.card import Card
from imaginebench_data.core.episode import Episode
from imaginebench_data.datasets.hdf5_layout import MAIN_FILE
from imaginebench_data.datasets.writer import write_dataset
from imaginebench_data.domains import get_domain

INSTRUCTION = "Push the red ball so that it ends up behind the blue ball."
KINDS = {"clevr": (20, 0), "halfcheetah": (100, 22)}  # domain -> (steps, simulator-state size)


def episodes(domain_name: str, count: int) -> list[Episode]:
    """Episodes with the domain's spaces and dtypes and the checkers' infos (values random)."""
    domain, rng = get_domain(domain_name), np.random.default_rng(7)
    domain.action_space.seed(7)
    steps, sim_size = KINDS[domain_name]
    result = []
    for index in range(count):
        length = steps - index % 5  # lengths differ, as they do in real data
        sim_states = rng.normal(size=(length + 1, sim_size)) if sim_size else None
        infos = {"success": np.r_[np.zeros(length, bool), True], "legal": np.ones(length + 1, bool),
                 "illegal_mask": np.zeros(length + 1, np.int32),
                 "transition_error": rng.random(length + 1).astype(np.float32),
                 "transition_ok": np.ones(length + 1, bool)}
        if sim_states is not None:
            infos["sim_state"] = sim_states
        result.append(Episode(
            states=rng.normal(size=(length + 1, *domain.state_space.shape)).astype(np.float32),
            actions=np.asarray([domain.action_space.sample() for _ in range(length)],
                               domain.action_space.dtype),
            rewards=rng.normal(size=length).astype(np.float32),
            terminations=np.r_[np.zeros(length - 1, bool), True], truncations=np.zeros(length, bool),
            instruction=f"{INSTRUCTION[:-1]} ({index % 3})", task_id="red-behind-blue", level="train",
            phrasing_id=index % 3, seed=1000 + index, source="real", infos=infos, sim_states=sim_states))
    return result


def write(domain_name: str, count: int) -> tuple[str, list[Episode]]:
    dataset_id = f"imaginebench/{domain_name}-train-real-v0"
    written = episodes(domain_name, count)
    write_dataset(dataset_id, written, get_domain(domain_name), on_episode=lambda e: None,
                  make_card=lambda checksum: Card.from_json(toy_card(dataset_id, checksum, domain_name)),
                  description="compact layout test")
    return dataset_id, written


def array_bytes(episode: Episode) -> int:
    """The bytes of every stored array; the instruction's UTF-8 bytes once per observation."""
    arrays = [episode.states, episode.actions, episode.rewards, episode.terminations, episode.truncations,
              *episode.infos.values()]
    return sum(a.nbytes for a in arrays) + len(episode.instruction.encode()) * len(episode.states)


@pytest.mark.parametrize("domain_name, count", [("clevr", 300), ("halfcheetah", 100)])
def test_overhead_per_episode_is_under_3_kb(minari_root, domain_name, count):
    dataset_id, written = write(domain_name, count)
    size = (minari_root / dataset_id / "data" / MAIN_FILE).stat().st_size
    overhead = (size - sum(map(array_bytes, written))) / count
    assert 0 < overhead < 3000, f"{overhead:.0f} bytes of HDF5 metadata per episode"


def test_same_episodes_give_the_same_file(minari_root, tmp_path, monkeypatch):
    dataset_id, _ = write("clevr", 20)
    first = (minari_root / dataset_id / "data" / MAIN_FILE).read_bytes()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "again"))
    write("clevr", 20)
    assert (tmp_path / "again" / dataset_id / "data" / MAIN_FILE).read_bytes() == first


@pytest.mark.parametrize("domain_name", ["clevr", "halfcheetah"])
def test_the_short_dataset_path_writes_the_bytes_of_h5pys_create_dataset(minari_root, tmp_path, monkeypatch,
                                                                           domain_name):
    """hdf5_layout creates datasets and attributes on libhdf5 itself (issue 16); the file must
    be byte for byte the one ``group.create_dataset`` and ``group.attrs[...] =`` wrote (bool
    enums, fixed UTF-8 strings, compact and contiguous arrays, float64 simulator states,
    variable-length string and int64 attributes)."""
    import h5py

    from imaginebench_data.datasets import hdf5_layout

    dataset_id, _ = write(domain_name, 30)
    short = (minari_root / dataset_id / "data" / MAIN_FILE).read_bytes()

    def create_dataset(group, name, data, settings):  # hdf5_layout._create before issue 16
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        if 0 < data.nbytes <= settings["compact_bytes"]:
            dcpl.set_layout(h5py.h5d.COMPACT)
        group.create_dataset(name, data=data, dcpl=dcpl, track_times=False)

    monkeypatch.setattr(hdf5_layout, "_create", create_dataset)
    monkeypatch.setattr(hdf5_layout, "_set_attribute",
                        lambda group, name, value: group.attrs.create(name, value))
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "high-level"))
    write(domain_name, 30)
    assert (tmp_path / "high-level" / dataset_id / "data" / MAIN_FILE).read_bytes() == short


def test_plain_minari_reads_back_what_was_written_in_a_fresh_process(minari_root, tmp_path):
    dataset_id, written = write("halfcheetah", 12)
    out = tmp_path / "read.npz"
    printed = run_fresh(f"""
        import json, minari, numpy as np
        ds = minari.load_dataset({dataset_id!r})
        arrays, episodes = {{}}, []
        for e in ds.iterate_episodes():
            for key in ("actions", "rewards", "terminations", "truncations"):
                arrays[f"{{e.id}}/{{key}}"] = getattr(e, key)
            arrays[f"{{e.id}}/state"] = e.observations["state"]
            for key, value in e.infos.items():
                arrays[f"{{e.id}}/infos/{{key}}"] = value
            texts = e.observations["instruction"]
            episodes.append({{"id": int(e.id), "obs_keys": list(e.observations), "instructions": texts,
                              "text_types": sorted({{type(s).__name__ for s in texts}})}})
        np.savez({str(out)!r}, **arrays)
        metadata = list(ds.storage.get_episode_metadata(ds.episode_indices))
        options = [{{k: [type(v).__name__, v if isinstance(v, str) else int(v)]
                     for k, v in m["options"].items()}} for m in metadata]
        sampled = ds.sample_episodes(3)
        env = ds.recover_environment(eval_env=True)
        obs, _ = env.reset(seed=0)
        print(json.dumps({{"episodes": episodes, "options": options,
                           "seeds": [int(m["seed"]) for m in metadata],
                           "total": [ds.total_episodes, ds.total_steps], "sampled": len(sampled),
                           "env_obs_ok": bool(env.observation_space.contains(obs))}}))
    """, minari_root)
    seen = json.loads(printed)
    assert seen["total"] == [len(written), sum(len(e) for e in written)]
    assert seen["sampled"] == 3 and seen["env_obs_ok"]
    assert seen["seeds"] == [e.seed for e in written]
    with np.load(out) as stored:
        for index, (episode, read) in enumerate(zip(written, seen["episodes"], strict=True)):
            assert read["id"] == index and sorted(read["obs_keys"]) == ["instruction", "state"]
            assert read["instructions"] == [episode.instruction] * len(episode.states)
            assert read["text_types"] == ["str"]
            expected = {"state": episode.states, "actions": episode.actions, "rewards": episode.rewards,
                        "terminations": episode.terminations, "truncations": episode.truncations,
                        **{f"infos/{key}": value for key, value in episode.infos.items()}}
            stored_keys = {k for k in stored.files if k.startswith(f"{index}/")}
            assert stored_keys == {f"{index}/{k}" for k in expected}
            for key, value in expected.items():
                found = stored[f"{index}/{key}"]
                assert found.dtype == value.dtype and np.array_equal(found, value), (index, key)
            # strings come back as str, integers as numpy int64 (as from Minari's own writer)
            assert seen["options"][index] == {key: ["str" if isinstance(value, str) else "int64", value]
                                               for key, value in episode.metadata.items()}
