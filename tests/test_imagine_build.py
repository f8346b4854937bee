"""An imaginary dataset built end to end, read back by plain Minari in a fresh process."""

import json
from dataclasses import replace

import numpy as np
import pytest
from fresh import run_fresh

from imaginebench_data.datasets.read import DatasetNotFoundError
from imaginebench_data.domains import domain_names, get_domain
from imaginebench_data.imagine import checkpoints as store
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import build_order, load_recipes
from imaginebench_data.pipeline.rollout import episode_start
from imaginebench_data.quality.frame import quality_frame

TRAIN = "imaginebench/clevr-train-real-v0"
EASY = "imaginebench/clevr-easy-imaginary-v0"
HARD = "imaginebench/clevr-hard-imaginary-v0"


@pytest.fixture
def recipes():
    """The shipped recipes, with one training epoch so the test stays small."""
    return {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}


@pytest.fixture
def models(tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(store, "EVIDENCE_EPISODES", 16)
    return tmp_path / "models"


def test_imaginary_build_round_trip(minari_root, models, recipes, tmp_path, monkeypatch):
    cards = tmp_path / "cards"
    build(TRAIN, episodes=20, workers=1, cards_dir=cards, recipes=recipes, progress=False)
    trained = []
    original = store.train_grounding
    monkeypatch.setattr(store, "train_grounding", lambda *a, **k: trained.append(a) or original(*a, **k))
    easy = build(EASY, episodes=12, cards_dir=cards, recipes=recipes, progress=False)
    hard = build(HARD, episodes=6, cards_dir=cards, recipes=recipes, progress=False)
    assert len(trained) == 1  # the second dataset reuses the checkpoint
    [checkpoint] = list(models.iterdir())
    training = json.loads((checkpoint / "training.json").read_text())
    for result in (easy, hard):
        prov = result.card.provenance
        assert result.card.source == "imaginary" and prov["generator"] == "imagine"
        assert prov["checkpoint_hash"] == training["hash"] and prov["trained_on"] == TRAIN
        assert prov["backbone"].startswith("gpt2-scratch") and prov["sentence_encoder"] == "minilm"
        evidence = prov["evidence"]
        assert evidence["goal"]["episodes"] == 16 and evidence["next_state"]["held_out_transitions"] > 0
        assert evidence["decoding"] == get_domain("clevr").decoding
        assert all("goal_consistency" in task for task in result.card.per_task.values())
        decoding = prov["decoding"]  # the correction named, the raw predictions' rates beside
        assert decoding["correction"] == get_domain("clevr").decoding
        raw = decoding["raw_model_output"]
        assert raw["illegal_state_rate"] >= result.card.illegal_state_rate
        assert set(raw) == {"goal_consistency", "transition_error_rate", "illegal_state_rate",
                            "illegal_by_kind"}
    # hard rollouts are prompted afresh (one relation at a time), and the card says so
    assert hard.card.provenance["prompting"] == get_domain("clevr").prompting
    assert "prompting" not in easy.card.provenance  # one step per rollout: one prompt
    stored = json.loads((cards / "clevr-hard-imaginary-v0.json").read_text())
    assert stored == hard.card.to_json()
    # checked by two worker processes (the default) or in this one: the same data and figures
    alone = build(HARD, episodes=6, workers=1, force=True, cards_dir=tmp_path / "alone", recipes=recipes,
                  progress=False)
    assert hard.card.provenance["workers"] == 2 and alone.card.provenance["workers"] == 1
    figures = ("checksum", "goal_consistency", "transition_error_rate", "illegal_state_rate", "per_task")
    assert ({key: getattr(alone.card, key) for key in figures}
            == {key: getattr(hard.card, key) for key in figures})
    markdown = (cards / "clevr-hard-imaginary-v0.md").read_text()
    assert "Did the generator learn" in markdown and "| raw model output |" in markdown
    assert not any(c.startswith("raw_") for c in quality_frame(HARD).columns)  # never written
    script = f"""
import json, minari, numpy as np
ds = minari.load_dataset({EASY!r})
env = ds.recover_environment(eval_env=True)
obs, info = env.reset(seed=0)
starts = [ep.observations["state"][0].tolist() for ep in ds.iterate_episodes()]
lengths = [len(ep.actions) for ep in ds.iterate_episodes()]
out = {{"n": ds.total_episodes, "level": env.unwrapped.level, "starts": starts, "lengths": lengths}}
print(json.dumps(out))
"""
    out = json.loads(run_fresh(script, minari_root).strip().splitlines()[-1])
    assert out["n"] == 12 and out["level"] == "easy" and set(out["lengths"]) == {1}  # easy: one step
    domain = get_domain("clevr")
    sim = domain.simulator()
    seed = recipes[EASY].seed
    expected = [episode_start(domain, "easy", i, seed, sim).state for i in range(12)]
    np.testing.assert_allclose(out["starts"], expected)  # the oracle's real start states


def test_evidence_from_another_decoding_is_measured_again(tmp_path, monkeypatch):
    evidence = tmp_path / "evidence.json"
    assert not store.evidence_is_current(tmp_path, "clevr")  # none measured yet
    evidence.write_text(json.dumps({"goal": {}, "decoding": "each number rounded"}))
    assert not store.evidence_is_current(tmp_path, "clevr")
    evidence.write_text(json.dumps({"goal": {}, "decoding": get_domain("clevr").decoding}))
    assert store.evidence_is_current(tmp_path, "clevr")
    evidence.write_text(json.dumps({"goal": {}}))  # before decodings were recorded
    assert not store.evidence_is_current(tmp_path, "clevr")
    # a domain plug-in without a decoding (every built-in domain has one now)
    plain = replace(get_domain("clevr"), decoding="")
    monkeypatch.setattr(store, "get_domain", lambda name: plain)
    assert store.evidence_is_current(tmp_path, "plain")


def test_imaginary_build_needs_its_real_dataset(minari_root, models, recipes, tmp_path):
    with pytest.raises(DatasetNotFoundError, match="clevr-train-real-v0.*imaginebench build"):
        build(EASY, episodes=4, cards_dir=tmp_path / "cards", recipes=recipes, progress=False)
    assert not (minari_root / "imaginebench" / "clevr-easy-imaginary-v0").exists()
    assert not models.exists() or not any(models.iterdir())


class _Grounded(Exception):
    """Stops a build where grounding would start."""


def test_grounding_epochs_and_levers_follow_the_scale(minari_root, models, recipes, tmp_path, monkeypatch):
    recipes[EASY] = replace(recipes[EASY], train_epochs={"demo": 1, "paper": 2})
    build(TRAIN, episodes=20, workers=1, cards_dir=tmp_path / "cards", recipes=recipes, progress=False)
    epochs = []

    def record(*args, settings, **kwargs):
        epochs.append((settings.epochs, settings.symmetries, settings.length_split, settings.fused_adam))
        raise _Grounded

    monkeypatch.setattr(store, "train_grounding", record)
    for scale, given in (("demo", None), ("paper", None), ("paper", 7)):
        with pytest.raises(_Grounded):
            build(EASY, scale, episodes=4, workers=1, epochs=given, cards_dir=tmp_path / "cards",
                  recipes=recipes, progress=False)
    # CLEVR's demo builds ground on symmetric copies in batches of 2 parts, with the fused AdamW;
    # its paper builds do none of these
    assert epochs == [(1, True, 2, True), (2, False, 0, False), (7, False, 0, False)]
    assert not (minari_root / "imaginebench" / "clevr-easy-imaginary-v0").exists()
    # the shipped recipes: 20 epochs at demo scale; at paper scale KALM's 10 for CLEVR, 5 elsewhere
    shipped = load_recipes()
    assert shipped[EASY].train_epochs == {"demo": 20, "paper": 10}
    assert shipped["imaginebench/babyai-easy-verified-v0"].train_epochs == {"demo": 20, "paper": 5}
    with pytest.raises(ValueError, match="train_epochs must give every scale"):
        replace(shipped[EASY], train_epochs={"demo": 20})
    clevr_demo = {"symmetries": True, "length_split": 2, "fused_adam": True}
    for twin in (EASY, "imaginebench/clevr-hard-verified-v0"):
        assert shipped[twin].train_levers == {"demo": clevr_demo, "paper": {}}
    for domain in ("babyai", "metaworld", "halfcheetah", "libero"):
        levers = shipped[f"imaginebench/{domain}-easy-verified-v0"].train_levers
        assert levers == {"demo": {"fused_adam": True}, "paper": {}}, domain
    with pytest.raises(ValueError, match=r"train_levers are per scale .* got scale\(s\) \['large'\]"):
        replace(shipped[EASY], train_levers={"large": {"symmetries": True}})


def test_real_datasets_are_built_before_imaginary_ones(recipes):
    defaults = sorted(i for i, r in recipes.items() if r.default)
    assert defaults.index(EASY) < defaults.index(TRAIN)  # alphabetical order would fail
    ordered = build_order(defaults, recipes)
    assert ordered.index(TRAIN) < min(ordered.index(i) for i in (EASY, HARD))
    assert [i for i in ordered if "real" in i] == [i for i in defaults if "real" in i]


@pytest.mark.parametrize("generator", ["imagine", "verify"])
def test_every_model_recipe_twins_its_oracle(recipes, generator):
    imagined = [r for r in recipes.values() if r.generator == generator]
    assert len(imagined) == 3 * len({r.domain for r in recipes.values()})
    for recipe in imagined:
        oracle = recipes[str(recipe.dataset_id.with_(source="real"))]
        assert recipe.seed == oracle.seed and recipe.episodes == oracle.episodes
        assert recipe.default == oracle.default
        assert str(recipe.train_from) == f"imaginebench/{recipe.domain}-train-real-v0" in recipes


@pytest.mark.parametrize("domain", domain_names())
def test_each_domain_has_four_real_recipes_and_three_imagined_and_verified_twins(recipes, domain):
    ours = {i: r for i, r in recipes.items() if r.domain == domain}
    levels = ("train", "rephrase", "easy", "hard")
    expected = {f"imaginebench/{domain}-{level}-real-v0" for level in levels}
    expected |= {f"imaginebench/{domain}-{level}-{source}-v0" for level in levels[1:]
                 for source in ("imaginary", "verified")}
    assert set(ours) == expected
    assert all(r.default == (domain == "clevr") for r in ours.values())  # make demo builds CLEVR's
    other_seeds = {r.seed for r in recipes.values() if r.domain != domain}
    for level in levels[1:]:
        imagined = ours[f"imaginebench/{domain}-{level}-imaginary-v0"]
        assert str(imagined.train_from) == f"imaginebench/{domain}-train-real-v0"
        assert imagined.generator == "imagine"
        assert imagined.seed == ours[f"imaginebench/{domain}-{level}-real-v0"].seed
        assert imagined.seed not in other_seeds
        verified = ours[f"imaginebench/{domain}-{level}-verified-v0"]
        assert (verified.generator, verified.seed, verified.train_from) == ("verify", imagined.seed,
                                                                           imagined.train_from)
