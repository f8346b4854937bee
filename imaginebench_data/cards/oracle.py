"""The figure that sets an imagined (or verified) dataset beside its oracle, the real expert
rollouts of the same level: ``<name>-vs-oracle.png``.

- goal consistency per task, imagined against oracle;
- the distribution of episode lengths of both;
- for domains that can draw their states (``Domain.draw_states``: CLEVR, BabyAI), the first
  three episodes of each, side by side. An imaginary dataset's episode ``i`` starts where the
  oracle's episode ``i`` starts (same task, phrasing and real state), so each pair shows what
  the model imagined against what the expert did from the same start. A verified dataset's
  regenerated episodes have their own starts; its pairs are drawn by episode order.

Drawn only when the oracle is built in the same Minari folder (it always is after
``make demo``: real datasets are built first).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .card import Card

DRAWN_EPISODES = 3


def oracle_id(card: Card) -> str | None:
    """The oracle's id of a model-made dataset's card, or None for real data."""
    if card.source == "real":
        return None
    return str(card.dataset_id.with_(source="real"))


def plot_against_oracle(card: Card, frame: pd.DataFrame, path: Path) -> bool:
    """Write the figure to ``path``; False (nothing written) without a built oracle."""
    from ..datasets.read import DatasetNotFoundError, open_dataset, stored_episodes
    from ..domains import get_domain
    from ..quality.frame import quality_frame

    oracle = oracle_id(card)
    if oracle is None:
        return False
    try:
        oracle_frame = quality_frame(oracle)
    except DatasetNotFoundError:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domain = get_domain(card.domain)
    drawn = domain.draw_states is not None
    fig = plt.figure(figsize=(16, 9 if drawn else 4.5), constrained_layout=True)
    grid = fig.add_gridspec(3 if drawn else 1, 2 * DRAWN_EPISODES if drawn else 2,
                            height_ratios=[1.2, 1, 1] if drawn else None)
    _goal_by_task(fig.add_subplot(grid[0, :DRAWN_EPISODES] if drawn else grid[0, 0]), frame, oracle_frame)
    _lengths(fig.add_subplot(grid[0, DRAWN_EPISODES:] if drawn else grid[0, 1]), frame, oracle_frame)
    if drawn:
        pairs = [_first_states(card.id, stored_episodes, open_dataset, domain),
                 _first_states(oracle, stored_episodes, open_dataset, domain)]
        for row, episodes in enumerate(pairs, start=1):
            for k, (states, success) in enumerate(episodes):
                ax = fig.add_subplot(grid[row, 2 * k : 2 * k + 2])
                domain.draw_states(ax, states)
                kind = "imagined" if row == 1 else "oracle (expert)"
                ax.set_title(f"{kind} episode {k}: {len(states) - 1} steps, "
                             f"{'goal reached' if success else 'goal not reached'}", fontsize=9)
    fig.suptitle(f"{card.id} against its oracle {oracle}")
    fig.savefig(path, dpi=70)
    plt.close(fig)
    return True


def _first_states(dataset_id: str, stored_episodes, open_dataset, domain) -> list[tuple[np.ndarray, bool]]:
    dataset, _ = open_dataset(dataset_id)
    out = []
    for episode in stored_episodes(dataset, domain):
        out.append((episode.states, bool(episode.infos["success"][-1])))
        if len(out) == DRAWN_EPISODES:
            break
    return out


def _goal_by_task(ax, frame: pd.DataFrame, oracle: pd.DataFrame) -> None:
    tasks = list(dict.fromkeys(oracle["task_id"]))
    ours = frame.groupby("task_id")["success"].mean().reindex(tasks)
    theirs = oracle.groupby("task_id")["success"].mean().reindex(tasks)
    xs = np.arange(len(tasks))
    ax.bar(xs - 0.2, theirs.fillna(0), 0.4, label="oracle (expert)", color="tab:grey")
    ax.bar(xs + 0.2, ours.fillna(0), 0.4, label="this dataset", color="tab:green")
    ax.set_ylabel("goal consistency")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(xs, tasks if len(tasks) <= 24 else [""] * len(tasks), rotation=90, fontsize=6)
    ax.set_xlabel(f"{len(tasks)} tasks" + ("" if len(tasks) <= 24 else " (in the card's order)"))
    ax.legend(fontsize=8)


def _lengths(ax, frame: pd.DataFrame, oracle: pd.DataFrame) -> None:
    longest = int(max(frame["length"].max(), oracle["length"].max()))
    width = max(1, -(-longest // 50))
    bins = np.arange(0.5, longest + width + 0.5, width)
    ax.hist(oracle["length"], bins=bins, alpha=0.5, label="oracle (expert)", color="tab:grey", density=True)
    ax.hist(frame["length"], bins=bins, alpha=0.5, label="this dataset", color="tab:green", density=True)
    ax.set_xlabel(f"episode length (steps; bins of {width})")
    ax.set_ylabel("share of episodes")
    ax.legend(fontsize=8)
