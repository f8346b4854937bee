"""Minari's own test checks, reimplemented for the installed Minari (0.5.4), to run on our datasets.

Upstream: ``tests/common.py`` of https://github.com/Farama-Foundation/Minari (blob ``97df7ae9``) at
commit 5ca46f103c67e00dfa264f5f6b99dc83a64ff32d ("Fix jpeg encoding condition (#327)"). The
v0.5.4 release commit is not in the stored snapshot of the repository; 5ca46f10 is the closest:
its ``minari/`` package is the installed 0.5.4 apart from the version number and one fix to
remote listing (``storage/hosting.py``), and ``tests/common.py`` is the same blob there and at
the snapshot's HEAD (1880118a). The checks that upstream writes inline in its tests come from
the same commit: ``tests/dataset/test_minari_dataset.py`` (iterate, sample, filter, update from
a buffer), ``tests/dataset/test_minari_storage.py::test_episode_metadata`` (``dataset_size``,
seed, options), ``tests/utils/test_dataset_combine.py``, ``minari.split_dataset``'s contract,
``tests/data_collector/test_data_collector.py::test_reproducibility`` (replaying stored actions
from the stored seed) and ``tests/test_cli.py`` (``minari list local``, ``minari show``).

Differences from upstream, each because our datasets are not built by Minari's DataCollector
from Minari's dummy envs:

- the helpers take the dataset under test instead of building one from a dummy env;
- ``check_load_dataset`` is the first half of ``check_load_and_delete_dataset``, for the
  dataset under test (the whole helper runs on the copies that the checks below make);
- ``check_env_recovery`` also fails on a UserWarning while recovering, as upstream's
  ``test_requirements`` does once the requirements are met;
- ``check_infos_equal`` compares every key (upstream returns after the first one);
- ``check_infos`` and ``check_metadata`` gather what upstream asserts about infos and
  ``metadata.json`` across its tests (``info_sample`` compares values with one env's constant
  infos, which ours are not, so ``check_infos`` compares their structure and lengths);
- ``check_update_dataset_from_buffer`` appends the dataset's own episodes, read back from its
  storage (upstream appends random-policy episodes built with ``EpisodeBuffer.add_step_data``,
  which needs jax, and random policies do not finish our tasks), and works on a copy made by
  ``combine_datasets`` so that the dataset under test is not changed;
- ``check_reproducibility`` takes ``reset_options(episode_metadata)``: upstream resets with the
  stored ``options`` as they are, which for a DataCollector dataset are the reset options;
- observations are compared key by key (ours are ``Dict(state, instruction)``; upstream's
  ``np.allclose`` on the whole observation only works for arrays);
- the CLI runs in a subprocess with ``MINARI_DATASETS_PATH`` set (upstream runs the typer app
  in-process with ``CliRunner``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import minari
import numpy as np
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from minari import EpisodeData, MinariDataset
from minari.data_collector import EpisodeBuffer
from minari.dataset.minari_dataset import parse_dataset_id
from minari.namespace import list_local_namespaces


# --- tests/common.py ------------------------------------------------------------------------------
def check_env_recovery(gymnasium_environment: gym.Env, dataset: MinariDataset,
                       evaluation_environment: gym.Env | None = None) -> None:
    """The env recovered from the dataset is the one used to generate it (spec and spaces), and
    so is the evaluation env, if given. Recovery must not warn (e.g. about a requirement that
    is not installed: upstream's ``test_requirements``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        recovered_env = dataset.recover_environment()
    assert recovered_env.spec == gymnasium_environment.spec, (
        f"recovered_env spec: {recovered_env.spec}\noriginal spec: {gymnasium_environment.spec}")
    assert data_equivalence(recovered_env.observation_space, gymnasium_environment.observation_space)
    assert data_equivalence(dataset.spec.observation_space, gymnasium_environment.observation_space)
    assert data_equivalence(recovered_env.action_space, gymnasium_environment.action_space)
    assert data_equivalence(dataset.spec.action_space, gymnasium_environment.action_space)
    recovered_env.close()
    if evaluation_environment is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            recovered_eval_env = dataset.recover_environment(eval_env=True)
        assert recovered_eval_env.spec == evaluation_environment.spec, (
            f"recovered_eval_env spec: {recovered_eval_env.spec}\noriginal spec: {evaluation_environment}")
        recovered_eval_env.close()


def check_data_integrity(dataset: MinariDataset, episode_indices: list[int]) -> None:
    """The dataset has an episode at each index; observations (T+1) and actions (T) are in the
    spaces; rewards, terminations and truncations have T entries; the steps add up."""
    episodes = list(dataset.iterate_episodes(episode_indices))
    assert dataset.total_episodes == len(episodes), f"{dataset.total_episodes} != {len(episodes)}"
    check_episode_data_integrity(episodes, dataset.observation_space, dataset.action_space)
    assert sum(len(episode) for episode in episodes) == dataset.total_steps


def get_info_at_step_index(infos: dict, step_index: int) -> dict:
    """The info of one step from per-episode infos (arrays, possibly in nested dicts)."""
    result = {}
    for key in infos.keys():
        if isinstance(infos[key], dict):
            result[key] = get_info_at_step_index(infos[key], step_index)
        elif isinstance(infos[key], np.ndarray):
            result[key] = infos[key][step_index]
        else:
            raise ValueError("Infos are in an unsupported format; see Minari documentation for "
                             "supported formats.")
    return result


def _reconstruct_obs_or_action_at_index_recursive(data: dict | tuple | np.ndarray | list, index: int) -> Any:
    if isinstance(data, dict):
        return {key: _reconstruct_obs_or_action_at_index_recursive(data[key], index) for key in data.keys()}
    if isinstance(data, tuple):
        return tuple(_reconstruct_obs_or_action_at_index_recursive(entry, index) for entry in data)
    assert isinstance(data, (np.ndarray, list)), "error, invalid observation or action structure"
    return data[index]


def _check_space_elem(data: Any, space: spaces.Space, n_elements: int) -> None:
    if isinstance(space, spaces.Tuple):
        assert isinstance(data, tuple)
        assert len(data) == len(space.spaces)
        for data_elem, sub_space in zip(data, space.spaces):
            _check_space_elem(data_elem, sub_space, n_elements)
    elif isinstance(space, spaces.Dict):
        assert isinstance(data, dict)
        assert data.keys() == space.keys()
        for key in data.keys():
            _check_space_elem(data[key], space[key], n_elements)
    else:
        assert len(data) == n_elements


def check_load_dataset(dataset_id: str) -> None:
    """The dataset is listed locally and loads under its id (the first half of upstream's
    ``check_load_and_delete_dataset``, for datasets a test must keep)."""
    assert dataset_id in minari.list_local_datasets()
    loaded_dataset = minari.load_dataset(dataset_id)
    assert isinstance(loaded_dataset, MinariDataset)
    assert dataset_id == loaded_dataset.spec.dataset_id


def check_load_and_delete_dataset(dataset_id: str) -> None:
    """The dataset is listed locally, loads under its id, and is gone once deleted."""
    check_load_dataset(dataset_id)
    minari.delete_dataset(dataset_id)
    assert dataset_id not in minari.list_local_datasets()


def check_episode_data_integrity(episode_data_list: list[EpisodeData] | MinariDataset,
                                 observation_space: spaces.Space, action_space: spaces.Space,
                                 info_sample: dict | None = None) -> None:
    """Each episode's observations (T+1) and actions (T) are in the spaces, its rewards,
    terminations and truncations have T entries, and (with ``info_sample``) each step's info
    equals the sample."""
    for episode in episode_data_list:
        _check_space_elem(episode.observations, observation_space, len(episode) + 1)
        _check_space_elem(episode.actions, action_space, len(episode))
        for i in range(len(episode) + 1):
            obs = _reconstruct_obs_or_action_at_index_recursive(episode.observations, i)
            if info_sample is not None:
                assert episode.infos is not None
                assert check_infos_equal(get_info_at_step_index(episode.infos, i), info_sample)
            assert observation_space.contains(obs), f"episode {episode.id}, step {i}: {obs!r}"
        for i in range(len(episode)):
            action = _reconstruct_obs_or_action_at_index_recursive(episode.actions, i)
            assert action_space.contains(action), f"episode {episode.id}, action {i}: {action!r}"
        assert len(episode) == len(episode.rewards)
        assert len(episode) == len(episode.terminations)
        assert len(episode) == len(episode.truncations)


def check_infos_equal(info_1: dict, info_2: dict) -> bool:
    if info_1.keys() != info_2.keys():
        return False
    for key in info_1.keys():
        if isinstance(info_1[key], dict):
            same = check_infos_equal(info_1[key], info_2[key])
        elif isinstance(info_1[key], np.ndarray):
            same = bool(np.all(info_1[key] == info_2[key]))
        else:
            same = info_1[key] == info_2[key]
        if not same:
            return False
    return True


# --- checks upstream writes inline in its tests ---------------------------------------------------
def _info_structure(info: dict) -> dict:
    return {key: _info_structure(value) if isinstance(value, dict) else None for key, value in info.items()}


def check_infos(dataset: MinariDataset) -> None:
    """Every episode has infos in a supported format (arrays in nested dicts), one per
    observation (T+1, index 0 describing the reset), with the same keys at every step of every
    episode (what DataCollector(record_infos=True) demands of an env)."""
    structure = None
    for episode in dataset.iterate_episodes():
        assert episode.infos is not None, f"episode {episode.id} has no infos"
        for i in range(len(episode) + 1):
            info = get_info_at_step_index(episode.infos, i)
            structure = _info_structure(info) if structure is None else structure
            assert _info_structure(info) == structure, f"episode {episode.id}, step {i}: {sorted(info)}"

        def lengths(infos: dict) -> list[int]:
            return [n for value in infos.values()
                    for n in (lengths(value) if isinstance(value, dict) else [len(value)])]
        assert set(lengths(episode.infos)) == {len(episode) + 1}, f"episode {episode.id}"


def check_metadata(dataset: MinariDataset) -> None:
    """``metadata.json`` says what is on disk and who made the dataset (test_episode_metadata's
    ``dataset_size`` assert, plus the fields whose absence makes Minari warn at creation)."""
    metadata = dataset.storage.metadata
    assert metadata["dataset_size"] == dataset.storage.get_size()
    assert metadata["dataset_id"] == dataset.spec.dataset_id == dataset.id
    assert metadata["minari_version"] == minari.__version__ in minari.supported_dataset_versions
    assert metadata["total_episodes"] == dataset.total_episodes == len(dataset.episode_indices)
    assert metadata["total_steps"] == dataset.total_steps == sum(len(episode) for episode in dataset)
    for key in ("author", "algorithm_name", "description", "env_spec", "eval_env_spec", "requirements"):
        assert metadata.get(key), f"{key} missing"
    assert metadata.get("code_permalink") is None  # no public repository yet: none, not a placeholder
    assert metadata["ref_min_score"] <= metadata["ref_max_score"]  # get_normalized_score works
    assert metadata["num_episodes_average_score"] >= 1
    namespace = parse_dataset_id(dataset.spec.dataset_id)[0]
    assert dataset.spec.namespace == namespace and namespace in list_local_namespaces()


def check_episode_metadata(dataset: MinariDataset) -> list[dict]:
    """Each episode's metadata has its id, its number of steps, a non-negative integer seed and
    options with the same keys as every other episode's. Returns the metadata."""
    metadatas = list(dataset.storage.get_episode_metadata(dataset.episode_indices))
    assert len(metadatas) == dataset.total_episodes
    for index, episode, metadata in zip(dataset.episode_indices, dataset, metadatas):
        assert metadata["id"] == index == episode.id
        assert metadata["total_steps"] == len(episode)
        assert isinstance(metadata["seed"], (int, np.integer)) and metadata["seed"] >= 0
        assert isinstance(metadata["options"], dict)
        assert metadata["options"].keys() == metadatas[0]["options"].keys()
    return metadatas


def check_iterate_episodes(dataset: MinariDataset) -> None:
    """``iterate_episodes`` of some or all indices, ``dataset[i]``, ``len`` and iteration agree."""
    n = dataset.total_episodes
    some = list(range(1, n, 2))
    episodes = list(dataset.iterate_episodes(some))
    assert [episode.id for episode in episodes] == some
    check_episode_data_integrity(episodes, dataset.spec.observation_space, dataset.spec.action_space)
    assert {episode.id for episode in dataset.iterate_episodes()} == set(range(n))
    length = 0
    for i, episode in enumerate(dataset):
        assert dataset[i].id == i and episode.id == i
        length += 1
    assert length == len(dataset) == n


def check_sample_episodes(dataset: MinariDataset) -> None:
    """Samples of a filtered view have the asked size and intact data; asking for more
    episodes than the view has raises ValueError; a seed makes sampling reproducible."""
    filtered = dataset.filter_episodes(lambda episode: int(episode.id) >= 1)
    n = filtered.total_episodes
    assert n == dataset.total_episodes - 1
    for size in sorted({1, n}):
        episodes = list(filtered.sample_episodes(size))
        assert len(episodes) == size and all(episode.id >= 1 for episode in episodes)
        check_episode_data_integrity(episodes, filtered.spec.observation_space, filtered.spec.action_space)
    try:
        filtered.sample_episodes(n + 1)
    except ValueError:
        pass
    else:
        raise AssertionError(f"sampling {n + 1} of {n} episodes did not raise ValueError")
    ids = []
    for _ in range(2):
        filtered.set_seed(7)
        ids.append([episode.id for episode in filtered.sample_episodes(n)])
    assert ids[0] == ids[1]


def check_filter_episodes(dataset: MinariDataset, gymnasium_environment: gym.Env) -> None:
    """A filtered view holds just the episodes kept, intact, with the env still recoverable."""
    keep = dataset.total_episodes // 2
    filtered = dataset.filter_episodes(lambda episode: int(episode.id) < keep)
    assert isinstance(filtered, MinariDataset)
    assert filtered.total_episodes == filtered.spec.total_episodes == keep
    assert list(filtered.episode_indices) == list(range(keep))
    assert filtered.storage.total_episodes == dataset.total_episodes  # a view: same storage
    check_data_integrity(filtered, list(filtered.episode_indices))
    check_env_recovery(gymnasium_environment, filtered)


def check_split_dataset(dataset: MinariDataset) -> None:
    """``minari.split_dataset`` gives disjoint views covering what was asked, the same ones for
    the same seed, and refuses sizes beyond the dataset."""
    n = dataset.total_episodes
    sizes = [n // 2, n - n // 2]
    first, second = minari.split_dataset(dataset, sizes, seed=3)
    assert [first.total_episodes, second.total_episodes] == sizes
    assert not set(first.episode_indices) & set(second.episode_indices)
    assert set(first.episode_indices) | set(second.episode_indices) == set(dataset.episode_indices)
    for part in (first, second):
        check_data_integrity(part, list(part.episode_indices))
    again = minari.split_dataset(dataset, sizes, seed=3)
    assert [list(d.episode_indices) for d in again] == [list(first.episode_indices),
                                                        list(second.episode_indices)]
    try:
        minari.split_dataset(dataset, [n, 1])
    except ValueError:
        pass
    else:
        raise AssertionError("split sizes beyond the dataset did not raise ValueError")


def derived_id(dataset: MinariDataset, suffix: str) -> str:
    """An id beside the dataset's (same namespace, so its folder exists) for a derived dataset."""
    namespace, name, version = parse_dataset_id(dataset.spec.dataset_id)
    return f"{namespace}/{name}-{suffix}-v{version}"


def check_combine_datasets(dataset: MinariDataset, gymnasium_environment: gym.Env) -> None:
    """The dataset combined with itself (``combine_datasets`` demands equal env specs) has both
    copies' episodes, intact, its env spec, and loads and deletes by its new id."""
    new_id = derived_id(dataset, "combined")
    combined = minari.combine_datasets([dataset, dataset], new_dataset_id=new_id)
    assert list(combined.spec.combined_datasets) == [dataset.spec.dataset_id] * 2
    assert combined.spec.total_episodes == 2 * dataset.total_episodes
    assert combined.spec.total_steps == 2 * dataset.total_steps
    assert combined.spec.env_spec is not None and combined.spec.env_spec == dataset.spec.env_spec
    check_data_integrity(combined, list(combined.episode_indices))
    check_env_recovery(gymnasium_environment, combined)
    check_load_and_delete_dataset(new_id)


def episode_buffers(dataset: MinariDataset) -> list[EpisodeBuffer]:
    """The dataset's episodes as new ``EpisodeBuffer``s (no id: appended after the last one)."""
    return [EpisodeBuffer(seed=episode.get("seed"), options=episode.get("options"),
                          observations=episode["observations"], actions=episode["actions"],
                          rewards=episode["rewards"], terminations=episode["terminations"],
                          truncations=episode["truncations"], infos=episode.get("infos"))
            for episode in dataset.storage.get_episodes(dataset.episode_indices)]


def check_update_dataset_from_buffer(dataset: MinariDataset, gymnasium_environment: gym.Env) -> None:
    """Episodes appended with ``update_dataset_from_buffer`` (to a copy) are counted, intact,
    and leave the env recoverable; the copy loads and deletes by its id."""
    copy_id = derived_id(dataset, "updated")
    copy = minari.combine_datasets([dataset], new_dataset_id=copy_id)
    n = dataset.total_episodes
    copy.update_dataset_from_buffer(episode_buffers(dataset))
    assert copy.total_episodes == copy.spec.total_episodes == len(copy.episode_indices) == 2 * n
    assert isinstance(copy.total_steps, int) and copy.total_steps == 2 * dataset.total_steps
    check_data_integrity(copy, list(copy.episode_indices))
    for first, second in zip(dataset, copy.iterate_episodes(range(n, 2 * n))):
        assert first.id + n == second.id
        assert np.array_equal(first.actions, second.actions) and np.array_equal(first.rewards, second.rewards)
    check_env_recovery(gymnasium_environment, copy)
    check_load_and_delete_dataset(copy_id)


def _same_observation(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_observation(a[key], b[key]) for key in a)
    if isinstance(a, str):
        return a == b
    return bool(np.allclose(a, b))


def check_reproducibility(dataset: MinariDataset,
                          reset_options: Callable[[dict], dict | None] = lambda m: m.get("options")) -> None:
    """Resetting the recovered env with each episode's stored seed (and ``reset_options`` of
    its metadata) and stepping its stored actions gives back its observations, rewards,
    terminations and truncations."""
    env = dataset.recover_environment()
    metadatas = dataset.storage.get_episode_metadata(dataset.episode_indices)
    for episode, metadata in zip(dataset.iterate_episodes(), metadatas):
        assert metadata["seed"] >= 0
        obs, _ = env.reset(seed=int(metadata["seed"]), options=reset_options(metadata))
        first = _reconstruct_obs_or_action_at_index_recursive(episode.observations, 0)
        assert _same_observation(obs, first), f"episode {episode.id}: reset"
        for k in range(len(episode)):
            action = _reconstruct_obs_or_action_at_index_recursive(episode.actions, k)
            obs, reward, terminated, truncated, _ = env.step(action)
            stored = _reconstruct_obs_or_action_at_index_recursive(episode.observations, k + 1)
            assert _same_observation(obs, stored), f"episode {episode.id}, step {k}"
            assert reward == episode.rewards[k], f"episode {episode.id}, step {k}"
            assert terminated == episode.terminations[k] and truncated == episode.truncations[k]
    env.close()


# --- tests/test_cli.py ----------------------------------------------------------------------------
def run_minari_cli(*args: str, root: os.PathLike,
                   imports: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``minari ARGS`` in a subprocess reading the datasets under ``root``; its exit status must
    be 0. With ``imports`` (modules importable from this process's ``sys.path``), Minari's CLI
    app runs after importing them, as the ``minari`` script would with them installed."""
    if imports:
        code = f"import {', '.join(imports)}; from minari.cli import app; app(prog_name='minari')"
        command = [sys.executable, "-c", code, *args]
    else:
        command = [os.path.join(os.path.dirname(sys.executable), "minari"), *args]
    env = {**os.environ, "MINARI_DATASETS_PATH": str(root), "COLUMNS": "250",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    assert result.returncode == 0, f"{' '.join(args)}: {result.stdout}\n{result.stderr}"
    return result


def check_cli_list(listing: str, dataset: MinariDataset) -> None:
    """``minari list local`` (its stdout ``listing``) has a row for the dataset with its
    episodes, steps, size and author."""
    assert "Name" in listing
    rows = [line for line in listing.splitlines() if f" {dataset.spec.dataset_id} " in line]
    assert len(rows) == 1, f"{dataset.spec.dataset_id} not listed once in:\n{listing}"
    cells = [cell.strip() for cell in rows[0].split("│") if cell.strip()]
    metadata = dataset.storage.metadata
    assert cells[1:] == [str(metadata["total_episodes"]), str(metadata["total_steps"]),
                         f"{metadata['dataset_size']:.1f} MB", ", ".join(sorted(metadata["author"]))], cells


def check_cli_show(dataset: MinariDataset, root: os.PathLike, imports: tuple[str, ...] = ()) -> None:
    """``minari show ID`` describes the dataset and both of its env specs, making each env
    (it prints their spaces; a failure to make one is only a warning)."""
    result = run_minari_cli("show", dataset.spec.dataset_id, root=root, imports=imports)
    shown = result.stdout
    assert dataset.spec.dataset_id in shown and "Failed to make env" not in result.stderr, result.stderr
    assert "Environment Specs" in shown and "Evaluation Environment Specs" in shown
    assert shown.count("│ ID ") == 2 and shown.count(dataset.spec.env_spec.id) >= 2
    assert shown.count("Observation Space") == 3  # the dataset's, the env's and the eval env's
    assert re.search(rf"│ Total Episodes +│ {dataset.total_episodes} ", shown)
    assert re.search(rf"│ Total Steps +│ {dataset.total_steps} ", shown)
