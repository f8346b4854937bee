"""What an episode costs on disk in each storage layout, and how fast it loads: one run, side by side.

Two kinds of synthetic episodes with the spaces, dtypes and infos of real ones:

- ``clevr``: 20 steps, CLEVR's 10-number state, Discrete(40) actions, a 58-character
  instruction, the checkers' five per-step infos;
- ``long``: 200 steps, HalfCheetah's 18-number state, Box(6) actions, the five infos plus the
  22-number simulator state per step (``infos["sim_state"]``, float64), as real HalfCheetah,
  Meta-World and LIBERO data store.

Each layout stores the same episodes under the id ``imaginebench/clevr-train-real-v0`` (the
long ones under ``halfcheetah-train-real-v0``) in a Minari root of its own. Columns:

- ``overhead/ep``: (bytes of the data files - bytes of the arrays) / episodes, the arrays
  being every stored array's numpy bytes, the instruction counted as its UTF-8 bytes per
  observation (T+1 times);
- ``file``: the data files in bytes (``main_data.hdf5``, or every Arrow file), ``du``: the
  disk blocks they take (Arrow writes a folder and a file per episode: 4 KiB blocks each);
- ``write``: seconds to write them (in this process);
- ``minari load``: a fresh Python process runs ``minari.load_dataset(id)`` and reads every
  episode with ``iterate_episodes`` (seconds, imports excluded; the files are in the page
  cache, which cannot be dropped here);
- ``ib.load``: a fresh process runs ``imaginebench_data.load(id)`` with an empty cache
  (Minari read, flatten, checksum check; imports excluded).

Layouts: Minari's own writer (HDF5, which this package used before, and Arrow), and h5py
writing Minari's HDF5 layout (``datasets/hdf5_layout.py``) with one setting changed at a time,
ending at the layout the package writes (``write_dataset``).

Usage: python benchmarks/storage_layout.py [--episodes 1000] [--arrow-episodes 300] [--kinds clevr long]
Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import minari
import numpy as np

from imaginebench_data.cards.card import Card
from imaginebench_data.core.episode import Episode
from imaginebench_data.core.text import observation_space
from imaginebench_data.datasets import hdf5_layout, writer
from imaginebench_data.datasets.checksum import DatasetChecksum
from imaginebench_data.datasets.read import CARD_KEY
from imaginebench_data.domains import get_domain

INSTRUCTION = "Push the red ball so that it ends up behind the blue ball."
KINDS = {  # kind -> (domain, steps, simulator-state size or 0)
    "clevr": ("clevr", 20, 0),
    "long": ("halfcheetah", 200, 22),
}


def synthetic_episodes(domain_name: str, count: int, steps: int, sim_size: int = 0) -> list[Episode]:
    """``count`` episodes of ``steps`` steps with the domain's spaces and dtypes and the checkers'
    infos (``sim_size`` > 0: a simulator state of that size per step); random values, seeded,
    so every layout gets the same arrays."""
    domain, rng = get_domain(domain_name), np.random.default_rng(0)
    domain.action_space.seed(0)
    result = []
    for index in range(count):
        states = rng.normal(size=(steps + 1, *domain.state_space.shape)).astype(np.float32)
        actions = np.asarray([domain.action_space.sample() for _ in range(steps)], domain.action_space.dtype)
        ends = np.zeros(steps, bool)
        ends[-1] = True
        errors = rng.random(steps + 1).astype(np.float32) * 1e-3
        infos = {"success": np.r_[np.zeros(steps, bool), True], "legal": np.ones(steps + 1, bool),
                 "illegal_mask": np.zeros(steps + 1, np.int32), "transition_error": errors,
                 "transition_ok": np.ones(steps + 1, bool)}
        sim_states = rng.normal(size=(steps + 1, sim_size)) if sim_size else None
        if sim_states is not None:
            infos["sim_state"] = sim_states
        rewards = rng.normal(size=steps).astype(np.float32)
        result.append(Episode(states=states, actions=actions, rewards=rewards, terminations=ends,
                              truncations=np.zeros(steps, bool), instruction=INSTRUCTION,
                              task_id="red-behind-blue", level="train", phrasing_id=index % 7, seed=index,
                              source="real", infos=infos, sim_states=sim_states))
    return result


def episodes(kind: str, count: int) -> list[Episode]:
    return synthetic_episodes(KINDS[kind][0], count, *KINDS[kind][1:])


def array_bytes(episode: Episode, infos: bool = True) -> int:
    arrays = [episode.states, episode.actions, episode.rewards, episode.terminations, episode.truncations,
              *(episode.infos.values() if infos else ())]
    return sum(np.asarray(a).nbytes for a in arrays) + len(episode.instruction.encode()) * len(episode.states)


def card(dataset_id: str, domain: str, checksum: str) -> Card:
    level, source = dataset_id.split("-")[1:3]
    return Card(id=dataset_id, domain=domain, level=level, source=source, scale="benchmark", episodes=0,
                steps=0, tasks=0, phrasings=0, goal_consistency=0.0, transition_error_rate=0.0,
                illegal_state_rate=0.0, illegal_by_kind={}, length={}, returns={}, per_task={},
                provenance={}, checksum=checksum)


def _minari_dataset(dataset_id: str, domain, buffers: list, data_format: str = "hdf5"):
    return minari.create_dataset_from_buffers(
        dataset_id, buffers, observation_space=observation_space(domain.state_space),
        action_space=domain.action_space, algorithm_name="benchmark", author="benchmark",
        code_permalink="benchmarks/storage_layout.py", description="benchmark", data_format=data_format)


def _card_metadata(dataset_id: str, domain, checksum: DatasetChecksum) -> dict:
    return {CARD_KEY: card(dataset_id, domain.name, checksum.hexdigest()).to_json()}


def minari_writer(data_format: str, infos: bool = True) -> Callable:
    """Minari's ``create_dataset_from_buffers`` (the package's writer before the compact layout)."""
    def write(dataset_id: str, kind_episodes: list[Episode], domain) -> None:
        checksum = DatasetChecksum()
        buffers = list(writer._buffers(kind_episodes, domain, lambda e: None, checksum))
        if not infos:
            buffers = [dataclasses.replace(buffer, infos={}) for buffer in buffers]
        dataset = _minari_dataset(dataset_id, domain, buffers, data_format)
        dataset.storage.update_metadata(_card_metadata(dataset_id, domain, checksum))
    return write


def h5py_writer(**settings) -> Callable:
    """Minari's metadata, then ``hdf5_layout.write_file`` with ``settings`` for the episodes."""
    def write(dataset_id: str, kind_episodes: list[Episode], domain) -> None:
        checksum = DatasetChecksum()
        dataset = _minari_dataset(dataset_id, domain, [])
        buffers = writer._buffers(kind_episodes, domain, lambda e: None, checksum)
        count, steps = hdf5_layout.write_file(dataset.storage.data_path / hdf5_layout.MAIN_FILE, buffers,
                                              **settings)
        dataset.storage.update_metadata({"total_episodes": count, "total_steps": steps,
                                         **_card_metadata(dataset_id, domain, checksum)})
    return write


def package_writer(dataset_id: str, kind_episodes: list[Episode], domain) -> None:
    """The package's writer, as every build uses it."""
    writer.write_dataset(dataset_id, kind_episodes, domain, on_episode=lambda e: None,
                         make_card=lambda checksum: card(dataset_id, domain.name, checksum),
                         description="benchmark")


CONTIGUOUS = {"compact_bytes": 0, "minimized": False}
LAYOUTS = [  # (name, writer, Arrow?); the one without infos stores less (and so no sim_state)
    ("Minari HDF5 (before: chunked, HDF5 1.6 format, vlen text)", minari_writer("hdf5"), False),
    ("Minari Arrow, no infos", minari_writer("arrow", infos=False), True),
    ("Minari Arrow, with infos", minari_writer("arrow"), True),
    ("h5py, chunked + gzip, v1.8 format", h5py_writer(dataset_options={"chunks": True, "compression": "gzip"},
                                                     minimized=False), False),
    ("h5py, contiguous, HDF5 1.6 format", h5py_writer(libver="earliest", **CONTIGUOUS), False),
    ("h5py, contiguous, v1.8 format", h5py_writer(**CONTIGUOUS), False),
    ("h5py, compact arrays, v1.8 format", h5py_writer(minimized=False), False),
    ("h5py, compact + minimized headers (chosen)", h5py_writer(), False),
    ("write_dataset (the package's writer)", package_writer, False),
]

LOAD = {  # what a fresh process times (after its imports)
    "minari": ("import minari, time; t = time.perf_counter(); ds = minari.load_dataset({id!r}); "
               "n = sum(len(e) for e in ds.iterate_episodes()); print(time.perf_counter() - t)"),
    "ib": ("import imaginebench_data as ib, time; t = time.perf_counter(); ib.load({id!r}); "
           "print(time.perf_counter() - t)"),
}


def fresh_load(what: str, dataset_id: str, root: Path) -> str:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "MINARI_DATASETS_PATH": str(root), "IMAGINEBENCH_CACHE": cache}
        done = subprocess.run([sys.executable, "-c", LOAD[what].format(id=dataset_id)], env=env,
                              capture_output=True, text=True)
    if done.returncode:  # the exception's name
        return "fails: " + done.stderr.strip().splitlines()[-1].split(":")[0].split(".")[-1]
    return f"{float(done.stdout.split()[-1]):.2f} s"


def measure(kind: str, count: int, arrow_count: int, root: Path) -> list[str]:
    name = KINDS[kind][0]
    dataset_id = f"imaginebench/{name}-train-real-v0"
    domain = get_domain(name)
    rows = []
    for index, (layout, write, arrow) in enumerate(LAYOUTS):
        n = arrow_count if arrow else count
        kind_episodes = episodes(kind, n)
        payload = sum(array_bytes(episode, infos="no infos" not in layout) for episode in kind_episodes)
        layout_root = root / f"{kind}-{index}"
        os.environ["MINARI_DATASETS_PATH"] = str(layout_root)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write(dataset_id, kind_episodes, domain)
        seconds = time.perf_counter() - start
        data = layout_root / dataset_id / "data"
        files = [p for p in data.rglob("*") if p.is_file() and p.name != "metadata.json"]
        size = sum(p.stat().st_size for p in files)
        disk = sum(p.stat().st_blocks * 512 for p in files)
        loads = [fresh_load(what, dataset_id, layout_root) for what in ("minari", "ib")]
        rows.append(f"| {kind} | {layout} | {n} | {(size - payload) / n:,.0f} | {size / 1e6:.2f} MB | "
                    f"{disk / 1e6:.2f} MB | {seconds:.1f} s | {loads[0]} | {loads[1]} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--arrow-episodes", type=int, default=300,
                        help="Minari's Arrow writer is quadratic in episodes (minutes at 1,000)")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    args = parser.parse_args()
    header = ["| episode | layout | episodes | overhead/ep (B) | file | du | write | minari load | ib.load |",
              "|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as root:
        rows = [row for kind in args.kinds
                for row in measure(kind, args.episodes, args.arrow_episodes, Path(root))]
    array_sizes = {kind: json.dumps(array_bytes(episodes(kind, 1)[0])) for kind in args.kinds}
    print("\n".join(header + rows))
    print("\narray bytes per episode: " + ", ".join(f"{k} {v}" for k, v in array_sizes.items()))


if __name__ == "__main__":
    main()
