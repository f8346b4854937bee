"""Tiny grounded models for tests: built in seconds, heads settable by hand."""

import numpy as np
import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.backbone import backbone_for
from imaginebench_data.imagine.config import SCRATCH, GroundingConfig
from imaginebench_data.imagine.model import GroundedLM
from imaginebench_data.imagine.sequences import TEMPLATE_TEXTS

TINY = {"n_layer": 1, "n_head": 2, "n_embd": 32}
CLEVR = get_domain("clevr")


def tiny_config(backbone: str = SCRATCH, **overrides) -> GroundingConfig:
    fields = dict(domain="clevr", backbone=backbone, state_dim=10, action_kind="discrete", action_dim=40,
                  state_mean=[0.0] * 10, state_std=[0.5] * 10, delta_std=[0.05] * 10,
                  sentence_encoder=None, sentence_dim=0, scratch=dict(TINY))
    return GroundingConfig(**{**fields, **overrides})


def tiny_model(seed: int = 0, **overrides) -> GroundedLM:
    torch.manual_seed(seed)
    config = tiny_config(**overrides)
    phrasings = [p for level in ("train", "easy") for t in CLEVR.tasks(level) for p in t.phrasings]
    texts = [*TEMPLATE_TEXTS, *phrasings]
    backbone, tokenizer = backbone_for(config, texts)
    return GroundedLM(config, backbone, tokenizer).eval()


def set_heads(model: GroundedLM, action: int, delta: np.ndarray) -> None:
    """Make the model always choose ``action`` and move the state by ``delta`` per step."""
    with torch.no_grad():
        model.action_head.weight.zero_()
        model.action_head.bias.fill_(-10.0)
        model.action_head.bias[action] = 10.0
        model.state_head.weight.zero_()
        model.state_head.bias.copy_(torch.as_tensor(delta, dtype=torch.float32) / model.delta_std)
