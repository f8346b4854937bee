"""Loader speed, measured side by side in one run: first load (Minari read + flatten) against
the cached reload, and Minari's own episode sampling against the Sampler's batches.

Usage: python benchmarks/loader_speed.py [dataset id]   (default: the demo train set)
Prints times and the ratios; asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
import time

import minari
import numpy as np

import imaginebench_data as ib


def timed(fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main(dataset_id: str) -> None:
    with tempfile.TemporaryDirectory() as cache:
        cold = timed(lambda: ib.load(dataset_id, cache_dir=cache))
        warm = timed(lambda: ib.load(dataset_id, cache_dir=cache), repeat=5)
        transitions = ib.load(dataset_id, cache_dir=cache)
    dataset = minari.load_dataset(dataset_id)
    episodes_per_batch = max(1, int(round(256 / np.mean(transitions.episodes["length"]))))
    minari_batch = timed(lambda: dataset.sample_episodes(episodes_per_batch), repeat=20)
    sampler = ib.Sampler({transitions: 1.0}, encoder=None)
    sampler_batch = timed(lambda: sampler.sample(256, as_numpy=True), repeat=200)
    print(f"dataset {dataset_id}: {len(transitions)} transitions, {len(transitions.episodes)} episodes")
    print(f"first load (Minari + flatten): {cold * 1e3:9.1f} ms")
    print(f"cached reload:                 {warm * 1e3:9.1f} ms   ratio {cold / warm:6.1f}x faster")
    print(f"Minari sample_episodes (~256 steps, {episodes_per_batch} episodes): {minari_batch * 1e3:7.3f} ms")
    print(f"Sampler batch of 256 transitions:                {sampler_batch * 1e3:7.3f} ms   "
          f"ratio {minari_batch / sampler_batch:6.1f}x faster")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "imaginebench/clevr-train-real-v0")
