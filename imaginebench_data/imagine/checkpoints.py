"""Where grounded models live, and training one on demand (once per configuration).

A checkpoint is cached under ``$IMAGINEBENCH_MODELS`` (default ``~/.cache/imaginebench/models``)
in a folder named after the domain, the backbone and a key over everything that shapes it:
the training dataset's checksum, the backbone, LoRA rank, sentence encoder and settings.
Building the three imaginary datasets of a domain therefore trains once.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from ..datasets.ids import DatasetId
from ..datasets.read import read_card
from ..domains import get_domain
from .checkpoint import is_checkpoint, load_checkpoint, training_info
from .config import SCRATCH
from .data import read_episodes, require_held_out, split
from .distributed import is_main_process
from .evidence import goal_evidence, next_state_evidence
from .numerics import on_device
from .precision import resolve as resolve_precision
from .train import OPT_IN, SentenceTable, TrainSettings, default_device, train_grounding

EVIDENCE_EPISODES = 160


def models_dir() -> Path:
    configured = os.environ.get("IMAGINEBENCH_MODELS")
    return Path(configured) if configured else Path.home() / ".cache" / "imaginebench" / "models"


def default_sentence_encoder(backbone: str) -> str | None:
    """The scratch backbone knows no words beyond its training text: it gets MiniLM's
    sentence embedding. A pretrained backbone reads the instruction itself."""
    return "minilm" if backbone == SCRATCH else None


def checkpoint_dir(train_dataset: str, backbone: str, lora: int, sentence_encoder: str | None,
                   settings: TrainSettings) -> Path:
    """The folder of the checkpoint these arguments train: named by a key over everything that
    changes its weights (the data's checksum, backbone, LoRA rank, sentence encoder, every
    setting: seed, epochs, batch size, ...; the precision as resolved on this machine's device,
    so bf16-mixed and fp32 runs, or CPU and GPU runs, never share a folder; portable numerics
    too, so a checkpoint of the CPU's own kernels is not taken for a portable one)."""
    device = default_device()
    numerics = on_device(device)
    precision = resolve_precision(settings.precision, device, lora)
    key = json.dumps({"checksum": read_card(train_dataset).checksum, "backbone": str(backbone), "lora": lora,
                      "sentence_encoder": sentence_encoder,
                      "settings": {**settings.key(), "precision": precision.mode},
                      "weights": str(precision.weights), "device": torch.device(device).type,
                      **({"numerics": numerics} if numerics != "native" else {})}, sort_keys=True)
    name = "gpt2-scratch" if backbone == SCRATCH else Path(backbone).name
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return models_dir() / f"{DatasetId.parse(train_dataset).domain}-{name}-{digest}"


def ensure_checkpoint(train_dataset: str, *, backbone: str = SCRATCH, lora: int = 0,
                      sentence_encoder: str | None | bool = True, settings: TrainSettings | None = None,
                      evidence_episodes: int | None = None, evidence: bool = True,
                      progress: bool = True) -> Path:
    """The checkpoint grounded on ``train_dataset`` with these settings, trained (and its
    evidence measured, unless ``evidence`` is False: experiments that probe a model their own
    way skip its slow random-action rollouts) if it does not exist yet.
    ``sentence_encoder=True`` picks the default.

    Under ``accelerate launch`` every process trains (data parallel, see ``distributed.py``);
    the main one measures the evidence."""
    settings = settings or TrainSettings()
    if sentence_encoder is True:
        sentence_encoder = default_sentence_encoder(backbone)
    path = checkpoint_dir(train_dataset, backbone, lora, sentence_encoder, settings)
    if not is_checkpoint(path):
        train_grounding(train_dataset, path, backbone=backbone, lora=lora, sentence_encoder=sentence_encoder,
                        settings=settings, progress=progress, for_evidence=evidence)
    domain = DatasetId.parse(train_dataset).domain
    if evidence and is_main_process() and not evidence_is_current(path, domain):
        write_evidence(path, train_dataset, evidence_episodes or EVIDENCE_EPISODES, progress)
    return path


def evidence_is_current(path: Path, domain_name: str) -> bool:
    """Whether ``path`` holds evidence measured with the domain's decoding as it is now (the
    evidence imagines through it; evidence from before a change of it is measured again)."""
    file = Path(path) / "evidence.json"
    if not file.is_file():
        return False
    return json.loads(file.read_text()).get("decoding", "") == get_domain(domain_name).decoding


def write_evidence(path: Path, train_dataset: str, episodes: int, progress: bool = False) -> dict[str, Any]:
    """Measure the evidence (see ``evidence.py``) of the checkpoint at ``path``; store it."""
    model = load_checkpoint(path, default_device())
    domain = get_domain(model.config.domain)
    per_task = training_info(path)["settings"].get("holdout_per_task", False)
    training_set = read_episodes(train_dataset)[0]
    held_out = split(training_set, per_task)[1]
    require_held_out(train_dataset, training_set, held_out, per_task)
    sentences = SentenceTable(model.config.sentence_encoder)
    evidence = {"next_state": next_state_evidence(model, domain, held_out),
                "goal": goal_evidence(model, domain, sentences, episodes, progress=progress),
                **({"decoding": domain.decoding} if domain.decoding else {})}
    (Path(path) / "evidence.json").write_text(json.dumps(evidence, indent=1))
    return evidence


def checkpoint_provenance(path: Path) -> dict[str, Any]:
    """What a card says about the generator: backbone, hash, training and evidence."""
    model_config = json.loads((Path(path) / "config.json").read_text())
    training = training_info(path)
    last = training["history"][-1] if training["history"] else {}
    return {
        "backbone": model_config["backbone"] if model_config["backbone"] != SCRATCH else "gpt2-scratch "
        f"({model_config['scratch']})",
        "lora_rank": model_config["lora"],
        "sentence_encoder": model_config["sentence_encoder"],
        "checkpoint_hash": training["hash"],
        "checkpoint": Path(path).name,
        "trained_on": training["dataset"],
        "training": {"episodes": training["episodes"], "held_out_episodes": training["held_out_episodes"],
                     "epochs": training["settings"]["epochs"], "seconds": training["seconds"],
                     "batch_size": training["settings"]["batch_size"], "seed": training["settings"]["seed"],
                     "precision": training.get("precision", "fp32"),
                     **({"numerics": training["numerics"]} if "numerics" in training else {}),
                     "device": training["device"], "parameters": training["parameters"],
                     **({"processes": training["processes"]} if training.get("processes", 1) > 1 else {}),
                     "final_losses": {k: v for k, v in last.items() if k != "epoch"}},
        **_hidden(model_config.get("hidden_columns", []), training["settings"]),
        **_levers(training["settings"]),
        "evidence": json.loads((Path(path) / "evidence.json").read_text()),
    }


def _levers(settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The card's entry for the opt-in training levers that were on, but for the hidden columns,
    which have their own line (none on: no entry, so cards of before keep their bytes)."""
    on = {k: v for k, v in settings.items()
          if k in OPT_IN and v != OPT_IN[k] and k not in ("hide_unseen", "hide_history")}
    return {"training_levers": on} if on else {}


def _hidden(columns: list[int], settings: dict[str, Any]) -> dict[str, str]:
    """The card's line on the state columns the model sees as their mean (none: no line)."""
    if not columns:
        return {}
    why = [text for lever, text in (("hide_unseen", "the columns the training set never varied"),
                                    ("hide_history", "the domain's history columns"))
           if settings.get(lever)]
    return {"hidden_state_columns": f"{len(columns)} state columns the model sees at their training mean "
            f"({' and '.join(why)}): {', '.join(map(str, columns))}"}
