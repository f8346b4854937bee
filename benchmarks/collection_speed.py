"""Collection speed, measured side by side in one run:

- ``imaginebench build <id> --workers 2`` against ``--workers 1`` (the whole command, wall
  clock), for BabyAI's train set and a CLEVR build of ``--clevr-episodes`` episodes, each
  into a temporary Minari folder; the builds of one id must give the same checksum and the
  same bytes of ``main_data.hdf5`` whatever the number of workers;
- the collection phase alone, in one process with its imports done: the episodes rolled out
  and checked by ``--workers`` local workers, then validated, hashed and written to HDF5 by
  the main process (``expert_episodes`` into the writer's buffers), from the pool's start to
  the file's close; what the command adds around it (starting Python and its imports,
  Minari's metadata, the card's plots) is the same for any number of workers;
- per episode, what a worker does (roll out and check) against what the main process does
  (unpickle, validate, hash, write the HDF5 group): with two workers the speedup is bound at
  ``(worker + main) / max(worker / 2, main, (worker + main) / cores)``, by the main process
  and by the cores the three processes share;
- a CLEVR reset (``episode_start``: task, phrasing and a random scene whose balls are apart)
  against the random scenes drawn and checked one try at a time, as before issue 16.

Usage: python benchmarks/collection_speed.py [--rounds 2] [--clevr-episodes 200] [--babyai-episodes N ...]
Times are the best of ``--rounds``; prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

GOAL_SPEEDUP = 1.8  # 2 workers at least this many times faster than 1
CLI = [sys.executable, "-m", "imaginebench_data"]  # the imaginebench command, this interpreter


def build(dataset_id: str, workers: int, workdir: Path, episodes: int | None) -> tuple[float, str, str]:
    """Seconds of one ``imaginebench build``, the card's checksum and the HDF5 file's sha256."""
    root, cards = workdir / f"minari-{workers}", workdir / f"cards-{workers}"
    env = {**os.environ, "MINARI_DATASETS_PATH": str(root), "IMAGINEBENCH_CACHE": str(workdir / "cache")}
    command = [*CLI, "build", dataset_id, "--workers", str(workers), "--force", "--cards-dir", str(cards)]
    if episodes is not None:
        command += ["--episodes", str(episodes)]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    name = dataset_id.split("/")[1]
    checksum = json.loads((cards / f"{name}.json").read_text())["checksum"]
    data = root / dataset_id / "data" / "main_data.hdf5"
    return seconds, checksum, hashlib.sha256(data.read_bytes()).hexdigest()


def one_against_two(label: str, run: Callable[[int], tuple[float, tuple[str, ...]]], rounds: int,
                    what: str) -> None:
    """Print the speedup of ``run(2)`` over ``run(1)`` (best seconds of ``rounds`` rounds, the
    two alternating) and whether every run gave the same ``what`` (``run`` returns its seconds
    and the digests of what it wrote, the dataset's checksum first)."""
    times: dict[int, list[float]] = {1: [], 2: []}
    digests = set()
    for _ in range(rounds):
        for workers in (1, 2):
            seconds, digest = run(workers)
            times[workers].append(seconds)
            digests.add(digest)
    one, two = min(times[1]), min(times[2])
    speedup = one / two
    same = (f"same {what}; checksum {next(iter(digests))[0][:12]}" if len(digests) == 1
            else f"DIFFERENT results: {sorted(digests)}")
    print(f"{label}: --workers 2 {two:6.2f} s | --workers 1 {one:6.2f} s | speedup {speedup:4.2f}x  "
          f"goal >= {GOAL_SPEEDUP}x: {'met' if speedup >= GOAL_SPEEDUP else 'NOT met'}  ({same})")


def workers_speedup(dataset_id: str, episodes: int | None, rounds: int, workdir: Path) -> None:
    """The whole command; its digest is the card's checksum and the HDF5 file's sha256."""
    def run(workers: int) -> tuple[float, tuple[str, str]]:
        seconds, checksum, file_hash = build(dataset_id, workers, workdir, episodes)
        return seconds, (checksum, file_hash)

    size = f"{episodes} episodes" if episodes else "demo scale"
    one_against_two(f"{dataset_id} ({size})", run, rounds, "checksum and bytes")


def collection_phase(dataset_id: str, count: int | None, rounds: int, workdir: Path) -> None:
    from imaginebench_data.datasets import hdf5_layout
    from imaginebench_data.datasets.checksum import DatasetChecksum
    from imaginebench_data.datasets.writer import _buffers
    from imaginebench_data.domains import get_domain
    from imaginebench_data.pipeline.executors import make_executor
    from imaginebench_data.pipeline.generators import expert_episodes
    from imaginebench_data.pipeline.recipe import load_recipes

    recipe = load_recipes()[dataset_id]
    domain, count = get_domain(recipe.domain), count or recipe.episodes["demo"]

    def collect(workers: int) -> tuple[float, tuple[str]]:
        checksum = DatasetChecksum()
        start = time.perf_counter()
        runner = make_executor("local", workers)
        try:
            buffers = _buffers(expert_episodes(recipe, count, runner), domain, lambda episode: None, checksum)
            hdf5_layout.write_file(workdir / f"collect-{workers}.hdf5", buffers)
        finally:
            runner.close()
        return time.perf_counter() - start, (checksum.hexdigest(),)

    one_against_two(f"{dataset_id}, collection phase ({count} episodes)", collect, rounds, "checksum")


def per_episode(dataset_id: str, count: int, workdir: Path) -> None:
    import pickle

    from imaginebench_data.datasets import hdf5_layout
    from imaginebench_data.datasets.checksum import DatasetChecksum
    from imaginebench_data.datasets.writer import _buffers
    from imaginebench_data.pipeline.generators import _WORKER, _expert_job, _init_worker
    from imaginebench_data.pipeline.recipe import load_recipes
    from imaginebench_data.quality.frame import episode_row

    recipe = load_recipes()[dataset_id]
    _init_worker(recipe.domain)
    domain = _WORKER["domain"]
    start = time.perf_counter()
    episodes = [_expert_job((recipe.level, index, recipe.seed)) for index in range(count)]
    worker = (time.perf_counter() - start) / count

    def main_process() -> float:
        start = time.perf_counter()
        received = [pickle.loads(pickle.dumps(episode)) for episode in episodes]
        buffers = _buffers(received, domain, lambda e: episode_row(domain, e.metadata, e.rewards, e.infos),
                           DatasetChecksum())
        hdf5_layout.write_file(workdir / "per-episode.hdf5", buffers)
        return (time.perf_counter() - start) / count

    main = min(main_process() for _ in range(3))
    cores = min(3, os.cpu_count() or 1)  # two workers and the main process: 3 cores at most are used
    bound = (worker + main) / max(worker / 2, main, (worker + main) / cores)
    print(f"{dataset_id}, per episode ({count}): worker (roll out, check) {worker * 1e3:6.2f} ms | "
          "main process "
          f"(unpickle, validate, hash, write) {main * 1e3:6.2f} ms | 2-worker bound {bound:4.2f}x")


def one_try_at_a_time(rng: np.random.Generator) -> np.ndarray:
    """CLEVR's random scene as drawn before issue 16 (the reference)."""
    from imaginebench_data.domains.clevr import sim

    min_dist = 2 * sim.BALL_RADIUS + sim.SPAWN_GAP
    while True:
        centres = rng.uniform(sim.SPAWN_LOW, sim.SPAWN_HIGH, size=(sim.N_BALLS, 2))
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
        if np.all(gaps[np.triu_indices(sim.N_BALLS, 1)] >= min_dist):
            return centres.reshape(-1).astype(np.float32)


def clevr_reset(count: int = 200) -> None:
    from imaginebench_data.domains import get_domain
    from imaginebench_data.pipeline.rollout import episode_start

    domain = get_domain("clevr")
    sim = domain.simulator()

    def resets() -> float:
        start = time.perf_counter()
        for index in range(count):
            episode_start(domain, "train", index, 0, sim)
        return (time.perf_counter() - start) / count

    def scenes(draw) -> float:
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        for _ in range(count):
            draw(rng)
        return (time.perf_counter() - start) / count

    reset = min(resets() for _ in range(3))
    new = min(scenes(sim.random_state) for _ in range(3))
    old = min(scenes(one_try_at_a_time) for _ in range(3))
    print(f"CLEVR reset (episode_start): {reset * 1e3:7.3f} ms | random scene {new * 1e3:7.3f} ms, "
          "one try at a "
          f"time (before) {old * 1e3:7.3f} ms | ratio {new / old:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clevr-episodes", type=int, default=200, help="0: no CLEVR build")
    parser.add_argument("--babyai-episodes", type=int, nargs="*", default=[],
                        help="also time BabyAI's collection phase and build at these sizes (8400: paper)")
    args = parser.parse_args()
    clevr_reset()
    with tempfile.TemporaryDirectory() as tmp:
        per_episode("imaginebench/babyai-train-real-v0", 300, Path(tmp))
        for count in (None, *args.babyai_episodes):
            collection_phase("imaginebench/babyai-train-real-v0", count, args.rounds, Path(tmp))
            workers_speedup("imaginebench/babyai-train-real-v0", count, args.rounds, Path(tmp) / "babyai")
        if args.clevr_episodes:
            workers_speedup("imaginebench/clevr-train-real-v0", args.clevr_episodes, args.rounds,
                            Path(tmp) / "clevr")


if __name__ == "__main__":
    main()
