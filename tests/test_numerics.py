"""Portable numerics: chosen before torch's first operation (and numpy's import) they override
the kernels a CPU would pick; chosen too late, a build that needs them refuses in one line."""

import os
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest
import torch
from fresh import unpinned_environ

from imaginebench_data.core.blas import PORTABLE_CORE, openblas_core
from imaginebench_data.datasets.read import DatasetNotFoundError
from imaginebench_data.imagine import checkpoints, numerics
from imaginebench_data.imagine.train import TrainSettings
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes

HARD = "imaginebench/clevr-hard-imaginary-v0"

KERNELS = """
import hashlib, sys
from imaginebench_data.imagine import numerics
if sys.argv[1] == "portable":
    numerics.choose("portable")
import torch
torch.manual_seed(0)
x, w = torch.randn(64, 384), torch.randn(384, 700)
y = torch.cat([torch.softmax(x @ w, -1), torch.nn.functional.gelu(x @ w)])  # gelu: oneDNN's
print(numerics.current(), hashlib.sha256(y.numpy().tobytes()).hexdigest())
"""


def kernels(mode: str, **cpu) -> tuple[str, str]:
    """(the numerics it got, a hash of a product, its softmax and its GELU) in a fresh process whose
    environment names the kernels ``cpu`` (another CPU's choice)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(KERNELS), mode], capture_output=True,
                            text=True, env=unpinned_environ(**cpu))
    assert result.returncode == 0, result.stderr[-2000:]
    got, digest = result.stdout.split()
    return got, digest


def test_portable_numerics_override_the_kernels_a_cpu_picks():
    # the widest kernels this CPU runs (avx512 or avx2 on x86): asking ATen for kernels the CPU
    # lacks kills the process (SIGILL), so the test asks only for these and the plain ones
    own = torch.backends.cpu.get_cpu_capability().lower()
    one = kernels("portable", ATEN_CPU_CAPABILITY=own, MKL_CBWR="AUTO", ONEDNN_MAX_CPU_ISA="SSE41")
    other = kernels("portable")
    assert one[0] == other[0] == "portable"
    assert one[1] == other[1]  # the same bits, whatever the environment asked for before
    wide = kernels("native", ATEN_CPU_CAPABILITY=own)
    narrow = kernels("native", ATEN_CPU_CAPABILITY="default")
    old_onednn = kernels("native", ATEN_CPU_CAPABILITY=own, ONEDNN_MAX_CPU_ISA="SSE41")
    assert wide[0] == narrow[0] == old_onednn[0] == "native"
    if own != "default":  # only then has ATen two kinds of kernels here
        assert wide[1] != narrow[1]  # what the pin is for: the kernels change the last bits
        assert wide[1] != old_onednn[1]  # so do oneDNN's (its GELU without FMA; another erf on AVX-512)
    assert one[1] not in (wide[1], narrow[1])  # and MKL's compatible path is not the CPU's own


ADAM = """
import torch
from imaginebench_data.imagine.determinism import pinned
from imaginebench_data.imagine.fingerprint import KERNELS, _digest, adam_steps

seeded = lambda: torch.Generator().manual_seed(0)
with pinned():
    print(_digest(KERNELS["torch: square root (MKL's vector math)"](seeded())),
          _digest(adam_steps(seeded(), "AdamW")), _digest(adam_steps(seeded(), "AdamW", fused=True)))
"""


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() == "DEFAULT", reason="needs a CPU with AVX2")
def test_fused_adam_steps_alike_whichever_square_root_mkl_computes():
    """The ``fused_adam`` lever's point: MKL's compatible square root differs from its own path's
    in the last bits (and, by the hardware's estimate instructions, from CPU to CPU); AdamW's
    default step goes through it, the fused one does not."""
    pins = numerics.PORTABLE_ENV
    runs = [subprocess.run([sys.executable, "-c", textwrap.dedent(ADAM)], capture_output=True, text=True,
                           env=unpinned_environ(**{**pins, "MKL_CBWR": mkl}))
            for mkl in ("COMPATIBLE", "AUTO")]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-2000:] for run in runs]
    (root, default, fused), (other_root, other_default, other_fused) = (run.stdout.split() for run in runs)
    assert fused == other_fused
    if root != other_root:  # MKL's two paths round the square root apart on this CPU
        assert default != other_default


def test_the_fused_adam_lever_names_its_checkpoints_only_when_on():
    assert "fused_adam" not in TrainSettings().key()
    assert TrainSettings(fused_adam=True).key()["fused_adam"] is True


LATE = """
import torch
torch.randn(8, 8) @ torch.randn(8, 8)  # torch has worked: its kernels are fixed
from imaginebench_data.imagine import numerics
numerics.choose("portable")
print(numerics.current())
numerics.require("portable", "imaginebench/clevr-hard-imaginary-v0")
"""


def test_portable_numerics_chosen_too_late_are_refused_in_one_line():
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(LATE)], capture_output=True, text=True,
                            env=unpinned_environ())
    assert result.returncode == 1 and result.stdout.split() == ["native"]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("imaginebench_data.imagine.numerics.NumericsError: imaginebench/clevr-hard")
    assert "expected portable numerics" in last and "found MKL code path" in last


def test_this_test_process_computes_portably():
    # conftest chose them first: the in-process builds of CLEVR's imagined data rely on it
    assert numerics.current() == "portable"
    assert numerics.on_device("cpu") == "portable" and numerics.on_device("meta") == "native"


def test_onednn_asked_for_other_kernels_is_not_portable(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE")  # what the environment says a process gets
    assert numerics.current() == "native"
    with pytest.raises(numerics.NumericsError, match="ONEDNN_MAX_CPU_ISA=AVX2.*found oneDNN's kernels up to "
                                                     "AVX512_CORE"):
        numerics.require("portable", HARD)
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA")
    with pytest.raises(numerics.NumericsError, match="found oneDNN's own kernels for this CPU"):
        numerics.require("portable", HARD)


def test_a_build_needing_portable_numerics_refuses_a_native_process(monkeypatch, minari_root, tmp_path):
    monkeypatch.setattr(numerics, "_kernels", lambda: (2, "AVX512"))  # MKL AUTO: another CPU's own
    with pytest.raises(numerics.NumericsError, match="clevr-hard-imaginary-v0: expected portable"):
        build(HARD, episodes=2, cards_dir=tmp_path / "cards", progress=False)
    assert not minari_root.exists() or not any(minari_root.rglob("*.hdf5"))
    assert not (tmp_path / "cards").exists()
    # a native recipe asks nothing of the process (and the CPU's own kernels are what it records)
    recipes = {i: replace(r, numerics="native") for i, r in load_recipes().items()}
    with pytest.raises(DatasetNotFoundError):  # past the check: its training set is not built here
        build(HARD, episodes=2, cards_dir=tmp_path / "cards", recipes=recipes, progress=False)


BLAS = """
import os, sys
if sys.argv[1] == "numpy-first":
    import numpy
import imaginebench_data
import numpy as np
from imaginebench_data.core.blas import openblas_core
from imaginebench_data.imagine import numerics
norm = np.linalg.norm(np.random.default_rng(0).standard_normal(1001))
print(os.environ.get("OPENBLAS_CORETYPE"), openblas_core(), norm.hex(), flush=True)
numerics.require("portable", "imaginebench/libero-train-real-v0", torch=False)
"""


def openblas(order: str, **cpu) -> tuple[int, list[str], str]:
    """(exit code, [OPENBLAS_CORETYPE, OpenBLAS's kernels, a vector norm's bits], the last line
    of stderr) of a fresh process importing numpy or the package first, its environment naming
    ``cpu``."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(BLAS), order], capture_output=True,
                            text=True, env=unpinned_environ(**cpu))
    return result.returncode, result.stdout.split(), (result.stderr.strip().splitlines() or [""])[-1]


@pytest.mark.skipif(openblas_core() is None, reason="numpy is built on another BLAS than OpenBLAS")
def test_numpy_gets_portable_openblas_kernels_when_the_package_is_imported_first():
    code, (asked, core, norm), _ = openblas("package-first")
    assert code == 0 and asked == core == PORTABLE_CORE  # set by the package, whatever this CPU is
    # numpy loaded first, with other kernels: other last bits, and a build of real data refuses
    code, (asked, core, other), last = openblas("numpy-first", OPENBLAS_CORETYPE="Sandybridge")
    assert code == 1 and core == "Sandybridge" and other != norm
    assert last.startswith("imaginebench_data.imagine.numerics.NumericsError: imaginebench/libero-train-real")
    assert "OPENBLAS_CORETYPE=Haswell" in last and "found numpy's OpenBLAS Sandybridge kernels" in last
    assert "MKL_CBWR" not in last  # real data: torch is not asked about


@pytest.mark.skipif(openblas_core() is None, reason="numpy is built on another BLAS than OpenBLAS")
def test_the_command_refuses_real_data_under_other_openblas_kernels_in_one_line(tmp_path):
    env = {**os.environ, "OPENBLAS_CORETYPE": "Sandybridge", "MINARI_DATASETS_PATH": str(tmp_path / "minari")}
    command = [sys.executable, "-m", "imaginebench_data.cli", "build", "imaginebench/clevr-train-real-v0",
               "--episodes", "2", "--workers", "1", "--cards-dir", str(tmp_path / "cards")]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode != 0 and len(lines) == 1, lines
    assert "clevr-train-real-v0: expected portable numerics" in lines[0] and "Sandybridge" in lines[0]
    assert not any(tmp_path.rglob("*.hdf5")) and not (tmp_path / "cards").exists()
    result = subprocess.run(command + ["--numerics", "native"], capture_output=True, text=True, env=env)
    assert result.returncode == 0 and len(list(tmp_path.rglob("*.hdf5"))) == 1  # native promises nothing


def test_an_unknown_numerics_is_named(minari_root, tmp_path):
    with pytest.raises(ValueError, match="clevr-hard-imaginary-v0: numerics must be one of .* got 'fast'"):
        build(HARD, episodes=2, cards_dir=tmp_path / "cards", progress=False, numerics="fast")


def test_recipes_name_a_known_numerics():
    recipe = load_recipes()[HARD]
    assert recipe.numerics == "portable"
    with pytest.raises(ValueError, match="numerics must be one of"):
        replace(recipe, numerics="fast")


def test_portable_and_native_checkpoints_never_share_a_folder(monkeypatch, minari_root, tmp_path):
    monkeypatch.setattr(checkpoints, "read_card", lambda _: type("Card", (), {"checksum": "abc"}))
    portable = checkpoints.checkpoint_dir("imaginebench/clevr-train-real-v0", "scratch", 0, "minilm",
                                          TrainSettings())
    monkeypatch.setattr(checkpoints, "on_device", lambda device: "native")
    native = checkpoints.checkpoint_dir("imaginebench/clevr-train-real-v0", "scratch", 0, "minilm",
                                        TrainSettings())
    assert portable != native and portable.parent == native.parent
