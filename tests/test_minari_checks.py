"""Every kind of dataset passes Minari's own test checks (``minari_common``: Minari's
``tests/common.py`` and the checks of the tests that use it, reimplemented for Minari 0.5.4).

Built small, under one Minari root for the module, each the first time a test asks for it:

- real: ``<domain>-train-real`` of every registered domain, the test-only ``point`` domain
  included (two episodes each; ten of CLEVR's, enough to ground a model on);
- imaginary: ``clevr-easy-imaginary`` (three episodes), from a model grounded for one epoch on
  those ten;
- imported: ``clevr-train-real`` and ``halfcheetah-hard-imaginary`` from files written in the
  original release's layouts (HDF5 with a side .npy; a pickled .npy in HalfCheetah's
  18-number layout).

Imagined and imported data of the other domains are not built: grounding costs about half a
minute per domain here. They would add nothing these checks can see: every dataset is written
by the same writer (``datasets/writer.py``), with its domain's spaces and infos (covered by
each domain's real data) and the env of its level (covered for other levels than train by the
imaginary and imported sets); the one check that depends on where episodes come from,
replaying them in the env, applies to real built data only (see ``reproducibility``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import minari
import numpy as np
import point_domain  # noqa: F401  (registers the sixth, test-only domain: the registry includes it)
import pytest
from minari_common import (
    _reconstruct_obs_or_action_at_index_recursive,
    check_cli_list,
    check_cli_show,
    check_combine_datasets,
    check_data_integrity,
    check_env_recovery,
    check_episode_metadata,
    check_filter_episodes,
    check_infos,
    check_iterate_episodes,
    check_load_dataset,
    check_metadata,
    check_reproducibility,
    check_sample_episodes,
    check_split_dataset,
    check_update_dataset_from_buffer,
    run_minari_cli,
)
from original_layouts import cheetah_rollouts, pickled_rephrase, rollouts, write_ball_h5, write_cheetah
from tiny import toy_card

from imaginebench_data.cards.card import Card
from imaginebench_data.core.env import eval_env_spec
from imaginebench_data.datasets.ids import DatasetId
from imaginebench_data.datasets.writer import write_dataset
from imaginebench_data.domains import domain_names, get_domain
from imaginebench_data.imagine import checkpoints
from imaginebench_data.imports import import_dir
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import INFO_KEYS, annotate

REAL = [f"imaginebench/{domain}-train-real-v0" for domain in domain_names()]
IMAGINED = ["imaginebench/clevr-easy-imaginary-v0"]
IMPORTED = ["imaginebench-original/clevr-train-real-v0",
            "imaginebench-original/halfcheetah-hard-imaginary-v0"]
TRAIN_EPISODES = {"clevr": 10}  # grounding holds out every 10th episode: ten leave one for its evidence
IMPORTED_FILES = {  # dataset -> its file in the original layout, written from our simulators
    IMPORTED[0]: lambda folder: write_ball_h5(folder, "ball_real.hdf5", rollouts("train", 3)),
    IMPORTED[1]: lambda folder: write_cheetah(folder / "mujoco_imaginary_hard.npy", cheetah_rollouts(
        "hard", [("jump-in-place", 20), ("backward-then-forward", 6)]), next_observations=True),
}


class Datasets:
    """The module's datasets, each built (or imported) the first time it is asked for, and the
    env of each dataset's level (made once: LIBERO's takes seconds)."""

    def __init__(self, root: Path, work: Path):
        self.root, self.work = root, work
        self.recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
        self._built: dict[str, minari.MinariDataset] = {}
        self._envs: dict[tuple[str, str], gym.Env] = {}
        self._listing: tuple[frozenset, str] | None = None

    def get(self, dataset_id: str) -> minari.MinariDataset:
        if dataset_id not in self._built:
            parsed = DatasetId.parse(dataset_id)
            cards = self.work / "cards"
            if dataset_id in IMPORTED_FILES:
                folder = self.work / parsed.name
                folder.mkdir()
                IMPORTED_FILES[dataset_id](folder)
                import_dir(folder, cards_dir=cards, progress=False)
            else:
                if parsed.source == "imaginary":
                    self.get(str(self.recipes[dataset_id].train_from))
                episodes = TRAIN_EPISODES.get(parsed.domain, 2) if parsed.level == "train" else 3
                build(dataset_id, episodes=episodes, workers=1, cards_dir=cards, recipes=self.recipes,
                      progress=False)
            self._built[dataset_id] = minari.load_dataset(dataset_id)
        return self._built[dataset_id]

    def env(self, dataset_id: str) -> gym.Env:
        """The env a dataset was made for and is evaluated in: its domain's, at its level."""
        parsed = DatasetId.parse(dataset_id)
        key = (parsed.domain, parsed.level)
        if key not in self._envs:
            self._envs[key] = gym.make(eval_env_spec(*key))
        return self._envs[key]

    def close(self) -> None:
        for env in self._envs.values():
            env.close()

    def listing(self) -> str:
        """``minari list local``, run again only when a dataset was built since."""
        built = frozenset(self._built)
        if self._listing is None or self._listing[0] != built:
            self._listing = (built, run_minari_cli("list", "local", root=self.root).stdout)
        return self._listing[1]


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    work = tmp_path_factory.mktemp("minari-checks")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(work / "minari"))
        patch.setenv("IMAGINEBENCH_CACHE", str(work / "cache"))
        patch.setenv("IMAGINEBENCH_MODELS", str(work / "models"))
        patch.setattr(checkpoints, "EVIDENCE_EPISODES", 2)
        built = Datasets(work / "minari", work)
        yield built
        built.close()


# --- the checks, each run on every dataset --------------------------------------------------------
def episode_metadata(dataset, dataset_id, _datasets):
    parsed = DatasetId.parse(dataset_id)
    for episode, metadata in zip(dataset, check_episode_metadata(dataset)):
        options = metadata["options"]
        imported = {"resolved_by"} if dataset_id in IMPORTED_FILES else set()  # the ladder's rung
        assert options.keys() == {"task_id", "level", "phrasing_id", "source", "instruction"} | imported
        assert (options["level"], options["source"]) == (parsed.level, parsed.source)
        assert options["instruction"] == episode.observations["instruction"][0]


def infos(dataset, _dataset_id, _datasets):
    check_infos(dataset)
    assert set(INFO_KEYS) <= set(dataset[0].infos)


def reproducibility(dataset, dataset_id, datasets):
    parsed = DatasetId.parse(dataset_id)
    if parsed.source == "imaginary":
        pytest.skip("imagined states come from the language model, not the simulator: re-running the "
                    "stored actions in the env gives what really follows them, which differs where the "
                    "model erred (the card's transition_error measures exactly that)")
    if dataset_id in IMPORTED_FILES:
        pytest.skip("imported episodes start from the original file's states; their seed is their row "
                    "in the file (imports/convert.py), so no reset reproduces them")
    check_reproducibility(dataset)  # upstream's way: reset(seed=stored seed, options=stored options)


def preloaded_domains(dataset_id):
    """Modules to import before ``minari show`` makes the dataset's env: ``point`` lives in tests/
    and is registered by importing it (an installed domain would be found by its entry point)."""
    return ("point_domain",) if DatasetId.parse(dataset_id).domain == "point" else ()


CHECKS = {
    "data_integrity": lambda ds, _, __: check_data_integrity(ds, list(ds.episode_indices)),
    "infos": infos,
    "metadata": lambda ds, _, __: check_metadata(ds),
    "episode_metadata": episode_metadata,
    "load": lambda ds, dataset_id, _: check_load_dataset(dataset_id),
    "env_recovery": lambda ds, dataset_id, datasets: check_env_recovery(
        datasets.env(dataset_id), ds, datasets.env(dataset_id)),
    "reproducibility": reproducibility,
    "iterate_episodes": lambda ds, _, __: check_iterate_episodes(ds),
    "sample_episodes": lambda ds, _, __: check_sample_episodes(ds),
    "filter_episodes": lambda ds, dataset_id, datasets: check_filter_episodes(ds, datasets.env(dataset_id)),
    "split_dataset": lambda ds, _, __: check_split_dataset(ds),
    "combine_datasets": lambda ds, dataset_id, datasets: check_combine_datasets(ds, datasets.env(dataset_id)),
    "update_dataset_from_buffer": lambda ds, dataset_id, datasets: check_update_dataset_from_buffer(
        ds, datasets.env(dataset_id)),
    "cli_list": lambda ds, _, datasets: check_cli_list(datasets.listing(), ds),
    "cli_show": lambda ds, dataset_id, datasets: check_cli_show(ds, datasets.root,
                                                                imports=preloaded_domains(dataset_id)),
}


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("dataset_id", REAL + IMAGINED + IMPORTED)
def test_minari_check(datasets, dataset_id, check):
    CHECKS[check](datasets.get(dataset_id), dataset_id, datasets)


# --- the one thing Minari's checks reject in imagined data, by design -----------------------------
def test_non_finite_imagined_states_are_the_only_observations_outside_the_space(minari_root, tmp_path):
    """Imagined rollouts may hold non-finite states: kept and flagged illegal, never dropped
    (DESIGN.md). A NaN is in no Box, so Minari's ``check_data_integrity`` fails on such a
    dataset, at those states and nowhere else. (No committed imaginary dataset has any: their
    cards' ``illegal_by_kind["non_finite"]`` is 0.)"""
    source = tmp_path / "original"
    source.mkdir()
    np.save(source / "ball_imaginary_rephrase.npy", pickled_rephrase(rollouts("rephrase", 3)))
    [result] = import_dir(source, cards_dir=tmp_path / "cards", progress=False)
    dataset = minari.load_dataset(str(result.dataset_id))
    outside, non_finite = [], []
    for episode in dataset:
        for t in range(len(episode) + 1):
            obs = _reconstruct_obs_or_action_at_index_recursive(episode.observations, t)
            if not dataset.observation_space.contains(obs):
                outside.append((episode.id, t))
            if not np.isfinite(obs["state"]).all():
                non_finite.append((episode.id, t))
                assert not episode.infos["legal"][t]
    assert outside == non_finite == [(0, 1)]  # where pickled_rephrase put its NaN
    with pytest.raises(AssertionError, match="episode 0, step 1"):
        check_data_integrity(dataset, list(dataset.episode_indices))


# --- dataset_size counts what is on disk, card included --------------------------------------------
def test_dataset_size_counts_the_card(minari_root):
    """Minari rounds ``dataset_size`` to 0.1 MB, so the small datasets above cannot tell a size
    taken before the card was added from one taken after. A 0.3 MB card can."""
    dataset_id = "imaginebench/clevr-easy-real-v0"
    clevr = get_domain("clevr")
    sim = clevr.simulator()
    episodes = [annotate(clevr, expert_episode(clevr, "easy", index, 1, sim), sim) for index in range(2)]

    def make_card(checksum: str) -> Card:
        return Card.from_json({**toy_card(dataset_id, checksum), "provenance": {"padding": "x" * 300_000}})

    write_dataset(dataset_id, episodes, clevr, make_card=make_card, on_episode=lambda episode: None,
                  description="two one-push episodes and a big card")
    dataset = minari.load_dataset(dataset_id)
    assert dataset.storage.metadata["dataset_size"] == dataset.storage.get_size() >= 0.3
