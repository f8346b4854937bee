"""Ground Meta-World's demo model under several settings and seeds at once, and probe each.

The question it answers: is the one-step rollouts' gain (docs/experiments.md, "Meta-World:
one-step rollouts") more than one seed's luck, and is it the one-step rollouts or only the
optimiser's 4.9 times as many steps? Three arms, each grounded with every seed:

- ``before``: no one-step rollouts, short sequences mixed in (460 batches at demo scale);
- ``one-step``: Meta-World's builds' settings (16 one-step rollouts, batched apart; 2,260);
- ``more-steps``: as ``before`` for 100 epochs instead of 20 (2,300 batches, no one-step).

Every arm has Meta-World's grounding levers as they are now: since 2026-11-30 that includes
the per-task hold-out (``holdout_per_task``). The runs in ``results/gpu/metaworld-seeds.jsonl``
were made before it, with every coffee-button episode held out (its 0% in every run).

Each grounding runs in its own process (several share one GPU: the demo model is too small
to keep one busy), then imagines the demo levels' prompts and scores them as the cards do.

It runs in two steps, so that the second needs neither the datasets nor the simulator nor
the MiniLM weights (a GPU machine with torch and this package's lighter dependencies):

    MINARI_DATASETS_PATH=... python experiments/metaworld_probes/seeds.py prepare DIR
    python experiments/metaworld_probes/seeds.py run DIR --out OUT [--seeds 0 1 2] [--device cuda]

``prepare`` writes DIR/train.pkl.xz (Meta-World's demo training set, read as grounding reads
it), DIR/prompts.pkl (the demo levels' prompts, as ``levels.py`` makes them) and
DIR/sentences.npz (MiniLM's embedding of every Meta-World phrasing: the training phrasings as
training encodes them, in one batch, and each phrasing alone, as generation does). ``run``
appends one JSON line per grounding to OUT/results.jsonl as each finishes, then prints the
mean and spread of each arm's goal consistency per level.
"""

from __future__ import annotations

import argparse
import json
import lzma
import multiprocessing
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATASET = "imaginebench/metaworld-train-real-v0"
LEVELS = ("rephrase", "easy", "hard")
ARMS = {
    "before": {"short_apart": False, "steps_per_episode": 0},
    "one-step": {},
    "more-steps": {"short_apart": False, "steps_per_episode": 0, "epochs": 100},
    "one-step-40": {"epochs": 40},  # twice the training of each of the two above
    "more-steps-200": {"short_apart": False, "steps_per_episode": 0, "epochs": 200},
}


class TableEncoder:
    """MiniLM's embeddings, computed beforehand: ``encode`` gives a batch's (the training
    phrasings as training encoded them), ``encode_alone`` a text's on its own."""

    name, dim = "minilm", 384

    def __init__(self, path: Path):
        data = np.load(path)
        self.batch = dict(zip(data["batch_texts"], data["batch"]))
        self.alone = dict(zip(data["texts"], data["alone"]))

    def encode(self, texts) -> np.ndarray:
        return np.stack([self.batch[t] if t in self.batch else self.alone[t] for t in texts])

    def encode_alone(self, text: str) -> np.ndarray:
        return self.alone[text]


def prepare(folder: Path) -> None:
    from probe import DOMAIN, level_prompts

    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine.data import read_episodes, split, training_phrasings
    from imaginebench_data.imagine.train import SentenceTable, TrainSettings
    from imaginebench_data.loader.encoders import encode_each, get_encoder

    folder.mkdir(parents=True, exist_ok=True)
    episodes, checksum = read_episodes(DATASET)
    (folder / "train.pkl.xz").write_bytes(lzma.compress(pickle.dumps((episodes, checksum), protocol=5)))
    prompts = {level: level_prompts(level) for level in LEVELS}
    (folder / "prompts.pkl").write_bytes(pickle.dumps(prompts, protocol=5))
    domain = get_domain(DOMAIN)
    per_task = TrainSettings.for_domain(domain).holdout_per_task  # every arm's, as train_grounding splits
    _, training = training_phrasings(DOMAIN, split(episodes, per_task)[0])
    table = SentenceTable("minilm", training).table
    texts = sorted({p for level in ("train", *LEVELS) for t in domain.tasks(level) for p in t.phrasings}
                   | {p.instruction for level in LEVELS for p in prompts[level]})
    np.savez(folder / "sentences.npz", batch_texts=np.array(training),
             batch=np.stack([table[t] for t in training]), texts=np.array(texts),
             alone=encode_each(get_encoder("minilm"), texts))
    print(f"{folder}: {len(episodes)} episodes ({checksum[:12]}), "
          f"{sum(len(p) for p in prompts.values())} prompts, {len(texts)} phrasings")


def ground_and_probe(job: dict) -> dict:
    """One process: ground ``job``'s arm and seed on the prepared data, then probe the levels."""
    from probe import imagine_level

    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine import train
    from imaginebench_data.imagine.checkpoint import load_checkpoint
    from imaginebench_data.loader import encoders

    folder, smoke = Path(job["folder"]), job["smoke"]
    encoders._ENCODERS["minilm"] = TableEncoder(folder / "sentences.npz")
    encoders.minilm_path = lambda: None  # the table stands in for the weights
    episodes, checksum = pickle.loads(lzma.decompress((folder / "train.pkl.xz").read_bytes()))
    train.read_episodes = lambda dataset_id: (episodes[:20] if smoke else episodes, checksum)
    prompts = pickle.loads((folder / "prompts.pkl").read_bytes())
    settings = train.TrainSettings.for_domain(get_domain("metaworld"), seed=job["seed"],
                                              precision=job["precision"], **ARMS[job["arm"]])
    if smoke:
        settings.epochs = 1
    out = Path(job["work"]) / f"{job['arm']}-{job['seed']}"
    started = time.perf_counter()
    digest = train.train_grounding(DATASET, out, settings=settings, device=job["device"], progress=False)
    grounded = time.perf_counter()
    training = json.loads((out / "training.json").read_text())
    model = load_checkpoint(out, job["device"])
    sentences = train.SentenceTable("minilm")
    result = {"arm": job["arm"], "seed": job["seed"], "checkpoint": digest, "device": training["device"],
              "precision": training["precision"], "sequences": training["sequences"],
              "ground_seconds": round(grounded - started, 1), "final_losses": training["history"][-1],
              "levels": {}, "tasks": {}}
    for level in LEVELS:
        level_prompts = prompts[level][:8] if smoke else prompts[level]
        _, by_task = imagine_level(model, level, level_prompts, sentences)
        result["levels"][level] = float(np.mean([ok for oks in by_task.values() for ok in oks]))
        result["tasks"][level] = {task: float(np.mean(oks)) for task, oks in by_task.items()}
    result["probe_seconds"] = round(time.perf_counter() - grounded, 1)
    result["simulator_imported"] = "metaworld" in sys.modules
    return result


def run(args: argparse.Namespace) -> None:
    import torch

    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "checkpoints" if args.keep else Path(tempfile.mkdtemp(prefix="metaworld-seeds-"))
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"torch {torch.__version__}, GPU {gpu}, {len(args.arms) * len(args.seeds)} groundings "
          f"on {args.processes} processes", flush=True)
    jobs = [{"arm": arm, "seed": seed, "folder": str(args.folder), "work": str(work), "device": args.device,
             "precision": args.precision, "smoke": args.smoke} for seed in args.seeds for arm in args.arms]
    results = []
    with multiprocessing.get_context("spawn").Pool(args.processes) as pool, \
            open(args.out / "results.jsonl", "a") as log:
        for result in pool.imap_unordered(ground_and_probe, jobs):
            log.write(json.dumps(result) + "\n")
            log.flush()
            results.append(result)
            print(json.dumps({k: result[k] for k in ("arm", "seed", "levels", "ground_seconds",
                                                    "probe_seconds", "sequences")}), flush=True)
    print(report(results))

def report(results: list[dict], plot: Path | None = None) -> str:
    """A markdown table of each arm's goal consistency per level (mean ± std over its seeds, in
    %), with the per-task means below; ``plot``: a figure of every seed's rate, by arm and level."""
    arms = list(dict.fromkeys(r["arm"] for r in results))
    lines = ["| arm | seeds | sequences | " + " | ".join(LEVELS) + " |", "|---" * (3 + len(LEVELS)) + "|"]
    for arm in arms:
        rows = [r for r in results if r["arm"] == arm]
        cells = []
        for level in LEVELS:
            rates = [100 * r["levels"][level] for r in rows]
            spread = statistics.stdev(rates) if len(rates) > 1 else 0.0
            cells.append(f"{statistics.mean(rates):.1f} ± {spread:.1f}")
        lines.append(f"| {arm} | {len(rows)} | {rows[0]['sequences']:,} | " + " | ".join(cells) + " |")
    for level in LEVELS:
        lines.append(f"\n{level}, per task (mean over seeds):")
        for arm in arms:
            rows = [r for r in results if r["arm"] == arm]
            tasks = rows[0]["tasks"][level]
            means = {task: statistics.mean(100 * r["tasks"][level][task] for r in rows) for task in tasks}
            lines.append(f"- {arm}: " + ", ".join(f"{task} {mean:.0f}" for task, mean in means.items()))
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(1, len(LEVELS) - 1, figsize=(10, 3.6), sharey=False)
        for axis, level in zip(axes, LEVELS):  # hard is 0% in every run: no panel
            for x, arm in enumerate(arms):
                rates = [100 * r["levels"][level] for r in results if r["arm"] == arm]
                axis.scatter([x] * len(rates), rates, alpha=0.6)
                axis.errorbar(x + 0.15, statistics.mean(rates), yerr=statistics.stdev(rates), fmt="k_",
                              capsize=4)
            axis.set_xticks(range(len(arms)), arms, rotation=20)
            axis.set_title(f"{level}: goal consistency (%)")
        figure.tight_layout()
        figure.savefig(plot, dpi=110)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare").add_argument("folder", type=Path)
    reporter = commands.add_parser("report", help="the table (and --plot) of results.jsonl files")
    reporter.add_argument("results", type=Path, nargs="+")
    reporter.add_argument("--plot", type=Path)
    runner = commands.add_parser("run")
    runner.add_argument("folder", type=Path)
    runner.add_argument("--out", type=Path, required=True)
    runner.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    runner.add_argument("--arms", nargs="+", choices=list(ARMS), default=list(ARMS))
    runner.add_argument("--device", default="cuda")
    runner.add_argument("--precision", default="fp32")
    runner.add_argument("--processes", type=int, default=9)
    runner.add_argument("--keep", action="store_true", help="keep the checkpoints under OUT")
    runner.add_argument("--smoke", action="store_true", help="1 epoch on 20 episodes, 8 prompts a level")
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.folder)
    elif args.command == "report":
        print(report([json.loads(line) for path in args.results for line in path.read_text().splitlines()],
                     args.plot))
    else:
        run(args)


if __name__ == "__main__":
    main()
