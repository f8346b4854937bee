"""A fingerprint of the floating-point kernels grounding goes through, one hash per library.

A checkpoint's hash says only that two machines grounded differently, not where they parted.
``fingerprint()`` runs, on fixed inputs, a small piece of each kind of work grounding does
(numpy's products and ufuncs, torch's matrix products, its own kernels, MKL's square root,
oneDNN's GELU, attention, an Adam step, a step of the default GPT-2, the MiniLM embeddings of a few
instructions) and hashes each result's bytes. Saved on one machine (``imaginebench numerics
--save FILE``) and compared on another (``--compare FILE``), the rows that differ name the
library that makes their checkpoints differ. It runs under ``determinism.pinned()``, as
grounding does, in whatever numerics the process has (``numerics.current()``).
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Callable
from pathlib import Path

import numpy as np

INSTRUCTIONS = ("Put the red ball to the left of the blue ball.", "open the door on the left",
                "Push the puck to the goal.", "run backward as fast as you can")
KERNELS: dict[str, Callable] = {}  # name -> a function of a seeded torch.Generator


def kernel(name: str) -> Callable:
    def register(function: Callable) -> Callable:
        KERNELS[name] = function
        return function
    return register


def _rows(generator, *shape):
    import torch

    return torch.randn(*shape, generator=generator)


@kernel("numpy: products (OpenBLAS)")
def _numpy_products(generator):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((300, 200)), rng.standard_normal((200, 100))
    return [a @ b, a.astype(np.float32) @ b.astype(np.float32), np.linalg.norm(a, axis=1)]


@kernel("numpy: exp, log, sin, tanh, sums")
def _numpy_ufuncs(generator):
    x = np.random.default_rng(1).standard_normal(10_000)
    out = []
    for values in (x, x.astype(np.float32)):
        out += [np.exp(values), np.log(np.abs(values) + 1), np.sin(values), np.cos(values),
                np.tanh(values), np.sqrt(np.abs(values)), values.sum(keepdims=True), values.cumsum()]
    return out


@kernel("torch: matrix products (MKL)")
def _products(generator):
    import torch

    out = []
    for m, k, n in [(2048, 192, 576), (2048, 192, 768), (2048, 768, 192), (64, 384, 1536), (7, 384, 192)]:
        x = _rows(generator, m, k).requires_grad_()
        w = _rows(generator, n, k).requires_grad_()
        y = torch.nn.functional.linear(x, w)
        y.sum().backward()
        out += [y, x.grad, w.grad]
    return out


@kernel("torch: softmax, layer norm, tanh GELU, reductions (ATen)")
def _aten(generator):
    import torch

    x = _rows(generator, 256, 768)
    return [torch.softmax(x, -1), torch.nn.functional.layer_norm(x, (768,)), torch.tanh(x), torch.exp(x),
            torch.nn.functional.gelu(x, approximate="tanh"), x.sum(0), x.mean(1), x.norm(dim=1)]


@kernel("torch: square root (MKL's vector math)")
def _sqrt(generator):
    # torch.sqrt of a float tensor is MKL's vsSqrt, the square root in Adam's denominator.
    # Under MKL_CBWR=COMPATIBLE it is not correctly rounded and its last bit depends on the
    # hardware (seen 2026-12-02: an Intel Xeon and two emulated CPUs gave three results).
    return [(_rows(generator, 192, 192).abs() + 0.1).sqrt()]


@kernel("torch: GELU (oneDNN)")
def _gelu(generator):
    import torch

    x = _rows(generator, 256, 1536).requires_grad_()
    y = torch.nn.functional.gelu(x)
    y.sum().backward()
    return [y, x.grad]


@kernel("torch: attention")
def _attention(generator):
    import torch

    q, k, v = (_rows(generator, 8, 4, 96, 48).requires_grad_() for _ in range(3))
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    y.sum().backward()
    return [y, q.grad, k.grad, v.grad]


@kernel("torch: Adam step")
def _adam(generator):
    return adam_steps(generator)


def adam_steps(generator, optimizer: str = "Adam", **options):
    """Three steps of ``torch.optim.<optimizer>(..., **options)`` on two seeded weights."""
    import torch

    weights = [_rows(generator, 192, 192).requires_grad_(), _rows(generator, 192).requires_grad_()]
    optimizer = getattr(torch.optim, optimizer)(weights, lr=3e-4, **options)
    for _ in range(3):
        optimizer.zero_grad()
        sum((w * w).sum() for w in weights).backward()
        optimizer.step()
    return [w.detach() for w in weights]


def _gpt2_steps(generator, **adam):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from .backbone import SCRATCH_SIZES

    torch.manual_seed(0)
    sizes = {"vocab_size": 200, "n_positions": 128, "bos_token_id": 0, "eos_token_id": 0, **SCRATCH_SIZES}
    model = GPT2LMHeadModel(GPT2Config(**sizes))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, **adam)
    ids = torch.randint(0, 200, (8, 96), generator=generator)
    for _ in range(3):
        optimizer.zero_grad()
        model(input_ids=ids, labels=ids).loss.backward()
        optimizer.step()
    return [p.detach() for p in model.parameters()]


@kernel("GPT-2, the default model's sizes: 3 training steps")
def _gpt2(generator):
    return _gpt2_steps(generator)


@kernel("GPT-2, the same 3 steps with the fused AdamW (the fused_adam lever)")
def _gpt2_fused(generator):
    # the same bits natively on an Intel Xeon and under an emulated AMD EPYC (2026-12-02), where
    # the row above differed: on two real machines, the same here says the lever is enough
    return _gpt2_steps(generator, fused=True)


@kernel("MiniLM: instruction embeddings")
def _minilm(generator):
    from ..loader.encoders import HFEncoder, minilm_path

    encoder = HFEncoder(minilm_path(), name="fingerprint")
    return [encoder.encode_alone(text) for text in INSTRUCTIONS]


def _digest(arrays) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        array = array.detach().numpy() if hasattr(array, "detach") else np.asarray(array)
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]


def fingerprint(progress: Callable[[str], None] | None = None) -> dict[str, str]:
    """{kernel: 16 hex digits of its results} in this process; ``unavailable: ...`` for one
    whose library is not installed (MiniLM without its package)."""
    import torch

    from .determinism import pinned

    hashes = {}
    with pinned():
        for name, function in KERNELS.items():
            if progress:
                progress(name)
            try:
                hashes[name] = _digest(function(torch.Generator().manual_seed(0)))
            except ImportError as error:
                hashes[name] = f"unavailable: {error}"
    return hashes


def machine() -> dict[str, str]:
    """What the fingerprint was taken on: CPU, its vector extensions, versions, numerics."""
    import torch

    from . import numerics

    cpu, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and cpu in ("", platform.machine()):
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    wanted = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile")
    return {"cpu": cpu, "vector_extensions": " ".join(f for f in wanted if f in flags) or "unknown",
            "torch": torch.__version__, "numpy": np.__version__, "numerics": numerics.current()}


def save(path: Path, hashes: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": machine(), "kernels": hashes}, indent=2) + "\n")


def load(path: Path) -> dict:
    """A saved fingerprint ({"machine": {...}, "kernels": {name: hash}}); ValueError naming
    ``path`` and what it held otherwise."""
    expected = f"{path}: expected a saved fingerprint (JSON with a 'kernels' object of strings)"
    if path.is_dir():
        raise ValueError(f"{expected}, found a folder")
    try:
        saved = json.loads(path.read_bytes())
    except UnicodeDecodeError as error:
        raise ValueError(f"{expected}, found bytes that are not text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{expected}, found invalid JSON ({error.msg} at line {error.lineno})") from None
    kernels = saved.get("kernels") if isinstance(saved, dict) else None
    if not isinstance(kernels, dict) or not all(isinstance(v, str) for v in kernels.values()):
        found = type(kernels).__name__ if isinstance(saved, dict) else f"a JSON {type(saved).__name__}"
        raise ValueError(f"{expected}, found {found}")
    machine_ = saved.get("machine")
    return {"machine": machine_ if isinstance(machine_, dict) else {}, "kernels": kernels}


def compare(hashes: dict[str, str], saved: dict[str, str]) -> dict[str, str]:
    """{kernel: "same" | "differs" | "not compared"} for every kernel of either."""
    verdicts = {}
    for name in dict.fromkeys([*hashes, *saved]):
        mine, theirs = hashes.get(name), saved.get(name)
        if mine is None or theirs is None or "unavailable" in mine or "unavailable" in theirs:
            verdicts[name] = "not compared"
        else:
            verdicts[name] = "same" if mine == theirs else "differs"
    return verdicts
