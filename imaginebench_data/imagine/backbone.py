"""Backbones: the scratch GPT-2 built here, or any local Hugging Face causal LM (+ LoRA)."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GPT2Config, GPT2LMHeadModel

from .config import SCRATCH, GroundingConfig, check_backbone
from .sequences import TEMPLATE_TEXTS
from .tokenizer import SLOT, build_word_tokenizer

SCRATCH_SIZES = {"n_layer": 4, "n_head": 4, "n_embd": 192}
LORA_TARGETS = "all-linear"


def scratch_backbone(config: GroundingConfig, instructions: list[str]):
    """(model, tokenizer): a freshly initialised GPT-2 over a word vocabulary of ``instructions``."""
    tokenizer = build_word_tokenizer([*TEMPLATE_TEXTS, *instructions])
    sizes = {**SCRATCH_SIZES, **config.scratch}
    config.scratch = sizes
    gpt2 = GPT2Config(vocab_size=len(tokenizer), n_positions=config.max_positions,
                      bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                      pad_token_id=tokenizer.pad_token_id, **sizes)
    return GPT2LMHeadModel(gpt2), tokenizer


def pretrained_backbone(path: str | Path, dtype: torch.dtype = torch.float32):
    """(model, tokenizer) read from a local model directory, weights in ``dtype`` (see
    ``precision.py``); nothing is downloaded."""
    check_backbone(path)
    path = Path(path).expanduser()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=dtype)
    return model, tokenizer


def add_lora(model, rank: int):
    """Wrap ``model`` with LoRA adapters of ``rank`` on every linear layer (peft)."""
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=LORA_TARGETS,
                      task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


def slot_token_id(tokenizer) -> int:
    """The placeholder id: ``[SLOT]`` in our vocabulary, else any id the tokenizer has (its
    embedding is overwritten, so which one does not matter)."""
    slot = tokenizer.convert_tokens_to_ids(SLOT) if SLOT in tokenizer.get_vocab() else None
    for candidate in (slot, tokenizer.unk_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return int(candidate)
    raise AssertionError("unreachable")


def ensure_pad_token(tokenizer) -> None:
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token if tokenizer.eos_token is not None else tokenizer.unk_token


def backbone_for(config: GroundingConfig, instructions: list[str], dtype: torch.dtype = torch.float32):
    """The (model, tokenizer) that ``config.backbone`` names, LoRA-wrapped if ``config.lora``;
    a pretrained backbone's weights in ``dtype`` (the scratch GPT-2 is always float32)."""
    if config.backbone == SCRATCH:
        model, tokenizer = scratch_backbone(config, instructions)
    else:
        model, tokenizer = pretrained_backbone(config.backbone, dtype)
        config.max_positions = int(getattr(model.config, "max_position_embeddings", config.max_positions))
    ensure_pad_token(tokenizer)
    if config.lora:
        model = add_lora(model, config.lora)
    return model, tokenizer
