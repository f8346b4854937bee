"""The cards' figures say what their axes and titles say: length histograms as shares of each
dataset's episodes, tasks without episodes not drawn as 0%, an imagined episode set above the
oracle's episode from its start, and no figure of an earlier build left beside a card that no
longer shows it. Also the numbers printed beside the cards (inspect, plain JSON)."""

import json
import warnings
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from imaginebench_data.cards import oracle, render  # noqa: E402
from imaginebench_data.cards.card import Card  # noqa: E402
from imaginebench_data.cards.episode import draw_card_episode  # noqa: E402
from imaginebench_data.core.episode import Episode  # noqa: E402
from imaginebench_data.quality.stats import plain_json  # noqa: E402

CARDS = Path(__file__).resolve().parents[1] / "cards"


def episode(task_id: str, seed: int, start: float, length: int = 3, success: bool = True) -> Episode:
    states = np.full((length + 1, 2), start, np.float32)
    return Episode(states=states, actions=np.zeros(length, np.int64), rewards=np.zeros(length, np.float32),
                   terminations=np.zeros(length, bool), truncations=np.r_[np.zeros(length - 1, bool), True],
                   instruction="x", task_id=task_id, level="easy", phrasing_id=0, seed=seed, source="real",
                   infos={"success": np.r_[np.zeros(length - 1, bool), success]})


def test_length_bars_are_shares_of_each_datasets_episodes_whatever_the_bin_width():
    ours = pd.DataFrame({"length": [3, 40, 41, 120, 130]})  # the longest, 130, makes bins of 3 steps
    theirs = pd.DataFrame({"length": [10, 10, 60]})
    fig, ax = plt.subplots()
    oracle._lengths(ax, ours, theirs)
    heights = [sum(patch.get_height() for patch in container) for container in ax.containers]
    plt.close(fig)
    assert heights == pytest.approx([1.0, 1.0])  # density=True gave 1/3 each: divided by the width


def test_a_task_without_episodes_gets_no_bar_and_a_cross_not_a_zero():
    theirs = pd.DataFrame({"task_id": ["a", "a", "b", "c"], "success": [True, False, True, True]})
    ours = pd.DataFrame({"task_id": ["a", "c"], "success": [True, False]})  # no episode of b
    fig, ax = plt.subplots()
    oracle._goal_by_task(ax, ours, theirs)
    oracle_bars, our_bars = ([patch.get_height() for patch in c] for c in ax.containers)
    crosses = [line for line in ax.get_lines() if line.get_marker() == "x"]
    plt.close(fig)
    assert oracle_bars == [0.5, 1.0, 1.0]
    assert our_bars[0] == 1.0 and np.isnan(our_bars[1]) and our_bars[2] == 0.0  # c is a real 0%
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == pytest.approx([1.2])


@pytest.mark.parametrize("ours, expected", [
    (episode("b", seed=7, start=2.0), (2, True)),  # the same task, seed and first state
    (episode("b", seed=7, start=9.0), (1, False)),  # the same seed, another start: the task's first
    (episode("b", seed=5, start=2.0), (1, False)),  # a regenerated episode: its own seed
    (episode("z", seed=7, start=2.0), None),  # a task the oracle lacks
])
def test_an_episode_is_paired_with_the_oracles_episode_from_its_start(ours, expected):
    stored = [episode("a", 7, 2.0), episode("b", 3, 1.0), episode("b", 7, 2.0), episode("b", 8, 2.0)]
    frame = pd.DataFrame({"task_id": [e.task_id for e in stored], "seed": [e.seed for e in stored]})
    read = []

    def stored_episodes(dataset, domain, positions):
        read.extend(positions)
        return iter([stored[p] for p in positions])

    match = oracle._same_start(ours, frame, None, stored_episodes, None)
    if expected is None:
        assert match is None and read == []
    else:
        position, expert, same = match
        assert (position, same) == expected and expert is stored[position]
        assert set(read) <= {1, 2}  # only episodes of the task are read


def stub_card(name: str = "clevr-easy-imaginary-v0") -> Card:
    return Card(id=f"imaginebench/{name}", domain=name.split("-")[0], level=name.split("-")[1],
                source=name.split("-")[2], scale="demo", episodes=1, steps=2, tasks=1, phrasings=1,
                goal_consistency=1.0, transition_error_rate=0.0, illegal_state_rate=0.0,
                illegal_by_kind={}, length={"mean": 2.0, "min": 2, "max": 2, "std": 0.0},
                returns={"mean": 0.0, "min": 0.0, "max": 0.0, "std": 0.0}, per_task={},
                provenance={}, checksum="c" * 64)


def test_figures_not_drawn_this_time_do_not_outlive_the_card(tmp_path, monkeypatch):
    card = Card.from_json((CARDS / "clevr-easy-imaginary-v0.json").read_text())
    name = card.dataset_id.name
    for figure in ("episode", "vs-oracle"):  # an earlier build's pictures
        (tmp_path / f"{name}-{figure}.png").write_bytes(b"old")
    (tmp_path / "clevr-hard-imaginary-v0-episode.png").write_bytes(b"another card's")
    monkeypatch.setattr(render, "plot_card", lambda card, frame, path: path.write_bytes(b"plot"))
    monkeypatch.setattr(render, "draw_card_episode", lambda card, path: False)  # e.g. no OpenGL now
    monkeypatch.setattr(render, "plot_against_oracle", lambda card, frame, path: False)  # no oracle
    written = render.write_card_files(card, pd.DataFrame(), tmp_path)
    assert sorted(p.name for p in written) == [f"{name}.json", f"{name}.md", f"{name}.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["clevr-hard-imaginary-v0-episode.png", f"{name}.json", f"{name}.md", f"{name}.png"])
    assert "-episode.png" not in (tmp_path / f"{name}.md").read_text()


def test_a_first_episode_of_an_unknown_scene_skips_the_picture_with_a_warning(monkeypatch, tmp_path):
    """A Meta-World scene depends on its task: an import's first episode of an unresolved task
    cannot be drawn. The card goes on without the picture (it raised past publish before)."""
    import imaginebench_data.datasets.read as read

    unresolved = episode("unresolved", -1, 0.0)
    unresolved.states = np.zeros((4, 91), np.float32)
    card = stub_card("metaworld-train-real-v0")
    monkeypatch.setattr(read, "open_dataset", lambda dataset_id: (SimpleNamespace(total_episodes=1), card))
    monkeypatch.setattr(read, "stored_episodes", lambda dataset, domain, positions=None: iter([unresolved]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert draw_card_episode(card, tmp_path / "x.png") is False
    assert any("unknown task 'unresolved'" in str(w.message) for w in caught)
    assert not (tmp_path / "x.png").exists()


def test_plain_json_turns_numpy_non_finite_numbers_into_null():
    value = {"a": np.float64("nan"), "b": np.float32("inf"), "c": [np.float32(1.5), float("-inf")],
             "d": np.int64(2)}
    assert plain_json(value) == {"a": None, "b": None, "c": [1.5, None], "d": 2}
    json.dumps(plain_json(value), allow_nan=False)  # valid JSON


def test_inspect_counts_goal_consistency_over_resolved_tasks_as_the_card_does(monkeypatch):
    import imaginebench_data.quality.frame as frame_module
    from imaginebench_data.cli import app
    from imaginebench_data.domains import get_domain
    from imaginebench_data.quality.stats import quality_summary

    kinds = get_domain("clevr").illegal_kinds
    rows = [{"episode_id": i, "seed": i, "task_id": "unresolved" if i >= 6 else "red-left-of-blue",
             "phrasing_id": 0, "length": 5, "return": 0.0, "success": i < 6 and i % 2 == 0, "states": 6,
             "illegal_states": 0, "transition_errors": 0, **{f"illegal_{k}": 0 for k in kinds}}
            for i in range(10)]  # 6 resolved episodes, 3 reach the goal; 4 of no known task
    frame = pd.DataFrame(rows)
    monkeypatch.setattr(frame_module, "quality_frame", lambda dataset_id: frame.copy())
    assert quality_summary(frame, kinds)["goal_consistency"] == 0.5
    result = CliRunner().invoke(app, ["inspect", "imported/clevr-train-real-v0"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "10 episodes, goal consistency 50.00%" in result.output  # 30.00% before: 3 of all 10
    unresolved_row = next(line for line in result.output.splitlines() if "unresolved" in line)
    assert "n/a" in unresolved_row and "red-left-of-blue" not in unresolved_row


def test_a_committed_card_figure_is_where_its_markdown_says():
    """Every picture a committed card's Markdown shows exists beside it (and none is orphaned:
    test_ids_and_cards)."""
    shown = 0
    for markdown in CARDS.rglob("*.md"):
        for target in (line.split("](")[1].rstrip(")") for line in markdown.read_text().splitlines()
                       if line.startswith("![")):
            assert (markdown.parent / target).is_file(), f"{markdown}: {target}"
            shown += 1
    assert shown > 50


def test_a_killed_writers_staging_folder_in_the_cards_folder_is_removed_by_the_next(tmp_path, monkeypatch):
    """Card files are drawn in a staging folder beside them; a writer killed meanwhile left it in
    cards/ for good. It carries its owner now, and the next writer removes it once the owner is
    gone (and leaves a live writer's)."""
    import subprocess
    import sys

    from imaginebench_data.datasets import install

    card = Card.from_json((CARDS / "clevr-easy-imaginary-v0.json").read_text())
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead, live = tmp_path / ".staging-clevr-easy-imaginary-v0-dead", tmp_path / ".staging-other-live"
    for folder, pid in ((dead, int(gone.stdout)), (live, None)):
        folder.mkdir()
        (folder / "half.png").write_bytes(b"half")
        owner = install._owner() | ({} if pid is None else {"pid": pid, "start": "1"})
        (folder / install.OWNER).write_text(json.dumps(owner))
    monkeypatch.setattr(render, "plot_card", lambda card, frame, path: path.write_bytes(b"plot"))
    monkeypatch.setattr(render, "draw_card_episode", lambda card, path: False)
    monkeypatch.setattr(render, "plot_against_oracle", lambda card, frame, path: False)
    render.write_card_files(card, pd.DataFrame(), tmp_path)
    assert not dead.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [live.name]
