"""The paper's comparison: a policy trained on each data regime, evaluated on each level.

Regimes for a level L (every batch mixes its datasets in these ratios):

- ``real``: the real training set only (``<domain>-train-real``);
- ``real+imaginary``: training set and L's imaginary rollouts, 1:1 in every batch (the
  papers' mix; the original code pools instead);
- ``real+verified``: training set and L's verified imagined rollouts (only those that passed
  every checker), 1:1;
- ``oracle``: training set and L's real expert rollouts, 1:1 (what perfect imagination would give).

A regime whose dataset is not built (a verified set where no episode passed) is skipped, and
the table says so.

Budgets: ``demo`` trains 5,000 steps per run; ``paper`` trains the original's 500,000 steps.

The train level has only ``real``. Each (level, regime) is trained with several seeds and
evaluated in the level's eval env, tasks cycled evenly. Algorithms: ``bc`` (plain torch,
``baselines.bc``) or d3rlpy's ``cql`` / ``td3+bc`` (``baselines.offline``, in d3rlpy's
environment).

A policy is trained once per (datasets, seed) and evaluated on every level that uses those
datasets: ``real`` is the same training set at every level, so a comparison of the four levels
trains each seed's real-only policy once instead of four times (the rows are the same as with
one training per row: a sampling policy's draws are rewound to their seed before each
evaluation). The row that trained the policy says so (``trains``) and its ``seconds`` include
the training; the others count their evaluation only.

Trainings are independent (each seeds its own training and its evaluations), so ``workers`` > 1
spreads them over that many spawned processes. Every training runs on ``BASELINE_THREADS``
(one) torch thread, in one process or many: with 2 threads each, 2 workers on 2 cores ran about
20x slower than with one thread each, the threads of one waiting busily for cores the other
holds; and the thread count changes the bits (BC gave the same bits with 1 and 2 threads on
CLEVR and Meta-World on 2026-11-26, not on HalfCheetah on 2026-12-03), so the rows are the same
whatever ``workers`` is. ``tests/test_adapters_bc.py`` compares 1 and 2 workers and checks the
thread count a training sees. Use as many workers as cores.

A long comparison (continuous CQL on Meta-World: about 20 CPU-minutes a training) can keep a
``journal``: a CSV to which each training's rows are appended as it finishes, with a key of its
settings and the datasets it trains on. Run again with the same journal and settings, the trainings
whose rows it holds are not run again, so a killed run goes on where it stopped, to the rows it
would have given in one go (each training seeds itself); as the key is the training's, not the
comparison's, a run asking for fewer or more levels or seeds reads back every training they
share. Rows under another key are ignored, and kept. The journal outlives its comparison, so a
finished run asked again for more seeds trains only the new ones; the key holds the versions of
this package, torch and d3rlpy, but not the code of a checkout changed in between: delete the
journal to train everything again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from ..adapters.d3rlpy import ROWS_VERSION
from ..core import interrupt
from ..core.task import LEVELS
from ..datasets.read import local_ids, read_card
from ..domains import get_domain
from ..imagine.determinism import intra_op_threads
from ..loader.evaluate import evaluate
from ..loader.sampler import Sampler
from ..loader.transitions import load
from . import against_real
from .bc import BCSettings, train_bc
from .offline import ALGORITHMS, OfflineSettings, train_offline

ALGOS = ("bc", *ALGORITHMS)
REGIMES = ("real", "real+imaginary", "real+verified", "oracle")
BUDGETS = {"demo": 5_000, "paper": 500_000}  # gradient steps per run
MIN_EPISODES = 40
# A training's rows must not depend on --workers or the core count: a matrix product's sums split
# over the intra-op threads, so HalfCheetah's training-task BC (seed 0) ended at loss 0.07405 on one
# worker with 2 threads and 0.07965 on two with one each (2026-12-03, a 2-core AMD EPYC). Every
# training runs on one thread, as the committed tables' did (2 workers on 2 cores).
BASELINE_THREADS = 1
JOURNAL_COLUMNS = ("domain", "algo", "level", "regime", "seed", "success_rate", "episodes", "final_loss",
                   "trains", "seconds", "settings")  # a row of train_and_evaluate's, and its settings' key


def regime_datasets(domain: str, level: str, regime: str) -> dict[str, float]:
    train = f"imaginebench/{domain}-train-real-v0"
    if regime == "real":
        return {train: 1.0}
    if level == "train":
        raise ValueError(f"the train level has only the 'real' regime, not {regime!r}")
    other = {"real+imaginary": "imaginary", "real+verified": "verified", "oracle": "real"}[regime]
    return {train: 0.5, f"imaginebench/{domain}-{level}-{other}-v0": 0.5}


def eval_episodes(domain: str, level: str) -> int:
    """At least ``MIN_EPISODES``, a whole number of rounds over the level's tasks."""
    n_tasks = len(get_domain(domain).tasks(level))
    return n_tasks * max(1, -(-MIN_EPISODES // n_tasks))


def train_policy(algo: str, datasets: dict[str, float], steps: int, seed: int, encoder: str,
                 samplers: dict, options: dict | None = None) -> tuple:
    """``algo`` trained for ``steps`` steps on ``datasets``: (policy, losses). ``samplers``
    caches BC's samplers across seeds (their instruction embeddings are computed once);
    ``options``: the algorithm's other settings, ``BCSettings`` fields for bc (e.g. hidden,
    dropout), ``OfflineSettings`` fields otherwise (e.g. ``config``, d3rlpy's config fields)."""
    if algo != "bc":
        settings = OfflineSettings(steps=steps, seed=seed, **(options or {}))
        return train_offline(algo, datasets, settings, encoder=encoder)
    key = tuple(datasets.items())
    if key not in samplers:
        samplers[key] = Sampler({load(i): r for i, r in datasets.items()}, encoder=encoder)
    return train_bc(samplers[key], BCSettings(steps=steps, seed=seed, **(options or {})))


def compare(domain: str = "clevr", algo: str = "bc", levels=LEVELS, regimes=REGIMES, seeds: int = 3,
            steps: int = 5000, encoder: str = "minilm", progress: bool = True,
            options: dict | None = None, workers: int = 1, journal: Path | None = None) -> pd.DataFrame:
    """One row per (level, regime, seed) asked for: success rate, evaluation episodes, final loss, whether
    the row trained its policy (``trains``; else it shares the policy of an earlier row with the
    same datasets and seed), seconds.
    ``options``: the algorithm's other settings (``BCSettings`` fields for bc, e.g.
    ``{"hidden": 512, "dropout": 0.2}``; ``OfflineSettings`` fields for cql and td3+bc, e.g.
    ``{"config": {"target_update_interval": 500}, "sample": True}``);
    ``workers``: processes running the trainings (the same rows whatever the number);
    ``journal``: a CSV keeping each finished training's rows, read back instead of training
    again when the settings match (the module's docstring). Rows are
    repeatable on one CPU model: the learners train with the CPU's own kernels, so another CPU
    may give other last bits (docs/experiments.md, 2026-11-28)."""
    if algo not in ALGOS:
        raise ValueError(f"unknown algorithm {algo!r}; expected one of {', '.join(ALGOS)}")
    for kind, asked, known in (("level", levels, LEVELS), ("regime", regimes, REGIMES)):
        for name in asked:
            if name not in known:
                raise ValueError(f"unknown {kind} {name!r}; expected one of {', '.join(known)}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    built = set(local_ids())
    cells = [(level, regime, seed) for level in levels for regime in regimes for seed in range(seeds)
             if not (level == "train" and regime != "real")
             and set(regime_datasets(domain, level, regime)) <= built]
    if not cells:
        raise ValueError(f"nothing to compare on {domain}: no level and regime asked for has its datasets "
                         f"built (the train level has the real regime only)")
    groups: dict[tuple, list[tuple[str, str]]] = {}  # (datasets, seed) -> the (level, regime)s using it
    for level, regime, seed in cells:
        datasets = tuple(regime_datasets(domain, level, regime).items())
        groups.setdefault((datasets, seed), []).append((level, regime))
    keys = {datasets: _settings_key(domain, algo, steps, encoder, options, dict(datasets))
            for datasets, _ in groups} if journal else {}
    kept = _read_journal(journal) if journal else {}
    parts, trainings = [], []  # the rows read back from the journal; the trainings still to run
    for (datasets, seed), uses in groups.items():
        found = [kept.get((keys.get(datasets), level, regime, seed)) for level, regime in uses]
        if all(found):  # `trains` on the first row of this run's uses, as a training here would mark
            parts.append([{**row, "trains": index == 0} for index, row in enumerate(found)])
        else:
            trainings.append((domain, algo, dict(datasets), seed, steps, encoder, options, uses))
    if journal:  # every whole row kept, under any key: another run may ask for it again
        _start_journal(journal, kept)
        if parts and progress:
            tqdm.write(f"{journal}: {len(parts)} of {len(groups)} trainings read back (same settings and "
                       f"datasets; delete it to train them again); {len(trainings)} to run")

    def finished(part: list[dict], training: tuple) -> None:
        if journal:  # the training's datasets, as in groups: (dataset, ratio) pairs
            _append_journal(journal, keys[tuple(training[2].items())], part)
        parts.append(part)
        bar.update(len(part))

    with tqdm(total=len(cells), initial=sum(map(len, parts)), desc=f"{algo} regimes on {domain}",
              disable=not progress) as bar:  # closed, its line ended, before an error's or interrupt's line
        if workers == 1 or len(trainings) < 2:
            samplers: dict = {}  # instruction embeddings computed once per mix, across seeds
            for training in trainings:
                finished(train_and_evaluate(*training, samplers=samplers), training)
        else:
            _train_in_pool(trainings, workers, finished)
    rows = {(row["level"], row["regime"], row["seed"]): row for part in parts for row in part}
    results = pd.DataFrame([rows[cell] for cell in cells])  # in (level, regime, seed) order
    results.attrs["read_back"] = len(groups) - len(trainings)  # trainings whose rows came from the journal
    return results


def _train_in_pool(trainings: list[tuple], workers: int,
                   finished: Callable[[list[dict], tuple], None]) -> None:
    """Every training on a pool of ``workers`` processes, ``finished(rows, training)`` called as
    each ends."""
    with training_pool(min(workers, len(trainings))) as pool:
        try:
            with interrupt.starting_workers():  # the pool spawns its workers as jobs are submitted
                futures = {pool.submit(train_and_evaluate, *training): training for training in trainings}
            for future in as_completed(futures):
                finished(future.result(), futures[future])
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (core/interrupt.py): no training is waited for
            end_workers()
            raise
        finally:
            pool.shutdown(cancel_futures=True)


def training_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` spawned processes, each ending itself once this process is gone (one killed by
    a signal cannot end its pool: core/orphans.py). They ignore Ctrl-C (``interrupt.pool_worker``;
    submit jobs under ``interrupt.starting_workers``, as the pool spawns them then): the main
    process, which the same Ctrl-C interrupts, ends them (``end_workers``). Left to stop on their
    own, each would return its interrupted training as an error and take up the next one already
    queued, which ``cancel_futures`` cannot take back, and an idle one would print a traceback."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=interrupt.pool_worker, initargs=(os.getpid(),))


def end_workers() -> None:
    """Terminate this process's pool workers now (SIGTERM; their trainings' rows are not wanted)."""
    for worker in multiprocessing.active_children():
        worker.terminate()


def _settings_key(domain: str, algo: str, steps: int, encoder, options: dict | None,
                  datasets: dict[str, float]) -> str:
    """What makes a training's rows what they are, whichever comparison runs it: the settings,
    the versions of what trains, and the checksums and ratios of the datasets it trains on (a
    rebuilt dataset is other data)."""
    packages = ("imaginebench-data", "torch") + (() if algo == "bc" else ("d3rlpy",))
    versions = {package: _version(package) for package in packages}
    if algo != "bc":  # what the d3rlpy learners are given
        versions["to_d3rlpy rows"] = ROWS_VERSION
    settings = {"domain": domain, "algo": algo, "steps": steps, "encoder": str(encoder),
                "options": options or {}, "versions": versions,
                "datasets": {i: [read_card(i).checksum, ratio] for i, ratio in sorted(datasets.items())}}
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=repr).encode()).hexdigest()[:16]


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:  # not installed (run from a source tree)
        return None


def _read_journal(path: Path) -> dict[tuple, dict]:
    """The whole rows a journal holds, by (settings key, level, regime, seed); a line cut short
    by a kill is left out."""
    if not path.exists() or path.stat().st_size == 0:
        return {}
    try:
        rows = pd.read_csv(path, on_bad_lines="skip", float_precision="round_trip", dtype={"settings": str})
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: expected a comparison's journal (CSV rows), found what pandas cannot "
                         f"read ({type(error).__name__}); delete it to start afresh") from error
    expected = f"{path}: expected a comparison's journal (the columns {', '.join(JOURNAL_COLUMNS)})"
    if not set(JOURNAL_COLUMNS) <= set(rows.columns):
        raise ValueError(f"{expected}, found the columns {', '.join(map(str, rows.columns))}; delete it to "
                         f"start afresh")
    rows = rows[list(JOURNAL_COLUMNS)]
    # a line cut inside `trains` makes the column text, and astype(bool) reads "False" as True
    rows = rows.assign(trains=rows["trains"].map({True: True, False: False, "True": True, "False": False}))
    rows = rows.dropna()  # in the order the rows are appended
    try:  # as written, whatever a cut line held
        rows = rows.astype({"seed": int, "episodes": int, "trains": bool, "success_rate": float})
    except (ValueError, TypeError) as error:
        raise ValueError(f"{expected}, found a value of another kind ({error}); delete it to start afresh") \
            from error
    keys = rows.pop("settings")
    return {(key, row["level"], row["regime"], row["seed"]): row
            for key, row in zip(keys, rows.to_dict("records"))}


def _start_journal(path: Path, kept: dict[tuple, dict]) -> None:
    """The journal anew, holding the ``kept`` rows (by key, level, regime, seed, as
    ``_read_journal`` gives them; a line cut short is gone): written whole, then renamed over
    the old one."""
    if not kept:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(path.name + ".tmp")
    pd.DataFrame([{**row, "settings": cell[0]} for cell, row in kept.items()]).to_csv(staged, index=False)
    staged.replace(path)


def _append_journal(path: Path, key: str, part: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(part).assign(settings=key).to_csv(path, mode="a", header=not path.exists(), index=False)


_SAMPLERS: dict = {}  # a worker process's samplers, kept across the trainings it is given


@intra_op_threads(BASELINE_THREADS)
def train_and_evaluate(domain: str, algo: str, datasets: dict[str, float], seed: int, steps: int, encoder,
                       options: dict | None, uses: list[tuple[str, str]],
                       samplers: dict | None = None) -> list[dict]:
    """Train ``algo`` on ``datasets`` with ``seed`` once, and evaluate it at each (level, regime)
    of ``uses``: one row each, on ``BASELINE_THREADS`` threads."""
    started = time.perf_counter()
    policy, losses = train_policy(algo, datasets, steps, seed, encoder,
                                  _SAMPLERS if samplers is None else samplers, options)
    rows = []
    for level, regime in uses:
        policy.rewind()  # the draws of a freshly trained policy, whichever level came before
        result = evaluate(policy, domain, level, episodes=eval_episodes(domain, level), seed=1000 + seed,
                          progress=False)
        rows.append({"domain": domain, "algo": algo, "level": level, "regime": regime, "seed": seed,
                     "success_rate": result.attrs["success_rate"], "episodes": result.attrs["episodes"],
                     "final_loss": losses[-1], "trains": not rows,
                     "seconds": round(time.perf_counter() - started, 1)})
        started = time.perf_counter()
    return rows


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of the success rate over seeds, by level and regime."""
    grouped = results.groupby(["level", "regime"], sort=False)["success_rate"]
    return grouped.agg(mean="mean", std="std", seeds="size").reset_index()


def regimes_run(frame: pd.DataFrame) -> list[str]:
    """The regimes a results or summary frame holds, in ``REGIMES`` order."""
    return [r for r in REGIMES if r in set(frame["regime"])]


def levels_run(frame: pd.DataFrame) -> list[str]:
    """The levels a results or summary frame holds, in ``LEVELS`` order."""
    return [lv for lv in LEVELS if lv in set(frame["level"])]


def markdown_table(table: pd.DataFrame) -> str:
    regimes = regimes_run(table)
    lines = ["| level | " + " | ".join(regimes) + " |", "|---|" + "---|" * len(regimes)]
    for level in levels_run(table):
        cells = []
        for regime in regimes:
            row = table[(table["level"] == level) & (table["regime"] == regime)]
            mean, std = (100 * row[k].iloc[0] for k in ("mean", "std")) if not row.empty else (0, 0)
            spread = f" ± {std:.1f}" if std == std else ""  # one seed: no spread (NaN)
            cells.append("" if row.empty else f"{mean:.1f}%{spread}")
        lines.append(f"| {level} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def benchmark_table(every: list[pd.DataFrame]) -> str:
    """One Markdown table of several domains' results: a row per (domain, level)."""
    tables = [(results["domain"].iloc[0], markdown_table(summary(results)).splitlines()) for results in every]
    header = "| domain | level | " + " | ".join(REGIMES) + " |"
    lines = [header, "|---|---|" + "---|" * len(REGIMES)]
    for domain, table in tables:
        columns = [c.strip() for c in table[0].strip("|").split("|")][1:]
        for row in table[2:]:
            cells = [c.strip() for c in row.strip("|").split("|")]
            by_regime = dict(zip(columns, cells[1:]))
            row_cells = " | ".join(by_regime.get(r, "") for r in REGIMES)
            lines.append(f"| {domain} | {cells[0]} | {row_cells} |")
    return "\n".join(lines)


def write_results(results: pd.DataFrame, out_dir: Path, note: str = "") -> list[Path]:
    """``<domain>-<algo>.csv`` (every run), ``.md`` (the mean ± std table, then each regime against
    real-only: ``against_real``) and ``.png`` (bar plot)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    domain, algo = results["domain"].iloc[0], results["algo"].iloc[0]
    table = summary(results)
    paths = [out_dir / f"{domain}-{algo}.{ext}" for ext in ("csv", "md", "png")]
    results.to_csv(paths[0], index=False)
    seeds = int(results["seed"].nunique())
    spread = "One seed (no spread)." if seeds == 1 else f"Mean ± standard deviation over {seeds} seeds."
    regimes = regimes_run(results)
    skipped = [r for r in REGIMES if r not in regimes]
    if skipped:
        note += f" Not in this comparison (not asked for, or its dataset is not built): {', '.join(skipped)}."
    text = (f"# {algo.upper()} success rate on {domain} by level and data regime\n\n"
            f"{spread} {note}\n\n{markdown_table(table)}\n")
    versus = against_real.against_real(results)
    if not versus.empty:
        text += against_real.section("\n".join(against_real.markdown(versus, regimes)))
    paths[1].write_text(text)
    intervals = versus.dropna(subset=["low"])
    fig, axes = plt.subplots(1, 2 if len(intervals) else 1, figsize=(14 if len(intervals) else 8, 4),
                             constrained_layout=True, squeeze=False)
    ax = axes[0, 0]
    levels = levels_run(table)
    width = 0.8 / len(regimes)  # only the regimes run: no empty slot or legend entry
    for k, regime in enumerate(regimes):
        part = table[table["regime"] == regime].set_index("level").reindex(levels)
        xs = [i + (k - (len(regimes) - 1) / 2) * width for i in range(len(levels))]
        ax.bar(xs, part["mean"], width, yerr=part["std"].fillna(0), label=regime, capsize=3,
               color=f"C{REGIMES.index(regime)}")  # a regime's colour whatever the others
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylabel("success rate")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title(f"{algo.upper()} on {domain}: success by level and data regime "
                 f"({seeds} seed{'s' if seeds != 1 else ''})")
    if len(intervals):
        against_real.plot(axes[0, 1], intervals, [lv for lv in levels if lv in set(intervals["level"])],
                          [r for r in regimes if r != "real"], REGIMES)
    fig.savefig(paths[2], dpi=80)
    plt.close(fig)
    return paths
