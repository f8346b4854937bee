"""Loader speed, each figure measured side by side with its reference in one run.

- ``Sampler.sample(256)`` to torch against a bare numpy gather of the same number of rows;
- a cached reload (``ib.load`` when its cache entry exists, the entry's hash included, as in
  a fresh process) against ``np.load`` of the same arrays;
- a cold load (read, flatten, checksum, cache write) against reading the same arrays from the
  HDF5 file with h5py, and the episodes as the package reads them (libhdf5's calls) against
  Minari's reader;
- both at the demo size and at ``--large`` episodes (the demo's episodes repeated, written
  into a temporary Minari folder);
- the start of a ``Sampler`` with the MiniLM encoder, in a fresh process, against one
  without an encoder (with an empty and with a warm embedding cache).

Usage: python benchmarks/loader_speed.py [--dataset ID] [--large 6400] [--no-minilm]
The dataset is read from $MINARI_DATASETS_PATH, or built (demo scale) into a temporary folder
when it is not there. Times are the best of several rounds; prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np

import imaginebench_data as ib
from imaginebench_data.datasets.read import data_path, local_ids, open_dataset, stored_episodes
from imaginebench_data.domains import get_domain
from imaginebench_data.loader import cache as loader_cache

GOALS = {"sampler": 1.5, "reload": 2.0, "cold": 1.2}  # at most this many times the reference


def best(fn: Callable[[], object], rounds: int = 5, number: int = 1) -> float:
    """The fastest of ``rounds`` rounds of ``number`` calls, in seconds per call."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def paired(measured: Callable[[], object], reference: Callable[[], object], rounds: int = 7,
           number: int = 1) -> tuple[float, float]:
    """``best`` of each, their rounds alternating, so that other load on the machine meets both."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, out in ((measured, times[0]), (reference, times[1])):
            out.append(best(fn, rounds=1, number=number))
    return min(times[0]), min(times[1])


def row(label: str, measured: float, reference_label: str, reference: float, goal: float | None) -> None:
    ratio = measured / reference
    verdict = "" if goal is None else f"  goal <= {goal:.1f}x: {'met' if ratio <= goal else 'NOT met'}"
    print(f"  {label:<34} {measured * 1e3:10.3f} ms | {reference_label:<28} {reference * 1e3:10.3f} ms"
          f" | ratio {ratio:5.2f}x{verdict}")


def h5py_read(path: Path) -> int:
    """Every array the loader needs, read with h5py alone (the reference of a cold load)."""
    count = 0
    with h5py.File(path, "r") as f:
        for name in f:
            episode = f[name]
            arrays = [episode["observations/state"][()], episode["observations/instruction"][0],
                      episode["actions"][()], episode["rewards"][()], episode["terminations"][()],
                      episode["truncations"][()]]
            arrays += [episode["infos"][key][()] for key in episode["infos"]]
            _ = dict(episode.attrs)
            count += len(arrays)
    return count


def reader_against_minari(dataset_id: str) -> tuple[float, float]:
    """Every episode read by ``stored_episodes`` (libhdf5's calls, one process) against Minari's
    ``get_episodes`` and ``get_episode_metadata``, which it replaced."""
    dataset, card = open_dataset(dataset_id)
    domain, indices = get_domain(card.domain), list(dataset.episode_indices)

    def minari_read() -> None:
        for _ in zip(dataset.storage.get_episodes(indices), dataset.storage.get_episode_metadata(indices)):
            pass

    return paired(lambda: sum(1 for _ in stored_episodes(dataset, domain)), minari_read, rounds=3)


def npz_read(path: Path) -> int:
    with np.load(path, allow_pickle=False) as data:
        return len({name: data[name] for name in data.files})


ROW_ARRAYS = ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts",
              "episode_ids", "steps", "instruction_ids", "legal", "transition_ok", "success",
              "goal_consistent")


def reference_arrays(transitions: ib.Transitions) -> dict[str, np.ndarray]:
    """What a cached reload gives, as plain arrays: the row arrays and one per episode column."""
    arrays = {name: getattr(transitions, name) for name in ROW_ARRAYS}
    for name, column in transitions.episodes.items():
        values = column.to_numpy()
        arrays[f"episodes_{name}"] = values.astype(str) if values.dtype == object else values
    return arrays


def loads(dataset_id: str, label: str, workdir: Path) -> ib.Transitions:
    """Cold load against h5py, cached reload against np.load, for the dataset in the current
    $MINARI_DATASETS_PATH."""
    h5 = data_path(dataset_id) / "main_data.hdf5"
    folders = iter(range(1000))

    def cold() -> None:
        ib.load(dataset_id, cache_dir=workdir / f"cold-{next(folders)}")

    cold_time, raw_time = paired(cold, lambda: h5py_read(h5), rounds=3)
    read_time, minari_time = reader_against_minari(dataset_id)
    warm_dir = workdir / "warm"
    transitions = ib.load(dataset_id, cache_dir=warm_dir)

    def reload() -> None:
        loader_cache._verified.clear()  # as in a fresh process: the entry's hash is checked
        ib.load(dataset_id, cache_dir=warm_dir)

    reference = workdir / "reference.npz"
    np.savez(reference, **reference_arrays(transitions))
    reload_time, npz_time = paired(reload, lambda: npz_read(reference), rounds=9)
    entry = sum(path.stat().st_size for path in warm_dir.iterdir())
    print(f"{label}: {dataset_id}, {len(transitions.episodes)} episodes, {len(transitions)} transitions, "
          f"cache entry {entry / 1e6:.1f} MB")
    row("cold load (ib.load, no cache)", cold_time, "h5py read of the arrays", raw_time, GOALS["cold"])
    row("episodes read (stored_episodes)", read_time, "Minari's get_episodes+metadata", minari_time, None)
    row("cached reload (ib.load)", reload_time, "np.load of the same arrays", npz_time, GOALS["reload"])
    return transitions


def sampler_speed(transitions: ib.Transitions) -> None:
    rng = np.random.default_rng(0)
    keys = ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts")
    arrays = [getattr(transitions, key) for key in keys]

    def gather() -> list:
        rows = rng.integers(len(transitions), size=256)
        return [array[rows] for array in arrays]

    other = ib.load(transitions.dataset_id)  # a second copy, as a second dataset
    other_arrays = [getattr(other, key) for key in keys]

    def gather_two() -> list:
        first, second = (rng.integers(len(transitions), size=128) for _ in range(2))
        return [np.concatenate([a[first], b[second]]) for a, b in zip(arrays, other_arrays)]

    sampler = ib.Sampler({transitions: 1.0}, encoder=None)
    mixed = ib.Sampler({transitions: 0.5, other: 0.5}, encoder=None)
    print("Sampler, batch of 256 (6 arrays), encoder None:")
    one, reference = paired(lambda: sampler.sample(256), gather, 9, 500)
    row("Sampler.sample(256) -> torch", one, "numpy gather of 256 rows", reference, GOALS["sampler"])
    two, reference_two = paired(lambda: mixed.sample(256), gather_two, 9, 500)
    row("  two datasets 1:1 -> torch", two, "the same, 128 + 128 rows", reference_two, GOALS["sampler"])
    as_numpy, reference = paired(lambda: sampler.sample(256, as_numpy=True), gather, 9, 500)
    row("Sampler.sample(256, as_numpy)", as_numpy, "numpy gather of 256 rows", reference, None)


START = """
import sys, time
start = time.perf_counter()
import imaginebench_data as ib
imported = time.perf_counter()
sampler = ib.Sampler({sys.argv[1]: 1.0}, encoder=None if sys.argv[2] == "none" else sys.argv[2])
done = time.perf_counter()
print(imported - start, done - imported)
"""


def sampler_start(dataset_id: str, workdir: Path) -> None:
    """Seconds to import the package and to build a Sampler, in fresh processes."""
    env = {**os.environ, "IMAGINEBENCH_CACHE": str(workdir / "start-cache")}
    ib.load(dataset_id, cache_dir=workdir / "start-cache")  # the transitions' cache is warm in every case

    def run(encoder: str) -> tuple[float, float]:
        out = subprocess.run([sys.executable, "-c", START, dataset_id, encoder], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        return float(out[-2]), float(out[-1])

    base = min((run("none") for _ in range(2)), key=sum)
    cold = run("minilm")  # the first: no embedding cached yet
    warm = min((run("minilm") for _ in range(2)), key=sum)
    print(f"Sampler start in a fresh process (import {base[0]:.2f} s, then):")
    row("Sampler(minilm), first start", cold[1], "Sampler(encoder=None)", base[1], None)
    row("Sampler(minilm), later starts", warm[1], "Sampler(encoder=None)", base[1], None)
    print(f"  whole start, import included: first {sum(cold):.2f} s, later {sum(warm):.2f} s "
          f"(encoder None: {sum(base):.2f} s)")


def ensure_dataset(dataset_id: str, root: Path, episodes: int | None = None) -> None:
    """Build ``dataset_id`` (demo scale, or ``episodes`` of it) into ``root`` unless the current
    Minari folder has it. The build runs as the ``imaginebench`` command in its own process:
    this one imported numpy before the package could choose the portable numerics a build
    requires."""
    if dataset_id in local_ids():
        return
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    if dataset_id not in local_ids():
        size = f"{episodes} episodes" if episodes is not None else "demo scale"
        print(f"building {dataset_id} ({size}) into {root} ...", flush=True)
        command = [sys.executable, "-m", "imaginebench_data", "build", dataset_id, "--cards-dir",
                   str(root / "cards")]
        if episodes is not None:
            command += ["--episodes", str(episodes)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode:
            sys.exit(f"building {dataset_id} failed (exit {result.returncode}):\n{result.stderr[-2000:]}")


def make_large(dataset_id: str, episodes: int, root: Path) -> None:
    """``episodes`` episodes (the dataset's own, repeated) as ``dataset_id`` in Minari folder ``root``."""
    from itertools import cycle, islice

    from imaginebench_data.datasets.ids import DatasetId
    from imaginebench_data.pipeline.publish import publish

    dataset, card = open_dataset(dataset_id)
    domain = get_domain(card.domain)
    source = list(stored_episodes(dataset, domain))
    previous = os.environ.get("MINARI_DATASETS_PATH")  # unset: the dataset is in ~/.minari
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        publish(DatasetId.parse(dataset_id), islice(cycle(source), episodes), domain, scale="demo",
                provenance=dict,
                description="benchmark: demo episodes repeated", cards_dir=root / "cards",
                total=episodes, progress=False)
    finally:
        if previous is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="imaginebench/clevr-train-real-v0")
    parser.add_argument("--large", type=int, default=6400, help="episodes of the large copy (0: none)")
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM start")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        ensure_dataset(args.dataset, workdir / "demo")
        card = open_dataset(args.dataset)[1]  # the local one may be at another scale than the demo
        label = f"{card.scale} scale"
        transitions = loads(args.dataset, label, workdir / "demo-load")
        sampler_speed(transitions)
        if not args.no_minilm:
            sampler_start(args.dataset, workdir)
        if args.large:
            make_large(args.dataset, args.large, workdir / "large")
            os.environ["MINARI_DATASETS_PATH"] = str(workdir / "large")
            loads(args.dataset, "large", workdir / "large-load")


if __name__ == "__main__":
    main()
