"""Render a card to ``cards/<name>.md``, ``cards/<name>.json``, ``cards/<name>.png`` and, where
the domain can draw its states, ``cards/<name>-episode.png`` (one episode, ``episode.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .card import Card
from .episode import draw_card_episode
from .oracle import plot_against_oracle

STAGING = ".staging-"  # the card files' staging folders in the cards folder


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def render_markdown(card: Card) -> str:
    name = card.dataset_id.name
    length, ret, prov = card.length, card.returns, card.provenance
    lines = [
        f"# {card.id}",
        "",
        f"Domain **{card.domain}**, level **{card.level}**, source **{card.source}**, "
        f"scale **{card.scale}**.",
        "",
        "```python",
        "import minari",
        f'ds = minari.load_dataset("{card.id}")',
        "env = ds.recover_environment(eval_env=True)",
        "```",
        "",
        "| episodes | steps | tasks | phrasings | length mean (min-max) | return mean ± std |",
        "|---|---|---|---|---|---|",
        f"| {card.episodes} | {card.steps} | {card.tasks} | {card.phrasings} | "
        f"{length['mean']:.2f} ({length['min']:.0f}-{length['max']:.0f}) | "
        f"{ret['mean']:.3f} ± {ret['std']:.3f} |",
        "",
        "## Quality",
        "",
        "| goal consistency | transition error rate | illegal state rate | "
        + " | ".join(f"illegal: {k}" for k in card.illegal_by_kind) + " |",
        "|---|---|---|" + "---|" * len(card.illegal_by_kind),
        f"| {_pct(card.goal_consistency)} | {_pct(card.transition_error_rate)} | "
        f"{_pct(card.illegal_state_rate)} | "
        + " | ".join(_pct(v) for v in card.illegal_by_kind.values()) + " |",
        "",
        f"![statistics per task]({name}.png)",
        "",
        "## Per task",
        "",
        "| task | episodes | goal consistency | mean length | mean return | transition errors "
        "| illegal states |",
        "|---|---|---|---|---|---|---|",
    ]
    for task, stats in card.per_task.items():
        lines.append(
            f"| {task} | {stats['episodes']} | {_pct(stats['goal_consistency'])} | "
            f"{stats['length']['mean']:.2f} | {stats['return']['mean']:.3f} | "
            f"{_pct(stats['transition_error_rate'])} | {_pct(stats['illegal_state_rate'])} |"
        )
    lines += _missing_task_lines(card)
    lines += _resolution_lines(card)
    lines += ["", "## How it was made", ""]
    lines += [f"- **{key}**: {value}" for key, value in prov.items()
              if key not in ("packages", "evidence", "verification", "decoding")]
    lines.append("- **packages**: " + ", ".join(f"{k} {v}" for k, v in prov["packages"].items()))
    lines.append(f"- **checksum** (sha256 of the arrays): `{card.checksum}`")
    if "decoding" in prov:
        lines += _decoding_lines(card, prov["decoding"])
    if "verification" in prov:
        lines += _verification_lines(prov["verification"])
    if "evidence" in prov:
        lines += _evidence_lines(prov["evidence"])
    lines += ["", "## Notes", ""]
    lines += [f"- **{key}**: {value}" for key, value in card.notes.items()]
    return "\n".join(lines) + "\n"


def _missing_task_lines(card: Card) -> list[str]:
    """The level's tasks with no episode in the set (a verified set keeps none of some), which
    the table above leaves out; none for a set that holds every task. Found by a review
    (2026-12-08): only the figure's crosses showed them, unlabelled past 24 tasks."""
    from ..domains import get_domain

    level = [task.id for task in get_domain(card.domain).tasks(card.level)]
    missing = [task for task in level if task not in card.per_task]
    if not missing:
        return []
    return ["", f"No episode of {len(missing)} of the level's {len(level)} tasks: {', '.join(missing)}."]


def _decoding_lines(card: Card, decoding: dict[str, Any]) -> list[str]:
    """The generator's correction of its predicted states, and the raw predictions' rates."""
    raw = decoding["raw_model_output"]
    kinds = list(card.illegal_by_kind)
    return [
        "", "## Decoding", "",
        f"The generator corrects each state it predicts before feeding it back: {decoding['correction']}. "
        "The raw rows check each step's prediction before that correction (the stored state and "
        "action, into the predicted next state).", "",
        "| states | goal consistency | transition error rate | illegal state rate | "
        + " | ".join(f"illegal: {k}" for k in kinds) + " |",
        "|---|---|---|---|" + "---|" * len(kinds),
        _rates_row("stored (corrected)", card.goal_consistency, card.transition_error_rate,
                   card.illegal_state_rate, [card.illegal_by_kind[k] for k in kinds]),
        _rates_row("raw model output", raw["goal_consistency"], raw["transition_error_rate"],
                   raw["illegal_state_rate"], [raw["illegal_by_kind"][k] for k in kinds]),
    ]


def _rates_row(name: str, *rates) -> str:
    *overall, by_kind = rates
    return f"| {name} | " + " | ".join(_pct(rate) for rate in [*overall, *by_kind]) + " |"


def _verification_lines(verification: dict[str, Any]) -> list[str]:
    """What a verified dataset kept, and the budget it spent (see ``pipeline/verified.py``)."""
    v = verification
    rejected = ", ".join(f"{k} {n}" for k, n in v["rejected_by"].items()) or "none"
    return [
        "", "## Verification", "",
        f"Only episodes passing every checker ({', '.join(v['criteria'])}) are kept. A failed episode "
        f"is imagined again for the same task from a new phrasing and real start state, at most "
        f"{v['attempts_per_episode']} attempts per episode.", "",
        "| requested | kept | attempts imagined | budget (attempts) | acceptance rate | failed checks |",
        "|---|---|---|---|---|---|",
        f"| {v['requested']} | {v['accepted']} | {v['attempts']} | "
        f"{v['attempts_per_episode'] * v['requested']} | {_pct(v['acceptance_rate'])} | {rejected} |",
    ]


def _resolution_lines(card: Card) -> list[str]:
    """How an imported dataset's tasks were resolved (nothing for a built dataset)."""
    if not card.resolution:
        return []
    lines = ["", "## How tasks were resolved", "", "| rung | episodes |", "|---|---|"]
    lines += [f"| {rung} | {count} |" for rung, count in card.resolution.items()]
    if card.unresolved:
        lines += ["", f"{card.unresolved} episodes kept with task `unresolved` (their own instruction "
                      "text); goal consistency is over the other episodes."]
    return lines


def _evidence_lines(evidence: dict[str, Any]) -> list[str]:
    """The generator's evidence (see ``imagine/evidence.py``) as two small tables."""
    step, goal = evidence["next_state"], evidence["goal"]
    return [
        "", "## Did the generator learn the environment?", "",
        f"Next state on {step['held_out_transitions']} held-out real transitions (mean transition "
        "distance, lower is better):", "",
        "| model | nothing moves | ratio | model within tolerance |", "|---|---|---|---|",
        f"| {step['model_error_mean']:.4f} | {step['nothing_moves_error_mean']:.4f} | "
        f"{step['error_ratio']:.1f}x | {_pct(step['model_within_tolerance'])} |", "",
        f"Goal consistency on {goal['episodes']} {goal['level']} episodes from the same real start states:",
        "",
        "| imagined rollouts | random actions (simulator) | imagined actions replayed in the simulator |",
        "|---|---|---|",
        f"| {_pct(goal['imagined_goal_consistency'])} | {_pct(goal['random_actions_goal_consistency'])} | "
        f"{_pct(goal['imagined_actions_replayed_success'])} |",
    ]


def plot_card(card: Card, frame: pd.DataFrame, path: Path) -> None:
    """Goal consistency and mean length per task, and the distribution of episode lengths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(card.per_task)
    per_task = card.per_task
    height = max(4.0, 0.14 * len(tasks) + 1.5)
    fig, axes = plt.subplots(1, 3, figsize=(16, height), constrained_layout=True,
                             gridspec_kw={"width_ratios": [1.2, 1, 1]})
    rows = list(range(len(tasks)))[::-1]  # first task at the top
    consistency = [per_task[t]["goal_consistency"] for t in tasks]  # None: an unresolved task
    axes[0].barh(rows, [0.0 if c is None else c for c in consistency], color="tab:green")
    axes[0].set_xlabel("goal consistency")
    axes[0].set_xlim(0, 1.0)
    axes[0].set_yticks(rows)
    axes[0].set_yticklabels(tasks, fontsize=6 if len(tasks) > 30 else 8)
    axes[1].barh(rows, [per_task[t]["length"]["mean"] for t in tasks], color="tab:blue")
    axes[1].set_xlabel("mean episode length (steps)")
    axes[1].set_yticks(rows)
    axes[1].set_yticklabels([])
    longest = int(frame["length"].max())
    width = max(1, -(-longest // 50))  # at most 50 bins, each a whole number of steps
    bins = np.arange(0.5, longest + width + 0.5, width)
    success = frame["success"].astype(bool)
    axes[2].hist([frame["length"][success], frame["length"][~success]], bins=bins, stacked=True,
                 color=["tab:green", "tab:red"], label=["goal reached", "goal not reached"])
    axes[2].legend(fontsize=8)
    axes[2].set_xlabel(f"episode length (steps; bins of {width})")
    axes[2].set_ylabel("episodes")
    fig.suptitle(f"{card.id}: {card.episodes} episodes, goal consistency "
                 f"{_pct(card.goal_consistency)}, illegal states {_pct(card.illegal_state_rate)}")
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _episode_figure(name: str) -> str:
    return f"{name}-episode.png"


def _oracle_figure(name: str) -> str:
    return f"{name}-vs-oracle.png"


def write_card_files(card: Card, frame: pd.DataFrame, cards_dir: Path) -> list[Path]:
    """Write the card's JSON, Markdown and plots (statistics, one drawn episode, against the
    oracle where there is one); return the paths. They are drawn in a staging folder beside
    them and moved into place together once all are written: interrupted, the card files
    there are all as they were."""
    from ..datasets.install import owned_scratch, remove_abandoned

    cards_dir.mkdir(parents=True, exist_ok=True)
    remove_abandoned(cards_dir, STAGING)  # a killed writer's (left in cards/ until 2026-12-07)
    name = card.dataset_id.name
    with owned_scratch(cards_dir, f"{STAGING}{name}-") as staging:
        staged = _draw_card_files(card, frame, staging)
        for path in staged:
            os.replace(path, cards_dir / path.name)
    written = {path.name for path in staged}
    for figure in (_episode_figure(name), _oracle_figure(name)):  # not drawn this time: an
        if figure not in written:  # earlier build's picture would outlive the card that showed it
            (cards_dir / figure).unlink(missing_ok=True)
    return [cards_dir / path.name for path in staged]


def _draw_card_files(card: Card, frame: pd.DataFrame, cards_dir: Path) -> list[Path]:
    name = card.dataset_id.name
    paths = [cards_dir / f"{name}.json", cards_dir / f"{name}.md", cards_dir / f"{name}.png"]
    paths[0].write_text(card.dumps())
    markdown = render_markdown(card)
    plot_card(card, frame, paths[2])
    episode = cards_dir / _episode_figure(name)
    if draw_card_episode(card, episode):
        markdown += f"\n## One episode\n\n![the first episode of {name}]({episode.name})\n"
        paths.append(episode)
    against = cards_dir / _oracle_figure(name)
    if plot_against_oracle(card, frame, against):
        markdown += f"\n## Against the oracle\n\n![{name} against its oracle]({against.name})\n"
        paths.append(against)
    paths[1].write_text(markdown)
    return paths
