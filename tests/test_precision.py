"""Grounding precision modes (imagine/precision.py): every trainable weight moves in each mode
offered, bf16 weights only where they are frozen, and the checkpoint key tells modes apart."""

import pytest
import torch
from safetensors.torch import load_file
from test_imagine_train import TRAIN, save_tiny_llama
from tiny import built_root

from imaginebench_data.imagine import checkpoints
from imaginebench_data.imagine.checkpoint import training_info
from imaginebench_data.imagine.precision import resolve
from imaginebench_data.imagine.train import TrainSettings, train_grounding


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    with built_root(tmp_path_factory, TRAIN, 10) as root:
        yield root


def unchanged(before: dict[str, torch.Tensor], after: dict[str, torch.Tensor]) -> list[str]:
    """Names of the tensors of ``before`` whose every element is the same in ``after``."""
    return [name for name, weights in before.items() if torch.equal(after[name].float(), weights.float())]


@pytest.mark.parametrize("precision", ["fp32", "bf16-mixed"])
def test_full_fine_tuning_changes_every_backbone_weight(real, tmp_path, monkeypatch, precision):
    """Three optimiser steps at the warm-up's smallest learning rates (about 1e-6): Adam's first
    updates are ~1e-6 per weight, which fp32 master weights keep and bf16 weights would round away."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(real))
    llama = save_tiny_llama(tmp_path / "tiny-llama")
    before = load_file(str(llama / "model.safetensors"))
    train_grounding(TRAIN, tmp_path / "ckpt", backbone=str(llama), sentence_encoder=None, progress=False,
                    settings=TrainSettings(epochs=1, batch_size=12, precision=precision))
    after = load_file(str(tmp_path / "ckpt" / "backbone" / "model.safetensors"))
    assert set(after) == set(before) and all(t.dtype == torch.float32 for t in after.values())
    assert unchanged(before, after) == []
    info = training_info(tmp_path / "ckpt")
    assert info["precision"] == precision and info["sequences"] == 36  # 9 training episodes x 4


def test_bf16_weights_only_under_lora(real, tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(real))
    with pytest.raises(ValueError, match="only frozen weights under LoRA"):
        resolve("bf16", "cpu", lora=0)
    llama = save_tiny_llama(tmp_path / "tiny-llama")
    base = load_file(str(llama / "model.safetensors"))
    train_grounding(TRAIN, tmp_path / "ckpt", backbone=str(llama), lora=2, sentence_encoder=None,
                    settings=TrainSettings(epochs=1, batch_size=12, precision="bf16"), progress=False)
    adapter = load_file(str(tmp_path / "ckpt" / "backbone" / "adapter_model.safetensors"))
    assert adapter and all(t.dtype == torch.float32 for t in adapter.values())  # adapters train in fp32
    # LoRA's B starts at zero and A at random: after three steps both have moved.
    assert all(not torch.equal(t, torch.zeros_like(t)) for name, t in adapter.items() if "lora_B" in name)
    assert load_file(str(llama / "model.safetensors")).keys() == base.keys()
    assert training_info(tmp_path / "ckpt")["precision"] == "bf16"


def test_auto_is_fp32_on_a_cpu_and_the_checkpoint_key_separates_modes(real, monkeypatch, tmp_path):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(real))
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path))
    assert resolve("auto", "cpu", lora=0).mode == "fp32"
    assert resolve("auto", "cpu", lora=4).weights == torch.float32

    def folder(lora=0, **settings):
        return checkpoints.checkpoint_dir(TRAIN, "scratch", lora, "minilm", TrainSettings(**settings))

    assert folder(precision="auto") == folder(precision="fp32") != folder(precision="bf16-mixed")
    others = [folder(seed=1), folder(epochs=2), folder(batch_size=8), folder(lora=4), folder()]
    assert len(set(others)) == len(others)  # seed, epochs, batch size and LoRA rank each change the key
