"""Grounding speed by batching, measured side by side in one run: one epoch of the default
model's grounding on a real dataset, with the sequences batched in the epoch's order (as the
builds do unless a domain says otherwise), with short sequences batched apart
(``--short-apart``), with pools of batches sorted by length (``--length-pool N``), and with
each batch run in parts of like lengths (``--length-split K``, the same mean losses).

Usage: python benchmarks/grounding_speed.py [DATASET] [--epochs 1] [--pools 32 0] [--splits 2 4]
The dataset must be built (default: imaginebench/clevr-train-real-v0, ``make demo``). Runs in
portable numerics, as the builds ground. Prints each variant's seconds per epoch (the training
loop only, from the checkpoint's training record) and its ratio to the first; asserts nothing.
A pool of 0 stands for the whole epoch sorted at once.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from imaginebench_data.imagine import numerics


def epoch_seconds(dataset_id: str, epochs: int, **levers) -> float:
    from imaginebench_data.datasets.ids import DatasetId
    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine.train import TrainSettings, train_grounding

    domain = get_domain(DatasetId.parse(dataset_id).domain)
    settings = TrainSettings.for_domain(domain, epochs=epochs, **levers)
    with tempfile.TemporaryDirectory() as out:
        train_grounding(dataset_id, Path(out), settings=settings, progress=False)
        return json.loads((Path(out) / "training.json").read_text())["seconds"] / epochs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", default="imaginebench/clevr-train-real-v0")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--pools", type=int, nargs="*", default=[32, 0],
                        help="length pools to time, in batches (0: the whole epoch)")
    parser.add_argument("--splits", type=int, nargs="*", default=[2, 4],
                        help="parts of like lengths to run each batch in")
    args = parser.parse_args()
    numerics.choose("portable")
    variants = {"in the epoch's order": {"short_apart": False, "length_pool": 0},
                "short sequences apart": {"short_apart": True, "length_pool": 0}}
    for pool in args.pools:
        variants[f"length pools of {pool or 'all'} batches"] = {"length_pool": pool or 10**9}
    for parts in args.splits:
        variants[f"each batch in {parts} parts"] = {"short_apart": False, "length_split": parts}
    first = None
    print(f"{args.dataset}: seconds per grounding epoch ({args.epochs} epoch(s) each)")
    for name, levers in variants.items():
        seconds = epoch_seconds(args.dataset, args.epochs, **levers)
        first = first or seconds
        print(f"  {name:32s} {seconds:7.1f} s   {first / seconds:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
