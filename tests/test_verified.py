"""Verified datasets: only episodes that pass every checker, failed ones imagined again from a
new start within the budget, the budget and acceptance recorded in the card.

The model is replaced by a stand-in that rolls out the expert from each start (which passes
every checker) and corrupts chosen attempts (which then fail), so the test knows which
attempt of which episode must be accepted.
"""

from dataclasses import replace

import numpy as np
import pytest

from imaginebench_data.datasets.read import local_ids, read_card, stored_episodes
from imaginebench_data.domains import get_domain
from imaginebench_data.pipeline import verified
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes
from imaginebench_data.pipeline.rollout import episode_seed, episode_start, rollout_episode
from imaginebench_data.pipeline.verified import NothingVerifiedError, failed_criteria
from imaginebench_data.quality.checkers import annotate

DATASET = "imaginebench/clevr-rephrase-verified-v0"
COUNT = 8
CLEVR = get_domain("clevr")


def outside(index, attempt):
    """The stand-in's count of actions outside the space for an attempt (one number per attempt)."""
    return 100 * attempt + index + 1


def expert_from(start, sim):
    """The expert's rollout from ``start`` (states, actions)."""
    sim.set_state(start.task, start.state)
    expert = CLEVR.expert(start.task, np.random.default_rng(0), sim)
    states, actions = [start.state], []
    while len(actions) < start.task.horizon:
        action = expert.act(states[-1])
        actions.append(action)
        states.append(sim.step(action))
        if start.task.succeeded(states[-2], action, states[-1]):
            break
    return np.array(states), np.array(actions)


@pytest.fixture
def stand_in(monkeypatch):
    """Replace the grounded model; ``fails`` is the set of (episode index, attempt) to corrupt."""
    recipe = replace(load_recipes()[DATASET], attempts=3)
    attempt_of = {episode_seed(recipe.seed, i, k): (i, k) for i in range(COUNT) for k in range(3)}
    fails: set = set()
    made: list = []

    def rollouts(model, domain, starts, *, source, provenance, **_):
        sim = domain.simulator()
        for start in starts:
            index, attempt = attempt_of[start.seed]
            states, actions = expert_from(start, sim)
            if (index, attempt) in fails:
                states[-1, :2] += 0.05  # the red ball 5 cm off where the push leaves it
            made.append((index, attempt))
            episode = rollout_episode(domain, start, states, actions, source=source)
            episode.generation_counts = {"actions_outside_space": outside(index, attempt)}
            yield episode

    provenance = {"checkpoint_hash": "stand-in", "actions_outside_space": 0}
    monkeypatch.setattr(verified, "grounded_model", lambda *a, **k: (["stand-in"], provenance, None))
    monkeypatch.setattr(verified, "imagined_rollouts", rollouts)
    monkeypatch.setattr(verified, "model_loader", lambda paths: lambda: None)  # never loaded
    return {DATASET: recipe}, fails, made


@pytest.mark.parametrize("workers", [1, 2])
def test_failed_episodes_are_imagined_again_until_they_pass_or_the_budget_ends(minari_root, tmp_path,
                                                                                stand_in, workers):
    recipes, fails, made = stand_in
    fails |= {(i, 0) for i in range(0, COUNT, 2)} | {(0, 1), (0, 2)}  # episode 0 never passes
    oracle = "imaginebench/clevr-rephrase-real-v0"
    build(oracle, episodes=4, workers=1, cards_dir=tmp_path, progress=False)
    assert not (tmp_path / "clevr-rephrase-real-v0-vs-oracle.png").exists()  # real data has none
    result = build(DATASET, episodes=COUNT, workers=workers, cards_dir=tmp_path, recipes=recipes,
                   progress=False)
    assert (tmp_path / "clevr-rephrase-verified-v0-vs-oracle.png").stat().st_size > 10_000
    markdown = (tmp_path / "clevr-rephrase-verified-v0.md").read_text()
    assert "## Against the oracle" in markdown and "clevr-rephrase-verified-v0-vs-oracle.png" in markdown
    assert made == [(i, 0) for i in range(COUNT)] + [(i, 1) for i in range(0, COUNT, 2)] + [(0, 2)]
    card = result.card
    assert card.source == "verified" and card.episodes == COUNT - 1 and card.goal_consistency == 1.0
    assert card.illegal_state_rate == 0.0 and card.transition_error_rate == 0.0
    verification = card.provenance["verification"]
    rejected = verification.pop("rejected_by")
    assert verification == {"criteria": ["goal_consistent", "legal", "transition_ok"],
                            "attempts_per_episode": 3, "requested": COUNT, "attempts": 13, "accepted": 7,
                            "acceptance_rate": 7 / 13}
    # the card counts the clipped actions of the episodes kept (1, 3, 5, 7 at their first attempt;
    # 2, 4, 6 at their second), not those of the 6 rejected attempts (before 2026-12-07: 13 attempts')
    kept = [outside(i, 0 if i % 2 else 1) for i in range(1, COUNT)]
    assert card.provenance["actions_outside_space"] == sum(kept) == 335
    assert sum(outside(i, k) for i, k in made) == 653
    # every corrupted attempt breaks its transition; moving a ball may also miss the goal or overlap
    assert rejected["transition_ok"] == 6 and max(rejected.values()) == 6
    assert "| 8 | 7 | 13 | 24 | 53.85% |" in (tmp_path / "clevr-rephrase-verified-v0.md").read_text()
    import minari

    dataset = minari.load_dataset(DATASET)
    stored = list(dataset.iterate_episodes())
    seed = recipes[DATASET].seed
    expected = [episode_seed(seed, i, 0 if i % 2 else 1) for i in range(1, COUNT)]  # in episode order
    assert [int(ep.id) for ep in stored] == list(range(COUNT - 1))
    episodes = list(stored_episodes(dataset, CLEVR))
    assert [e.seed for e in episodes] == expected
    assert {e.source for e in episodes} == {"verified"}
    assert [e.task_id for e in episodes] == [CLEVR.tasks("rephrase")[i].id for i in range(1, COUNT)]


def test_nothing_passing_writes_nothing_and_keeps_the_previous_version(minari_root, tmp_path, stand_in):
    recipes, fails, _ = stand_in
    build(DATASET, episodes=2, workers=1, cards_dir=tmp_path, recipes=recipes, progress=False)
    before = read_card(DATASET).checksum
    fails |= {(i, k) for i in range(COUNT) for k in range(3)}
    expected = r"none of 24 imagined episodes passed .* Nothing was written"
    with pytest.raises(NothingVerifiedError, match=expected):
        build(DATASET, episodes=COUNT, workers=1, force=True, cards_dir=tmp_path, recipes=recipes,
              progress=False)
    assert DATASET in local_ids() and read_card(DATASET).checksum == before


def test_failed_criteria_names_each_broken_check():
    sim = CLEVR.simulator()
    start = episode_start(CLEVR, "rephrase", 0, 2000, sim)
    states, actions = expert_from(start, sim)
    good = annotate(CLEVR, rollout_episode(CLEVR, start, states, actions, source="verified"), sim)
    assert failed_criteria(good) == []
    off_table = states.copy()
    off_table[-1, 0] = 5.0  # the red ball far off the table: illegal, mis-simulated, goal missed
    bad = annotate(CLEVR, rollout_episode(CLEVR, start, off_table, actions, source="verified"), sim)
    assert failed_criteria(bad) == ["goal_consistent", "legal", "transition_ok"]


def test_build_command_reports_a_verified_set_with_nothing_kept_and_goes_on(minari_root, tmp_path, stand_in,
                                                                            monkeypatch):
    from typer.testing import CliRunner

    from imaginebench_data import cli
    from imaginebench_data.pipeline import recipe

    recipes, fails, _ = stand_in
    monkeypatch.setattr(recipe, "load_recipes", lambda: {**load_recipes(), **recipes})
    fails |= {(i, k) for i in range(COUNT) for k in range(3)}
    args = ["build", DATASET, "imaginebench/clevr-easy-real-v0", "--episodes", "3", "--workers", "1",
            "--cards-dir", str(tmp_path)]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert "none of 9 imagined episodes passed" in result.output and "not built: no episode" in result.output
    assert local_ids() == ["imaginebench/clevr-easy-real-v0"]  # the other build went on
