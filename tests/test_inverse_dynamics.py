"""Actions inferred from imagined transitions (``imagine.inverse_dynamics``, ``build --actions inferred``)."""

import json
from dataclasses import replace

import gymnasium as gym
import minari
import numpy as np
import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.domains import get_domain
from imaginebench_data.domains.clevr.checks import TRANSITION_TOLERANCE, transition_distance
from imaginebench_data.imagine import checkpoints as store
from imaginebench_data.imagine.inverse_dynamics import InverseDynamics, InverseDynamicsSettings
from imaginebench_data.loader.transitions import load
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.generators import inferred_actions
from imaginebench_data.pipeline.recipe import load_recipes

TRAIN, REPHRASE = "imaginebench/clevr-train-real-v0", "imaginebench/clevr-rephrase-imaginary-v0"
FAST = InverseDynamicsSettings(steps=600)
CLEVR = get_domain("clevr")
MOVES = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], np.float32) * 0.1  # action k moves the point by MOVES[k]


def pushes(count: int, seed: int):
    """A point on the plane moved by one of four pushes: (states, next states, actions, episode ids)."""
    rng = np.random.default_rng(seed)
    states = rng.uniform(-1, 1, (count, 2)).astype(np.float32)
    actions = rng.integers(4, size=count)
    return states, states + MOVES[actions], actions, np.arange(count) // 5


def test_a_discrete_inverse_dynamics_model_infers_the_push_between_two_states():
    states, following, actions, episodes = pushes(2000, 0)
    model = InverseDynamics.fit(states, following, actions, episodes, gym.spaces.Discrete(4), FAST)
    assert model.report["held_out_transitions"] == 200 and model.report["held_out_accuracy"] >= 0.99
    new, after, truth, _ = pushes(400, 1)
    inferred = model(new, after)
    assert inferred.dtype == np.int64 and np.mean(inferred == truth) >= 0.99
    # the same transitions with the move reversed read as the opposite push
    assert np.mean(model(new, new - MOVES[truth]) == (truth + 2) % 4) >= 0.99


def test_a_continuous_one_regresses_the_action_and_clips_it_into_the_space():
    rng = np.random.default_rng(0)
    states = rng.uniform(-1, 1, (2000, 3)).astype(np.float32)
    actions = rng.uniform(-1, 1, (2000, 2)).astype(np.float32)
    following = states.copy()
    following[:, :2] += 0.05 * actions
    space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    model = InverseDynamics.fit(states, following, actions, np.arange(2000) // 10, space, FAST)
    assert min(model.report["held_out_r2"]) > 0.95
    inferred = model(states[:100], following[:100])
    assert inferred.dtype == np.float32 and np.abs(inferred - actions[:100]).mean() < 0.1
    far = states[:100].copy()
    far[:, 0] += 0.5  # ten times the largest step: an action of 10, clipped to the space's 1
    assert np.all(model(states[:100], far)[:, 0] == 1.0)


def test_two_fits_with_one_seed_infer_the_same_bits_and_another_seed_other_ones():
    states, following, actions, episodes = pushes(1000, 0)
    space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    moves = MOVES[actions] * 10

    def fitted(seed: int) -> np.ndarray:
        settings = replace(FAST, seed=seed, steps=200)
        return InverseDynamics.fit(states, following, moves, episodes, space, settings)(states, following)

    assert np.array_equal(fitted(0), fitted(0))
    assert not np.array_equal(fitted(0), fitted(1))


def test_where_the_imagined_state_does_not_change_the_model_s_action_stays():
    """No expert push leaves the point still, so the inverse model names a push there, which
    the simulator would make; the stored action there is the grounded model's."""
    states, following, actions, episodes = pushes(2000, 0)
    model = InverseDynamics.fit(states, following, actions, episodes, gym.spaces.Discrete(4), FAST)
    # the point pushed +x, then still, then pushed +y, then still
    path = np.array([[0.0, 0.0], [0.1, 0.0], [0.1, 0.0], [0.1, 0.1], [0.1, 0.1]], np.float32)
    raw = model(path[:-1], path[1:])
    assert raw[0] == 0 and raw[2] == 1  # the moves read right
    chosen = np.array([3, (raw[1] + 1) % 4, 2, (raw[3] + 2) % 4])  # none is the inverse model's
    record = {"compared": 0, "changed": 0, "kept_where_nothing_changes": 0}
    stored = inferred_actions(model, path, chosen, record)
    assert stored.tolist() == [0, chosen[1], 1, chosen[3]]
    assert record == {"compared": 4, "changed": 2, "kept_where_nothing_changes": 2}
    # continuous actions: a still step keeps the model's action exactly, a moving one is inferred
    box = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    moves = InverseDynamics.fit(states, following, MOVES[actions] * 10, episodes, box, FAST)
    guessed = np.full((4, 2), 0.3, np.float32)
    record = {"compared": 0, "changed": 0, "kept_where_nothing_changes": 0}
    stored = inferred_actions(moves, path, guessed.copy(), record)
    assert np.array_equal(stored[[1, 3]], guessed[[1, 3]])
    assert np.abs(stored[0] - [1.0, 0.0]).max() < 0.2 and np.abs(stored[2] - [0.0, 1.0]).max() < 0.2
    assert record == {"compared": 4, "changed": 2, "kept_where_nothing_changes": 2}


def test_an_unknown_action_source_is_refused_in_one_line():
    result = CliRunner().invoke(app, ["build", REPHRASE, "--actions", "guessed"])
    said = " ".join(result.output.replace("│", " ").split())  # the words, whatever rich's box wraps
    assert result.exit_code == 2 and "expected one of model, inferred, got 'guessed'" in said
    assert "Traceback" not in result.output


def test_a_build_with_inferred_actions_keeps_the_imagined_states_and_stores_the_inferred_actions(
        minari_root, tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(store, "EVIDENCE_EPISODES", 4)
    recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
    build(TRAIN, episodes=20, workers=1, cards_dir=tmp_path, recipes=recipes, progress=False)
    options = {"episodes": 8, "workers": 1, "recipes": recipes, "progress": False}
    plain = build(REPHRASE, cards_dir=tmp_path / "model", **options)
    before = list(minari.load_dataset(REPHRASE).iterate_episodes())
    inferred = build(REPHRASE, cards_dir=tmp_path / "inferred", force=True, actions="inferred", **options)
    after = list(minari.load_dataset(REPHRASE).iterate_episodes())
    assert "actions" not in plain.card.provenance
    record = inferred.card.provenance["actions"]
    assert record["source"] == "inferred" and record["trained_on"] == TRAIN
    steps = sum(len(e.actions) for e in after)
    assert record["compared"] == steps == inferred.card.steps
    for one, other in zip(before, after, strict=True):  # the same imagined states, episode by episode
        assert np.array_equal(one.observations["state"], other.observations["state"])
    changed = sum(int(np.sum(one.actions != other.actions)) for one, other in zip(before, after))
    assert record["changed"] == changed > 0
    # the stored actions are the inverse dynamics model's, fitted afresh on the training set
    real = load(TRAIN)
    assert record["training_checksum"] == real.card.checksum
    model = InverseDynamics.fit(real.observations, real.next_observations, real.actions, real.episode_ids,
                                gym.spaces.Discrete(40))
    assert record["inverse_dynamics"] == json.loads(json.dumps(model.report))
    kept = 0
    for one, episode in zip(before, after):  # the model's action kept where nothing changes
        states = episode.observations["state"]
        still = np.all(states[1:] == states[:-1], axis=1)
        assert np.array_equal(episode.actions, np.where(still, one.actions, model(states[:-1], states[1:])))
        kept += int(still.sum())
    assert record["kept_where_nothing_changes"] == kept
    # the transition checker judged the inferred actions, not the model's
    sim = CLEVR.simulator()
    for episode in after:
        states = episode.observations["state"]
        landed = np.array([sim.step_from(s, a) for s, a in zip(states[:-1], episode.actions)])
        within = transition_distance(landed, states[1:]) <= TRANSITION_TOLERANCE
        assert np.array_equal(episode.infos["transition_ok"][1:], within)  # [0]: the reset's
    with pytest.raises(ValueError, match="expected one of model, inferred, got 'both'"):
        build(REPHRASE, cards_dir=tmp_path / "x", force=True, actions="both", **options)
