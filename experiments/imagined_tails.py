"""BC on real + imagined data, the imagined rollouts' failed tails kept, cut or left out.

An imagined rollout whose goal never holds runs to its task's time limit, so a few failed
rollouts can carry most of an imagined set's transitions (LIBERO rephrase: 4 of 48 episodes, 2,000
of 4,167 steps). BC draws transitions uniformly, so they are that share of the imagined half of
every batch. This trains BC as ``imaginebench evaluate`` does (5,000 steps of 256, the same
seeds, one torch thread) on the training set and a level's imagined set 1:1, the imagined set
taken as it is and in variants, and evaluates each policy on the level's eval env:

- ``real``: the training set alone (the benchmark's real-only cell);
- ``imagined``: the imagined set as built (the benchmark's real+imaginary cell);
- ``cut:K``: every imagined episode cut to its first K steps;
- ``cut-real:F``: the same with K = F x the longest episode of the domain's real training set;
- ``clean``: only the goal-consistent (and legal) imagined episodes (the Sampler's "clean").

    MINARI_DATASETS_PATH=... python experiments/imagined_tails.py DOMAIN LEVEL [--seeds 3]
        [--workers 2] VARIANT ...

Prints each variant's success (mean ± std over the seeds, and per seed) and the imagined
transitions it keeps.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from imaginebench_data.baselines.compare import BUDGETS, train_and_evaluate
from imaginebench_data.loader.sampler import Sampler
from imaginebench_data.loader.transitions import Transitions, load


def rows_of(transitions: Transitions, keep: np.ndarray) -> Transitions:
    """``transitions`` with only the rows where ``keep`` holds (per-row arrays cut alike)."""
    columns = {field.name: getattr(transitions, field.name) for field in dataclasses.fields(transitions)}
    rows = {name: value[keep] for name, value in columns.items()
            if isinstance(value, np.ndarray) and len(value) == len(transitions)}
    return dataclasses.replace(transitions, **rows)


def parse_variant(variant: str) -> tuple[str, float | None]:
    """``(name, number)`` of a variant (``"cut-real:1.5"`` -> ``("cut-real", 1.5)``)."""
    name, _, value = variant.partition(":")
    if name in ("real", "imagined", "clean") and not value:
        return name, None
    if name in ("cut", "cut-real") and value.replace(".", "", 1).isdigit():
        return name, float(value)
    raise ValueError(f"unknown variant {variant!r}: expected real, imagined, clean, cut:K or cut-real:F")


def variant_mix(domain: str, level: str, variant: str) -> tuple[dict[str, float], Sampler | None, str]:
    """The datasets of ``variant``'s regime, the Sampler to train on them (None: the datasets as
    built) and a line saying what of the imagined set it keeps."""
    train_id = f"imaginebench/{domain}-train-real-v0"
    imagined_id = f"imaginebench/{domain}-{level}-imaginary-v0"
    name, number = parse_variant(variant)
    if name == "real":
        return {train_id: 1.0}, None, "no imagined data"
    train, imagined = load(train_id), load(imagined_id)
    if name == "imagined":
        keep = np.ones(len(imagined), bool)
    elif name == "clean":
        keep = imagined.goal_consistent & imagined.legal
    else:
        longest = int(np.max(train.episodes["length"])) if name == "cut-real" else 1
        keep = imagined.steps < int(round(number * longest))
    kept = rows_of(imagined, keep)
    line = (f"{int(keep.sum())} of {len(imagined)} imagined transitions, "
            f"{len(np.unique(kept.episode_ids))} episodes")
    return {train_id: 0.5, imagined_id: 0.5}, Sampler({train: 0.5, kept: 0.5}, encoder="minilm"), line


def train_and_score(domain: str, level: str, variant: str, seed: int) -> tuple[str, int, float, str]:
    """The benchmark's own training and evaluation (``compare.train_and_evaluate``), on the
    variant's Sampler where it has one (``samplers`` is the cache that function reads first)."""
    datasets, sampler, line = variant_mix(domain, level, variant)
    samplers = {} if sampler is None else {tuple(datasets.items()): sampler}
    [row] = train_and_evaluate(domain, "bc", datasets, seed, BUDGETS["demo"], "minilm", None,
                               [(level, variant)], samplers=samplers)
    return variant, seed, float(row["success_rate"]), line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain")
    parser.add_argument("level")
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for variant in args.variants:  # refused here, before any worker starts
        try:
            parse_variant(variant)
        except ValueError as error:
            parser.error(str(error))
    jobs = [(args.domain, args.level, variant, seed)
            for variant in args.variants for seed in range(args.seeds)]
    results: dict[str, list[float]] = {}
    lines: dict[str, str] = {}
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for variant, seed, rate, line in pool.map(train_and_score, *zip(*jobs)):
            results.setdefault(variant, []).append(rate)
            lines[variant] = line
            print(f"{variant:16s} seed {seed}: {100 * rate:.1f}%  ({line})", flush=True)
    for variant, rates in results.items():
        rates = 100 * np.array(rates)
        spread = rates.std(ddof=1) if len(rates) > 1 else 0.0  # pandas' std, as the benchmark table's
        print(f"{args.domain} {args.level} {variant:16s} {rates.mean():.1f}% ± {spread:.1f}"
              f"  seeds {' / '.join(f'{r:.1f}' for r in rates)}  ({lines[variant]})")


if __name__ == "__main__":
    main()
