"""Saving and loading a grounded model; the checkpoint hash that cards cite.

Layout of a checkpoint folder::

    config.json            GroundingConfig
    heads.safetensors      adapters, heads and normalisation buffers
    backbone/              save_pretrained of the backbone (only the LoRA weights with LoRA)
    tokenizer/             save_pretrained of the tokenizer
    training.json          epochs, losses, seconds (not hashed)
    evidence.json          what the model learned, measured (not hashed; see evidence.py)

The hash is the SHA-256 of config.json, heads.safetensors and every backbone/ file. With
LoRA, backbone/ holds only the adapter: loading reads the base model from the path in
config.json again, so it must still be there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from ..core.devices import torch_device
from .backbone import ensure_pad_token, pretrained_backbone
from .config import GroundingConfig
from .model import GroundedLM

HASHED = ("config.json", "heads.safetensors")


def _heads_state(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().contiguous() for k, v in state.items() if not k.startswith("backbone.")}


def save_checkpoint(model: GroundedLM, path: Path, training: dict[str, Any],
                    state: dict[str, torch.Tensor] | None = None) -> str:
    """Write ``model`` to ``path`` (atomically: a staging folder renamed into place); return its hash.

    ``state``: the model's full weights where ``model`` does not hold them itself (gathered
    from the processes of a DeepSpeed ZeRO-3 run, see ``distributed.py``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}-", dir=path.parent))
    try:
        model.config.save(staging / "config.json")
        heads = _heads_state(model.state_dict() if state is None else state)
        save_file(heads, str(staging / "heads.safetensors"))
        if state is None:
            model.backbone.save_pretrained(staging / "backbone")
        else:
            backbone = {k.removeprefix("backbone."): v for k, v in state.items() if k.startswith("backbone.")}
            model.backbone.save_pretrained(staging / "backbone", state_dict=backbone)
        model.tokenizer.save_pretrained(staging / "tokenizer")
        digest = checkpoint_hash(staging)
        (staging / "training.json").write_text(json.dumps({**training, "hash": digest}, indent=1))
        if path.exists():
            shutil.rmtree(path)
        staging.rename(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return digest


def checkpoint_hash(path: Path) -> str:
    path = Path(path)
    digest = hashlib.sha256()
    backbone = sorted(p for p in (path / "backbone").rglob("*") if p.is_file())
    files = [path / name for name in HASHED] + backbone
    for file in files:
        digest.update(str(file.relative_to(path)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def is_checkpoint(path: Path) -> bool:
    return all((Path(path) / name).is_file() for name in (*HASHED, "training.json"))


def load_checkpoint(path: Path, device: str | torch.device = "cpu") -> GroundedLM:
    """The grounded model saved at ``path``, in eval mode on ``device``."""
    path, device = Path(path), torch_device(device)
    if not is_checkpoint(path):
        raise FileNotFoundError(f"{path} is not a grounded-model checkpoint: expected "
                                f"{', '.join((*HASHED, 'training.json'))} and backbone/")
    config = GroundingConfig.load(path / "config.json")
    tokenizer = AutoTokenizer.from_pretrained(path / "tokenizer", local_files_only=True)
    ensure_pad_token(tokenizer)
    if config.lora:  # the frozen base in the dtype it was trained with (bf16 under precision 'bf16')
        from peft import PeftModel

        bf16 = training_info(path).get("precision") == "bf16"
        base, _ = pretrained_backbone(config.backbone, torch.bfloat16 if bf16 else torch.float32)
        backbone = PeftModel.from_pretrained(base, path / "backbone")
    else:  # trained weights are kept in fp32 (fp32 or bf16-mixed)
        backbone = AutoModelForCausalLM.from_pretrained(path / "backbone", local_files_only=True,
                                                        dtype=torch.float32)
    model = GroundedLM(config, backbone, tokenizer)
    missing, unexpected = model.load_state_dict(load_file(str(path / "heads.safetensors")), strict=False)
    missing = [k for k in missing if not k.startswith("backbone.")]
    if missing or unexpected:
        raise ValueError(f"checkpoint {path}: heads.safetensors does not match the model "
                         f"(missing {missing[:5]}, unexpected {unexpected[:5]})")
    return model.to(device).eval()


def training_info(path: Path) -> dict[str, Any]:
    return json.loads((Path(path) / "training.json").read_text())
