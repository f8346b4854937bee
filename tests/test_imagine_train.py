"""Grounding on a tiny real dataset: the scratch GPT-2 (with MiniLM) and a Llama saved by path (LoRA)."""

import dataclasses
import json

import numpy as np
import pytest
import torch
from imagine_helpers import CLEVR
from tiny import built_root
from transformers import LlamaConfig, LlamaForCausalLM

from imaginebench_data.imagine import train
from imaginebench_data.imagine.checkpoint import checkpoint_hash, load_checkpoint, training_info
from imaginebench_data.imagine.checkpoints import checkpoint_provenance
from imaginebench_data.imagine.data import read_episodes, split
from imaginebench_data.imagine.evidence import predict_next_states
from imaginebench_data.imagine.generate import Prompt, imagine_batch
from imaginebench_data.imagine.sequences import TEMPLATE_TEXTS
from imaginebench_data.imagine.tokenizer import build_word_tokenizer
from imaginebench_data.imagine.train import SentenceTable, TrainSettings, train_grounding

TRAIN = "imaginebench/clevr-train-real-v0"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    with built_root(tmp_path_factory, TRAIN, 30) as root:
        yield root


@pytest.fixture
def in_real(real, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(real))


def held_out_transitions():
    _, held = split(read_episodes(TRAIN)[0])
    return (np.concatenate([e.states[:-1] for e in held]), np.concatenate([e.actions for e in held]))


def test_scratch_backbone_trains_saves_and_reloads(in_real, tmp_path):
    digest = train_grounding(TRAIN, tmp_path / "ckpt", settings=TrainSettings(epochs=3, batch_size=16),
                             progress=False)
    info = training_info(tmp_path / "ckpt")
    assert digest == info["hash"] == checkpoint_hash(tmp_path / "ckpt")
    assert info["episodes"] == 27 and info["held_out_episodes"] == 3
    first, last = info["history"][0], info["history"][-1]
    assert all(last[loss] < first[loss] for loss in ("state", "action", "text"))
    model = load_checkpoint(tmp_path / "ckpt")
    assert model.config.sentence_encoder == "minilm" and model.config.sentence_dim == 384
    assert model.config.train_dataset == TRAIN
    states, actions = held_out_transitions()
    again = load_checkpoint(tmp_path / "ckpt")
    np.testing.assert_array_equal(predict_next_states(model, CLEVR, states, actions),
                                  predict_next_states(again, CLEVR, states, actions))


def save_tiny_llama(path):
    """A randomly initialised Llama-architecture model saved exactly as a real one would be."""
    texts = [*TEMPLATE_TEXTS, *(p for t in CLEVR.tasks("train") for p in t.phrasings)]
    tokenizer = build_word_tokenizer(texts)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.mark.parametrize("lora", [4, 0])
def test_llama_backbone_by_path(in_real, tmp_path, lora):
    from peft import PeftModel

    llama = save_tiny_llama(tmp_path / "tiny-llama")
    base_weights = (llama / "model.safetensors").read_bytes()
    train_grounding(TRAIN, tmp_path / "ckpt", backbone=str(llama), lora=lora, sentence_encoder=None,
                    settings=TrainSettings(epochs=1, batch_size=16), progress=False)
    info = training_info(tmp_path / "ckpt")
    saved = {p.name for p in (tmp_path / "ckpt" / "backbone").iterdir()}
    model = load_checkpoint(tmp_path / "ckpt")
    assert model.config.backbone == str(llama) and model.config.backbone_name == "tiny-llama"
    assert (llama / "model.safetensors").read_bytes() == base_weights  # the user's model is never written
    if lora:
        assert isinstance(model.backbone, PeftModel) and "adapter_model.safetensors" in saved
        assert "model.safetensors" not in saved
        assert info["trainable_parameters"] < info["parameters"]
    else:
        assert "model.safetensors" in saved and info["trainable_parameters"] == info["parameters"]
    sim = CLEVR.simulator()
    rng = np.random.default_rng(0)
    tasks = CLEVR.tasks("rephrase")[:3]
    prompts = [Prompt(t, t.phrasings[0], sim.reset(t, rng)) for t in tasks]
    none = SentenceTable(None)
    cached, naive = imagine_batch(model, prompts, none), imagine_batch(model, prompts, none, cache=False)
    for a, b in zip(cached, naive):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_allclose(a.states, b.states, atol=1e-4)
    assert json.loads((tmp_path / "ckpt" / "config.json").read_text())["lora"] == lora


def test_levers_reach_the_grounded_model(in_real, tmp_path, monkeypatch):
    with_history = dataclasses.replace(CLEVR, history_columns=(0, 1))
    monkeypatch.setattr(train, "get_domain", lambda name: with_history)
    settings = TrainSettings(epochs=1, batch_size=16, dynamics_per_episode=4, hide_history=True,
                             short_apart=True)
    train_grounding(TRAIN, tmp_path / "ckpt", settings=settings, progress=False)
    model = load_checkpoint(tmp_path / "ckpt")
    assert model.config.hidden_columns == [0, 1]
    info = training_info(tmp_path / "ckpt")
    assert info["settings"]["short_apart"] and info["sequences"] == 27 * (2 + 4)
    states = torch.zeros(2, 10)
    moved = states.clone()
    moved[:, :2] = 3.0
    assert torch.equal(model.embed_states(states), model.embed_states(moved))


def test_hiding_the_columns_training_never_varied_changes_no_weight(in_real, tmp_path, monkeypatch):
    episodes, checksum = read_episodes(TRAIN)
    for episode in episodes:
        episode.states[:, 3] = 0.7  # one ball's x never moves in training
    monkeypatch.setattr(train, "read_episodes", lambda dataset_id: (episodes, checksum))
    settings = TrainSettings(epochs=1, batch_size=16)
    train_grounding(TRAIN, tmp_path / "plain", settings=settings, progress=False)
    train_grounding(TRAIN, tmp_path / "hidden", settings=dataclasses.replace(settings, hide_unseen=True),
                    progress=False)
    plain, hidden = load_checkpoint(tmp_path / "plain"), load_checkpoint(tmp_path / "hidden")
    assert plain.config.hidden_columns == [] and hidden.config.hidden_columns == [3]
    weights = {k: v for k, v in hidden.state_dict().items() if k != "hidden_columns"}
    assert weights.keys() == plain.state_dict().keys()
    for name, tensor in plain.state_dict().items():  # trained to the same bits
        assert torch.equal(tensor, weights[name]), name
    # ... yet a novel scene's value there reaches only the plain model's untrained weights
    states = torch.tensor(np.stack([episodes[0].states[0]] * 2))
    states[1, 3] = 5.0
    assert torch.equal(*hidden.embed_states(states))
    assert not torch.allclose(*plain.embed_states(states))
    (tmp_path / "hidden" / "evidence.json").write_text("{}")
    line = checkpoint_provenance(tmp_path / "hidden")["hidden_state_columns"]
    assert line == "1 state columns the model sees at their training mean (the columns the training set " \
                   "never varied): 3"


def test_action_bins_are_refused_for_discrete_actions(in_real, tmp_path):
    with pytest.raises(ValueError, match="--action-bins applies to continuous actions; clevr's are discrete"):
        train_grounding(TRAIN, tmp_path / "ckpt", settings=TrainSettings(epochs=1, action_bins=5),
                        progress=False)
    assert not (tmp_path / "ckpt").exists()
