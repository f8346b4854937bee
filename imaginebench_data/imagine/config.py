"""The grounding configuration: everything needed to rebuild a grounded model, stored as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

SCRATCH = "scratch"  # the default backbone: a small GPT-2 trained from scratch here


def check_backbone(backbone: str | Path) -> None:
    """A ``FileNotFoundError`` unless ``backbone`` is ``SCRATCH`` or a local Hugging Face model
    directory (nothing is downloaded)."""
    if str(backbone) != SCRATCH and not (Path(backbone).expanduser() / "config.json").is_file():
        raise FileNotFoundError(f"--backbone {backbone}: expected {SCRATCH!r} or a Hugging Face model "
                                "directory with a config.json (a local path; nothing is downloaded)")
# fields added after checkpoints were committed: left out of config.json at their defaults, so
# those checkpoints' hashes stay
_WRITTEN_WHEN_SET = ("hidden_columns", "action_bins", "action_low", "action_high")


@dataclass
class GroundingConfig:
    """How a causal LM is grounded in one domain.

    - ``backbone``: ``"scratch"`` or the path of a local Hugging Face model directory.
    - ``state_dim``; ``action_kind`` ``"discrete"`` (``action_dim`` = number of actions)
      or ``"continuous"`` (``action_dim`` = vector size).
    - ``state_mean``/``state_std`` normalise states entering the state adapter;
      ``delta_std`` scales the state head, which predicts ``s' - s`` (the change from the
      most recent state in the sequence) in units of ``delta_std``.
    - ``sentence_encoder``: ``"minilm"`` (a pretrained sentence embedding of the
      instruction enters at its own slot) or ``None``; ``sentence_dim`` its size.
    - ``lora``: LoRA rank on the backbone (0 = train every backbone weight).
    - ``hidden_columns``: state columns the state adapter never sees (it sees their mean): the
      domain's ``history_columns`` (bookkeeping of the episode, not physics) when grounded with
      ``TrainSettings.hide_history``, and the columns constant in every training state with
      ``TrainSettings.hide_unseen``; else none. Written to config.json only when there are
      some, so the hashes of checkpoints grounded before the field existed stay.
    - ``action_bins``: continuous actions only; > 0 gives the action head that many logits per
      action number, over evenly spaced values from ``action_low`` to ``action_high``
      (``core.action_bins``), instead of regressing the action. Like ``hidden_columns``,
      written only when set.
    """

    domain: str
    backbone: str
    state_dim: int
    action_kind: str
    action_dim: int
    state_mean: list[float]
    state_std: list[float]
    delta_std: list[float]
    sentence_encoder: str | None = "minilm"
    sentence_dim: int = 0
    lora: int = 0
    max_positions: int = 256
    scratch: dict[str, int] = field(default_factory=dict)  # GPT-2 sizes when backbone is scratch
    train_dataset: str = ""
    train_checksum: str = ""
    hidden_columns: list[int] = field(default_factory=list)
    action_bins: int = 0
    action_low: list[float] = field(default_factory=list)
    action_high: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.action_kind not in ("discrete", "continuous"):
            raise ValueError(f"action_kind must be 'discrete' or 'continuous', got {self.action_kind!r}")
        for name in ("state_mean", "state_std", "delta_std"):
            if len(getattr(self, name)) != self.state_dim:
                raise ValueError(f"{name} has {len(getattr(self, name))} values, expected state_dim = "
                                 f"{self.state_dim}")
        if self.action_bins:
            if self.action_kind != "continuous":
                raise ValueError(f"action_bins applies to continuous actions; this config's are "
                                 f"{self.action_kind}")
            if not len(self.action_low) == len(self.action_high) == self.action_dim:
                raise ValueError(f"action_bins needs action_low and action_high of action_dim = "
                                 f"{self.action_dim} values each, got {len(self.action_low)} and "
                                 f"{len(self.action_high)}")

    @property
    def backbone_name(self) -> str:
        return "gpt2-scratch" if self.backbone == SCRATCH else Path(self.backbone).name

    def save(self, path: Path) -> None:
        fields = asdict(self)
        for name in _WRITTEN_WHEN_SET:
            if not fields[name]:
                del fields[name]
        path.write_text(json.dumps(fields, indent=1))

    @classmethod
    def load(cls, path: Path) -> GroundingConfig:
        return cls(**json.loads(path.read_text()))
