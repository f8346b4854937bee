"""The figure that sets an imagined (or verified) dataset beside its oracle, the real expert
rollouts of the same level: ``<name>-vs-oracle.png``.

- goal consistency per task, imagined against oracle;
- the distribution of episode lengths of both;
- for domains that can draw their states (``Domain.draw_states``: CLEVR, BabyAI), the
  dataset's first three episodes, each above the oracle's episode that starts where it starts
  (the same task and seed, the same first state: an imaginary dataset's episode ``i`` starts
  where the oracle's episode ``i`` does), so each pair shows what the model imagined against
  what the expert did from the same start. A verified dataset keeps some episodes and
  regenerates others from new starts; where no oracle episode starts there, the oracle's first
  episode of the same task is drawn, its title saying so on a second line.

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
        ours = list(stored_episodes(open_dataset(card.id)[0], domain, range(min(DRAWN_EPISODES, len(frame)))))
        oracle_dataset, _ = open_dataset(oracle)
        for k, episode in enumerate(ours):
            ax = fig.add_subplot(grid[1, 2 * k : 2 * k + 2])
            domain.draw_states(ax, episode.states)
            ax.set_title(f"imagined episode {k}: {_outcome(episode)}", fontsize=9)
            ax = fig.add_subplot(grid[2, 2 * k : 2 * k + 2])
            match = _same_start(episode, oracle_frame, oracle_dataset, stored_episodes, domain)
            if match is None:
                ax.set_axis_off()
                ax.set_title(f"the oracle has no episode of task {episode.task_id}", fontsize=9)
                continue
            position, expert, same = match
            domain.draw_states(ax, expert.states)
            start = "" if same else "\n(the same task from another start)"
            ax.set_title(f"oracle (expert) episode {position}: {_outcome(expert)}{start}", fontsize=9)
    fig.suptitle(f"{card.id} against its oracle {oracle}")
    fig.savefig(path, dpi=70)
    plt.close(fig)
    return True


def _outcome(episode) -> str:
    return f"{len(episode)} steps, {'goal reached' if episode.infos['success'][-1] else 'goal not reached'}"


def _same_start(episode, oracle_frame: pd.DataFrame, oracle_dataset, stored_episodes, domain):
    """``(position, oracle episode, same start)``: the oracle's episode of ``episode``'s task and
    seed whose first state is ``episode``'s, else the oracle's first episode of that task (same
    start False); None when the oracle has no episode of that task."""
    same_task = np.flatnonzero(oracle_frame["task_id"].to_numpy() == episode.task_id)
    if len(same_task) == 0:
        return None
    seeds = oracle_frame["seed"].to_numpy()
    same_seed = [int(p) for p in same_task if seeds[p] == episode.seed]
    for position, expert in zip(same_seed, stored_episodes(oracle_dataset, domain, same_seed)):
        if np.array_equal(expert.states[0], episode.states[0]):
            return position, expert, True
    first = int(same_task[0])
    return first, next(stored_episodes(oracle_dataset, domain, [first])), False


def _goal_by_task(ax, frame: pd.DataFrame, oracle: pd.DataFrame) -> None:
    tasks = list(dict.fromkeys(oracle["task_id"]))
    ours = frame.groupby("task_id")["success"].mean().reindex(tasks)
    theirs = oracle.groupby("task_id")["success"].mean().reindex(tasks)
    xs = np.arange(len(tasks))
    ax.bar(xs - 0.2, theirs, 0.4, label="oracle (expert)", color="tab:grey")
    ax.bar(xs + 0.2, ours, 0.4, label="this dataset", color="tab:green")
    missing = ours.isna().to_numpy()  # a task without episodes here: no bar, a cross (not a 0)
    if missing.any():
        ax.plot(xs[missing] + 0.2, np.full(missing.sum(), 0.03), "x", color="tab:green",
                label="no episode of the task here")
    ax.set_ylabel("goal consistency")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(xs, tasks if len(tasks) <= 24 else [""] * len(tasks), rotation=90, fontsize=6)
    ax.set_xlabel(f"{len(tasks)} tasks" + ("" if len(tasks) <= 24 else " (in the card's order)"))
    ax.legend(fontsize=8)


def _lengths(ax, frame: pd.DataFrame, oracle: pd.DataFrame) -> None:
    longest = int(max(frame["length"].max(), oracle["length"].max()))
    width = max(1, -(-longest // 50))
    bins = np.arange(0.5, longest + width + 0.5, width)
    for lengths, label, color in ((oracle["length"], "oracle (expert)", "tab:grey"),
                                  (frame["length"], "this dataset", "tab:green")):
        # each bar the share of the dataset's episodes in its bin (density=True would divide by the width)
        ax.hist(lengths, bins=bins, weights=np.full(len(lengths), 1 / len(lengths)), alpha=0.5,
                label=label, color=color)
    ax.set_xlabel(f"episode length (steps; bins of {width})")
    ax.set_ylabel("share of episodes")
    ax.legend(fontsize=8)
