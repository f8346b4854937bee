"""Precision of grounding: which dtype the backbone's weights are kept in, and whether the
forward pass runs under bf16 autocast.

- ``fp32``: fp32 weights, fp32 compute (the CPU default; bit-for-bit the historical path).
- ``bf16-mixed``: fp32 master weights updated by the optimiser, forward and backward under
  ``torch.autocast(dtype=bfloat16)``: the speed of bf16 matrix units without losing Adam's
  small updates (in bf16 weights, steps below bf16's precision round away and most weights
  never change). The GPU default for full fine-tuning.
- ``bf16``: the backbone's frozen weights in bf16 (half the memory: a 7B model fits), only
  with LoRA, whose adapters stay fp32 (peft keeps adapter weights in fp32); autocast as above.
  The GPU default with LoRA.
- ``auto``: ``bf16`` with LoRA and ``bf16-mixed`` without on a GPU with bf16, else ``fp32``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

PRECISIONS = ("auto", "fp32", "bf16-mixed", "bf16")


@dataclass(frozen=True)
class Precision:
    mode: str               # the resolved mode: fp32, bf16-mixed or bf16
    weights: torch.dtype    # the backbone's weight dtype

    def autocast(self, device: str | torch.device):
        """The context the forward (and so the backward) pass runs in."""
        if self.mode == "fp32":
            return contextlib.nullcontext()
        return torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16)


def resolve(mode: str, device: str | torch.device, lora: int) -> Precision:
    """The ``Precision`` that ``mode`` (one of ``PRECISIONS``) means on ``device`` with LoRA rank ``lora``."""
    if mode not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {mode!r}")
    if mode == "auto":
        gpu_bf16 = torch.device(device).type == "cuda" and torch.cuda.is_bf16_supported()
        mode = ("bf16" if lora else "bf16-mixed") if gpu_bf16 else "fp32"
    if mode == "bf16" and not lora:
        raise ValueError("precision 'bf16' keeps the backbone's weights in bf16, which only frozen weights "
                         "under LoRA may be (full fine-tuning in bf16 weights loses Adam's small updates): "
                         "use --lora R, or precision 'bf16-mixed' for full fine-tuning")
    return Precision(mode, torch.bfloat16 if mode == "bf16" else torch.float32)
