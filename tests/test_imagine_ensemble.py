"""Groundings imagining as one (``imagine.ensemble``), and builds that take them (``--ensemble``)."""

import json
from dataclasses import replace

import minari
import numpy as np
import pytest
import torch
from imagine_helpers import CLEVR, set_heads, tiny_model
from test_imagine_levers import BINNED

from imaginebench_data.imagine import checkpoints as store
from imaginebench_data.imagine.checkpoint import load_checkpoint, save_checkpoint
from imaginebench_data.imagine.ensemble import Ensemble, load_model
from imaginebench_data.imagine.generate import Prompt, imagine
from imaginebench_data.imagine.train import SentenceTable
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes
from imaginebench_data.pipeline.rollout import episode_start

TRAIN, EASY = "imaginebench/clevr-train-real-v0", "imaginebench/clevr-easy-imaginary-v0"


def saved(model, path):
    save_checkpoint(model, path, {"epochs": 0})
    return path


def prompts(count: int, level: str = "train") -> list[Prompt]:
    sim = CLEVR.simulator()
    starts = [episode_start(CLEVR, level, i, 5, sim) for i in range(count)]
    return [Prompt(s.task, s.instruction, s.state) for s in starts]


def rollouts(model, batch: list[Prompt]):
    return list(imagine(model, batch, lambda _: None, batch_size=4))


def test_an_ensemble_of_one_checkpoint_imagines_what_the_checkpoint_imagines(tmp_path):
    path = saved(tiny_model(seed=3), tmp_path / "one")
    batch = prompts(6)
    alone = rollouts(load_checkpoint(path), batch)
    for model in (Ensemble([path, path]), Ensemble([path]), load_model(f"{path},{path}")):
        for mine, theirs in zip(rollouts(model, batch), alone, strict=True):
            np.testing.assert_array_equal(mine.states, theirs.states)
            np.testing.assert_array_equal(mine.actions, theirs.actions)
            assert mine.success == theirs.success
    assert type(load_model(str(path))).__name__ == "GroundedLM"


def test_an_ensemble_acts_by_its_members_mean_probabilities_and_moves_by_their_mean(tmp_path):
    sure, torn = tiny_model(seed=1), tiny_model(seed=2)
    set_heads(sure, 3, np.r_[0.02, np.zeros(9)])  # action 3, almost surely; red moves 2 cm in x
    set_heads(torn, 7, np.r_[0.06, np.zeros(9)])  # action 7 ...
    with torch.no_grad():
        torn.action_head.bias[3] = 9.0  # ... with action 3 a close second: p = 0.27 against 0.73
    paths = [saved(sure, tmp_path / "sure"), saved(torn, tmp_path / "torn")]
    batch = prompts(4)
    [single] = rollouts(load_checkpoint(paths[1]), batch[:1])
    assert set(single.actions.tolist()) == {7}  # the torn member alone takes its likelier action
    for rollout, prompt in zip(rollouts(Ensemble(paths), batch), batch, strict=True):
        assert set(rollout.actions.tolist()) == {3}  # mean probabilities 0.63 against 0.37
        steps = np.arange(len(rollout.states))
        np.testing.assert_allclose(rollout.states[:, 0], prompt.start[0] + 0.04 * steps, atol=1e-5)
        np.testing.assert_allclose(rollout.states[:, 1:], np.broadcast_to(prompt.start[1:], (len(steps), 9)))


def test_an_ensemble_with_action_bins_averages_each_numbers_probabilities(tmp_path):
    members = [tiny_model(seed=s, **BINNED) for s in (1, 2)]
    with torch.no_grad():
        for member, favoured in zip(members, ({1: 10.0}, {3: 10.0, 1: 9.0})):
            member.action_head.weight.zero_()
            member.action_head.bias.fill_(-10.0)
            for number in range(3):
                for value, logit in favoured.items():
                    member.action_head.bias[number * 5 + value] = logit
    ensemble = Ensemble([saved(m, tmp_path / f"m{i}") for i, m in enumerate(members)])
    hidden = torch.zeros(2, 2 * members[0].config.scratch["n_embd"])
    np.testing.assert_array_equal(ensemble.choose_action(hidden).numpy(), np.full((2, 3), -0.5))  # value 1
    np.testing.assert_array_equal(ensemble.members[1].choose_action(hidden[:, 32:]).numpy(),
                                  np.full((2, 3), 0.5))  # the second member alone: value 3


def test_members_of_another_training_set_are_refused_in_one_line(tmp_path):
    smaller = tiny_model(seed=1, state_dim=4, state_mean=[0.0] * 4, state_std=[1.0] * 4, delta_std=[1.0] * 4)
    paths = [saved(tiny_model(seed=1), tmp_path / "a"), saved(smaller, tmp_path / "b")]
    expected = r"ensemble member .*{}: expected the backbone, tokenizer, state size and actions of .*a"
    with pytest.raises(ValueError, match=expected.format("b")):
        Ensemble(paths)
    wider = tiny_model(seed=1, scratch={"n_layer": 1, "n_head": 2, "n_embd": 64})
    with pytest.raises(ValueError, match=expected.format("c")):
        Ensemble([paths[0], saved(wider, tmp_path / "c")])
    with pytest.raises(ValueError, match="at least one checkpoint"):
        Ensemble([])


def test_a_build_with_an_ensemble_grounds_each_seed_names_them_and_imagines_with_all(minari_root, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(store, "EVIDENCE_EPISODES", 4)
    recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
    build(TRAIN, episodes=20, workers=1, cards_dir=tmp_path, recipes=recipes, progress=False)
    result = build(EASY, episodes=8, workers=1, cards_dir=tmp_path, recipes=recipes, progress=False,
                   ensemble=2)
    members = sorted((tmp_path / "models").iterdir())
    assert len(members) == 2
    prov = result.card.provenance
    seeds = {json.loads((m / "training.json").read_text())["settings"]["seed"]: m for m in members}
    first = recipes[EASY].grounding("demo").seed
    assert sorted(seeds) == [first, first + 1]
    named, one, other = prov["ensemble"], seeds[first], seeds[first + 1]
    assert named["members"] == [one.name, other.name] and named["seeds"] == [first, first + 1]
    assert prov["checkpoint"] == one.name and prov["checkpoint_hash"] == named["checkpoint_hashes"][0]
    assert named["checkpoint_hashes"][0] != named["checkpoint_hashes"][1]
    # the stored episodes are what the two imagine as one, not what either imagines alone
    sim, recipe = CLEVR.simulator(), recipes[EASY]
    starts = [episode_start(CLEVR, "easy", i, recipe.seed, sim) for i in range(8)]
    batch = [Prompt(s.task, s.instruction, s.state) for s in starts]
    sentences = SentenceTable("minilm")

    def actions(model) -> list:
        made = imagine(model, batch, sentences, batch_size=64, decode=CLEVR.decode_state)
        return [r.actions.tolist() for r in made]

    stored = [e.actions.tolist() for e in minari.load_dataset(EASY).iterate_episodes()]
    assert stored == actions(Ensemble([one, other]))
    assert stored != actions(load_checkpoint(one)) and stored != actions(load_checkpoint(other))
    single = build(EASY, episodes=8, workers=1, cards_dir=tmp_path / "single", recipes=recipes,
                   progress=False, force=True)
    assert "ensemble" not in single.card.provenance and single.card.provenance["checkpoint"] == one.name
