"""Ground a domain's demo model under several settings and seeds at once, and probe each.

A lever's effect on imagined data is smaller than one grounding's noise (Meta-World's seeds
differ by up to 15 points on rephrase, CLEVR's by 10), so it is decided over seeds. Each arm
below is a set of ``TrainSettings`` fields (and, under ``scratch``, the scratch GPT-2's
sizes) on top of the domain's grounding levers; each (arm, seed) grounds in its own process
(several share one GPU: the demo models are far too small to keep one busy), then imagines
the demo levels' prompts of the committed cards as the generator does and scores them as the
cards do. For CLEVR each level is also run again in closed loop: every predicted state
replaced by the simulator's next state under the model's push (the model as a policy;
``closed_loop``).

It runs in two steps, so that the second needs neither the datasets nor the MiniLM weights
(a GPU machine with torch and this package's lighter dependencies):

    MINARI_DATASETS_PATH=... python experiments/grounding_seeds.py prepare DOMAIN DIR
    python experiments/grounding_seeds.py run DIR --out OUT [--arms ...] [--seeds 0 1 2] [--device cuda]
    python experiments/grounding_seeds.py report OUT/results.jsonl [--plot FIGURE]

``prepare`` writes DIR/domain.txt, DIR/train.pkl.xz (the domain's demo training set, read as
grounding reads it), DIR/prompts.pkl (the demo levels' prompts) and DIR/sentences.npz
(MiniLM's embedding of every phrasing of the domain: each training-phrasing set an arm uses
as training encodes it, in one batch, and each phrasing alone, as generation does). ``run``
appends one JSON line per grounding to OUT/results.jsonl as each finishes, then prints each
arm's mean and spread per level.

Meta-World's runs of 2026-11-30 (``results/gpu/metaworld-seeds.jsonl``) were made with this
script's Meta-World arms when it was ``experiments/metaworld_probes/seeds.py``.
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LEVELS = ("rephrase", "easy", "hard")
# CLEVR's demo builds' setting: symmetric copies, each batch in 2 parts (the same optimisation, faster)
CLEVR_BUILDS = {"symmetries": True, "length_split": 2}
CLEVR_FUSED = {**CLEVR_BUILDS, "fused_adam": True}  # and AdamW's fused step, since 2026-12-03
ARMS = {
    "metaworld": {
        "before": {"short_apart": False, "steps_per_episode": 0},
        "one-step": {},
        "more-steps": {"short_apart": False, "steps_per_episode": 0, "epochs": 100},
        "one-step-40": {"epochs": 40},  # twice the training of each of the two above
        "more-steps-200": {"short_apart": False, "steps_per_episode": 0, "epochs": 200},
    },
    "clevr": {
        "committed": {},
        "copies": {"symmetries": True},
        "copies-40": {"symmetries": True, "epochs": 40},
        "copies-parts": CLEVR_BUILDS,
        "copies-lr2": {**CLEVR_BUILDS, "lr": 2e-3},  # twice the scratch rate
        "copies-lr05": {**CLEVR_BUILDS, "lr": 5e-4},  # half of it
        "large": {"scratch": {"n_layer": 8, "n_head": 8, "n_embd": 384}},  # 4 x 192 in the builds
        # one-step rollouts (Meta-World's lever) on top, short sequences batched apart
        "copies-one-step": {**CLEVR_BUILDS, "steps_per_episode": 8, "short_apart": True},
        "copies-one-step-24": {**CLEVR_BUILDS, "steps_per_episode": 24, "short_apart": True},
        # the demo builds' setting since 2026-12-03, and on top of it the action loss counted
        # twice / four times in the sum minimised (the policy is what lags: docs/experiments.md,
        # "CLEVR: the model as a policy")
        "builds-fused": CLEVR_FUSED,
        "fused-aw2": {**CLEVR_FUSED, "action_weight": 2.0},
        "fused-aw4": {**CLEVR_FUSED, "action_weight": 4.0},
    },
}
CLOSED_LOOP = {"clevr"}  # domains whose simulator can take the model's actions here (numpy only)


@dataclass(frozen=True)
class LevelPrompt:
    """One demo prompt, in plain values (it pickles without a simulator)."""

    task: str
    instruction: str
    state: np.ndarray


def level_prompts(domain_name: str, level: str) -> list[LevelPrompt]:
    """The prompts of ``level``'s demo imaginary card: its recipe's seed and demo episode count,
    each start a real reset of the simulator."""
    from imaginebench_data.domains import get_domain
    from imaginebench_data.pipeline.recipe import load_recipes
    from imaginebench_data.pipeline.rollout import episode_start

    domain = get_domain(domain_name)
    sim = domain.simulator()
    recipe = load_recipes()[f"imaginebench/{domain_name}-{level}-imaginary-v0"]
    starts = [episode_start(domain, level, i, recipe.seed, sim) for i in range(recipe.episodes["demo"])]
    return [LevelPrompt(s.task.id, s.instruction, s.state) for s in starts]


def imagine_level(model, domain, level: str, prompts: list[LevelPrompt], sentences, decode=None,
                  every: int | None = None):
    """``model``'s rollouts from ``prompts`` as the generator makes them (prompted afresh every
    ``domain.prompt_steps``, its sub-goals, its decoding; ``decode`` in its place if given, and
    prompted afresh every ``every`` steps if given)."""
    from imaginebench_data.imagine.generate import Prompt
    from imaginebench_data.imagine.prompting import imagine_segments

    tasks = {task.id: task for task in domain.tasks(level)}
    batch = [Prompt(tasks[p.task], p.instruction, p.state) for p in prompts]
    steps = domain.prompt_steps if every is None else every
    return list(imagine_segments(model, batch, sentences, steps=steps, subgoals=domain.subgoals,
                                 batch_size=64, decode=decode or domain.decode_state))


def imagine_stepped(model, domain, level: str, prompts: list[LevelPrompt], sentences, step):
    """The rollouts of ``imagine_level`` with every predicted state replaced by
    ``step(previous states, the model's chosen actions)``."""
    chosen = {}
    choose_action = model.choose_action

    def remembered(hidden, draws=None):
        action = choose_action(hidden, draws)
        chosen["actions"] = action.cpu().numpy()
        return action

    model.choose_action = remembered
    try:
        return imagine_level(model, domain, level, prompts, sentences,
                             decode=lambda previous, predicted: step(previous, chosen["actions"]))
    finally:
        model.choose_action = choose_action


def closed_loop(model, domain, level: str, prompts: list[LevelPrompt], sentences):
    """The rollouts of ``imagine_level`` with every predicted state replaced by the state the
    simulator reaches from the previous one under the model's chosen action."""
    sim = domain.simulator()

    def simulated(previous: np.ndarray, actions: np.ndarray) -> np.ndarray:
        return np.stack([sim.step_from(state, int(a)) for state, a in zip(previous, actions)])

    return imagine_stepped(model, domain, level, prompts, sentences, simulated)


def by_task(prompts: list[LevelPrompt], rollouts) -> dict[str, list[bool]]:
    """Each task's goal outcomes, in prompt order."""
    outcomes: dict[str, list[bool]] = {}
    for prompt, rollout in zip(prompts, rollouts):
        outcomes.setdefault(prompt.task, []).append(bool(rollout.success))
    return outcomes


def variant(settings) -> str:
    """The name of the training-phrasing set ``settings`` grounds on (its batch embeddings)."""
    return f"holdout{int(settings.holdout_per_task)}-every{int(settings.symmetries)}"


def arm_settings(domain_name: str, arm: str, **fields):
    """(TrainSettings, scratch sizes) of ``arm``."""
    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine.train import TrainSettings

    changes = dict(ARMS[domain_name][arm])
    scratch = changes.pop("scratch", {})
    return TrainSettings.for_domain(get_domain(domain_name), **changes, **fields), scratch


class TableEncoder:
    """MiniLM's embeddings, computed beforehand: ``encode`` gives a batch's (the training
    phrasings as training encoded them), ``encode_alone`` a text's on its own."""

    name, dim = "minilm", 384

    def __init__(self, path: Path, phrasing_set: str):
        data = np.load(path)
        self.batch = dict(zip(data[f"texts-{phrasing_set}"], data[f"batch-{phrasing_set}"]))
        self.alone = dict(zip(data["texts"], data["alone"]))

    def encode(self, texts) -> np.ndarray:
        return np.stack([self.batch[t] if t in self.batch else self.alone[t] for t in texts])

    def encode_alone(self, text: str) -> np.ndarray:
        return self.alone[text]


def prepare(domain_name: str, folder: Path) -> None:
    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine.data import read_episodes, split, training_phrasings
    from imaginebench_data.imagine.train import SentenceTable
    from imaginebench_data.loader.encoders import encode_each, get_encoder

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.txt").write_text(domain_name)
    episodes, checksum = read_episodes(f"imaginebench/{domain_name}-train-real-v0")
    (folder / "train.pkl.xz").write_bytes(lzma.compress(pickle.dumps((episodes, checksum), protocol=5)))
    prompts = {level: level_prompts(domain_name, level) for level in LEVELS}
    plain = {level: [vars(p) for p in level_prompts] for level, level_prompts in prompts.items()}
    (folder / "prompts.pkl").write_bytes(pickle.dumps(plain, protocol=5))  # no class of this script
    domain = get_domain(domain_name)
    tables = {}
    # each training-phrasing set the arms use (arms may share one), split as train_grounding splits
    phrasing_sets = {variant(settings): settings
                     for settings, _ in (arm_settings(domain_name, arm) for arm in ARMS[domain_name])}
    for name, settings in phrasing_sets.items():
        _, training = training_phrasings(domain_name, split(episodes, settings.holdout_per_task)[0],
                                         every_task=settings.symmetries)
        table = SentenceTable("minilm", training).table
        tables[f"texts-{name}"] = np.array(training)
        tables[f"batch-{name}"] = np.stack([table[t] for t in training])
    texts = sorted({p for level in ("train", *LEVELS) for t in domain.tasks(level) for p in t.phrasings}
                   | {p.instruction for level in LEVELS for p in prompts[level]})
    np.savez(folder / "sentences.npz", texts=np.array(texts), alone=encode_each(get_encoder("minilm"), texts),
             **tables)
    print(f"{folder}: {domain_name}, {len(episodes)} episodes ({checksum[:12]}), "
          f"{sum(len(p) for p in prompts.values())} prompts, {len(texts)} phrasings")


def ground_and_probe(job: dict) -> dict:
    """One process: ground ``job``'s arm and seed on the prepared data, then probe the levels."""
    import torch

    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine import backbone, train
    from imaginebench_data.imagine.checkpoint import load_checkpoint
    from imaginebench_data.loader import encoders

    torch.set_num_threads(job["threads"])  # the processes share the machine's cores
    folder, smoke, name = Path(job["folder"]), job["smoke"], job["domain"]
    domain = get_domain(name)
    settings, scratch = arm_settings(name, job["arm"], seed=job["seed"], precision=job["precision"])
    backbone.SCRATCH_SIZES = {**backbone.SCRATCH_SIZES, **scratch}  # read when the model is built
    encoders._ENCODERS["minilm"] = TableEncoder(folder / "sentences.npz", variant(settings))
    encoders.minilm_path = lambda: None  # the table stands in for the weights
    episodes, checksum = pickle.loads(lzma.decompress((folder / "train.pkl.xz").read_bytes()))
    train.read_episodes = lambda dataset_id: (episodes[:20] if smoke else episodes, checksum)
    prompts = {level: [LevelPrompt(**p) for p in level_prompts]
               for level, level_prompts in pickle.loads((folder / "prompts.pkl").read_bytes()).items()}
    if smoke:
        settings.epochs = 1
    out = Path(job["work"]) / f"{job['arm']}-{job['seed']}"
    started = time.perf_counter()
    digest = train.train_grounding(f"imaginebench/{name}-train-real-v0", out, settings=settings,
                                   device=job["device"], progress=False)
    grounded = time.perf_counter()
    training = json.loads((out / "training.json").read_text())
    model = load_checkpoint(out, job["device"])
    sentences = train.SentenceTable("minilm")
    result = {"domain": name, "arm": job["arm"], "seed": job["seed"], "checkpoint": digest,
              "device": training["device"], "precision": training["precision"],
              "parameters": sum(p.numel() for p in model.parameters()), "sequences": training["sequences"],
              "ground_seconds": round(grounded - started, 1), "final_losses": training["history"][-1],
              "levels": {}, "tasks": {}, "closed_loop": {}}
    for level in LEVELS:
        level_prompts = prompts[level][:8] if smoke else prompts[level]
        outcomes = by_task(level_prompts, imagine_level(model, domain, level, level_prompts, sentences))
        result["levels"][level] = float(np.mean([ok for oks in outcomes.values() for ok in oks]))
        result["tasks"][level] = {task: float(np.mean(oks)) for task, oks in outcomes.items()}
        if name in CLOSED_LOOP:
            rollouts = closed_loop(model, domain, level, level_prompts, sentences)
            result["closed_loop"][level] = float(np.mean([r.success for r in rollouts]))
    result["probe_seconds"] = round(time.perf_counter() - grounded, 1)
    result["modules_imported"] = sorted(m for m in ("metaworld", "mujoco", "minari") if m in sys.modules)
    return result


def run(args: argparse.Namespace) -> None:
    import torch

    name = (args.folder / "domain.txt").read_text().strip()
    arms = args.arms or list(ARMS[name])
    unknown = sorted(set(arms) - set(ARMS[name]))
    if unknown:
        raise SystemExit(f"--arms: expected some of {', '.join(ARMS[name])} ({name}), "
                         f"found {', '.join(unknown)}")
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "checkpoints" if args.keep else Path(tempfile.mkdtemp(prefix="grounding-seeds-"))
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"torch {torch.__version__}, GPU {gpu}, {name}: {len(arms) * len(args.seeds)} groundings "
          f"on {args.processes} processes", flush=True)
    jobs = [{"domain": name, "arm": arm, "seed": seed, "folder": str(args.folder), "work": str(work),
             "device": args.device, "precision": args.precision, "smoke": args.smoke,
             "threads": args.threads}
            for seed in args.seeds for arm in arms]
    results = []
    with multiprocessing.get_context("spawn").Pool(args.processes, maxtasksperchild=1) as pool, \
            open(args.out / "results.jsonl", "a") as log:
        for result in pool.imap_unordered(ground_and_probe, jobs):
            log.write(json.dumps(result) + "\n")
            log.flush()
            results.append(result)
            print(json.dumps({k: result[k] for k in ("arm", "seed", "levels", "closed_loop", "ground_seconds",
                                                    "probe_seconds", "sequences")}), flush=True)
    print(report(results))


def cell(rates: list[float]) -> str:
    """``mean ± std`` of rates in [0, 1], in %."""
    rates = [100 * r for r in rates]
    return f"{statistics.mean(rates):.1f} ± {statistics.stdev(rates) if len(rates) > 1 else 0.0:.1f}"


def report(results: list[dict], plot: Path | None = None) -> str:
    """A markdown table of each arm's goal consistency per level (mean ± std over its seeds, in
    %; in closed loop below, where measured), with the per-task means; ``plot``: a figure of
    every seed's rate, by arm and level."""
    arms = list(dict.fromkeys(r["arm"] for r in results))
    rows = {arm: [r for r in results if r["arm"] == arm] for arm in arms}
    loops = [level for level in LEVELS if all(level in r.get("closed_loop", {}) for r in results)]
    header = [*LEVELS, *(f"{level} in closed loop" for level in loops)]
    lines = ["| arm | seeds | sequences | " + " | ".join(header) + " |", "|---" * (3 + len(header)) + "|"]
    for arm, runs in rows.items():
        cells = [cell([r["levels"][level] for r in runs]) for level in LEVELS]
        cells += [cell([r["closed_loop"][level] for r in runs]) for level in loops]
        lines.append(f"| {arm} | {len(runs)} | {runs[0]['sequences']:,} | " + " | ".join(cells) + " |")
    for level in LEVELS:
        lines.append(f"\n{level}, per task (mean over seeds):")
        for arm, runs in rows.items():
            means = {task: statistics.mean(100 * r["tasks"][level][task] for r in runs)
                     for task in runs[0]["tasks"][level]}
            lines.append(f"- {arm}: " + ", ".join(f"{task} {mean:.0f}" for task, mean in means.items()))
    if plot:
        draw(rows, plot)
    return "\n".join(lines)


def draw(rows: dict[str, list[dict]], plot: Path) -> None:
    """Every seed's goal consistency by arm, one panel per level that any run reaches."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = [lv for lv in LEVELS if any(r["levels"][lv] for runs in rows.values() for r in runs)]
    figure, axes = plt.subplots(1, len(levels), figsize=(3.6 * len(levels) + 1, 3.6), squeeze=False)
    for axis, level in zip(axes[0], levels):
        for x, runs in enumerate(rows.values()):
            rates = [100 * r["levels"][level] for r in runs]
            axis.scatter([x] * len(rates), rates, alpha=0.6, color="C0")
            spread = statistics.stdev(rates) if len(rates) > 1 else 0
            axis.errorbar(x + 0.15, statistics.mean(rates), yerr=spread, fmt="k_", capsize=4)
            loop = [100 * r["closed_loop"][level] for r in runs if level in r.get("closed_loop", {})]
            axis.scatter([x + 0.3] * len(loop), loop, alpha=0.6, color="C1", marker="x",
                         label="in closed loop" if x == 0 and loop else None)
        axis.set_xticks(range(len(rows)), list(rows), rotation=20)
        axis.set_title(f"{level}: goal consistency (%)")
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(plot, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    preparer = commands.add_parser("prepare")
    preparer.add_argument("domain", choices=list(ARMS))
    preparer.add_argument("folder", type=Path)
    reporter = commands.add_parser("report", help="the table (and --plot) of results.jsonl files")
    reporter.add_argument("results", type=Path, nargs="+")
    reporter.add_argument("--plot", type=Path)
    runner = commands.add_parser("run")
    runner.add_argument("folder", type=Path)
    runner.add_argument("--out", type=Path, required=True)
    runner.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    runner.add_argument("--arms", nargs="+", help="the domain's arms to run (default: all of them)")
    runner.add_argument("--device", default="cuda")
    runner.add_argument("--precision", default="fp32")
    runner.add_argument("--processes", type=int, default=9)
    runner.add_argument("--threads", type=int, default=1,
                        help="torch threads per process (on a 2-core CPU: one process of 2 threads "
                             "ran 2.4 to 3 times as many batches a second as two of 1 thread)")
    runner.add_argument("--keep", action="store_true", help="keep the checkpoints under OUT")
    runner.add_argument("--smoke", action="store_true", help="1 epoch on 20 episodes, 8 prompts a level")
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.domain, args.folder)
    elif args.command == "report":
        print(report([json.loads(line) for path in args.results for line in path.read_text().splitlines()],
                     args.plot))
    else:
        run(args)


if __name__ == "__main__":
    main()
