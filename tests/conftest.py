# ruff: noqa: I001, E402  (imaginebench_data is imported before numpy, after the folders below are set)
import os

# Under pytest-xdist (make test runs 2 workers) each worker's torch keeps its own OpenMP threads,
# which by default spin while they wait for work and so take the cores from the other worker's:
# a grounding test ran 2.2x slower beside another than alone. Passive threads sleep instead. It
# is read when torch loads, so before anything imports it; it changes timing, never results.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The tests never read or write the user's datasets, models or caches: `make demo` then `make
# test` (the README's order) failed two tests that met the demo's CLEVR sets in ~/.minari (found
# 2026-12-07). Each test process gets empty folders of its own; fixtures may point elsewhere.
import atexit
import shutil
import tempfile

_SCRATCH = tempfile.mkdtemp(prefix="imaginebench-tests-")
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)
for _variable, _folder in (("MINARI_DATASETS_PATH", "minari"), ("IMAGINEBENCH_MODELS", "models"),
                           ("IMAGINEBENCH_CACHE", "cache")):
    os.environ[_variable] = os.path.join(_SCRATCH, _folder)

import imaginebench_data  # noqa: F401  first: it picks numpy's OpenBLAS kernels and MuJoCo's OpenGL backend
import numpy as np
import pytest
from imaginebench_data.imagine import numerics

# The numerics the imaginebench command chooses for CLEVR's recipes, before torch's first
# operation (imagine/numerics.py): in-process builds of imagined data need them.
numerics.choose("portable")

# Reference scores (random and expert returns per level, stored in every dataset's metadata)
# average 10 episodes in a real build; two keep the tests' many small builds quick.
os.environ.setdefault("IMAGINEBENCH_REFERENCE_EPISODES", "2")

# A scene with the five balls far apart: red, blue, green, purple, cyan.
FAR_APART = np.array([[-0.8, -0.6], [-0.4, 0.8], [0.0, -0.6], [0.4, 0.8], [0.8, -0.6]], np.float32)


def scene(**moves) -> np.ndarray:
    """A (10,) state: FAR_APART with some balls moved, e.g. scene(red=(0.1, 0.2))."""
    colours = ("red", "blue", "green", "purple", "cyan")
    centres = FAR_APART.copy()
    for colour, xy in moves.items():
        centres[colours.index(colour)] = xy
    return centres.reshape(-1)


@pytest.fixture
def minari_root(tmp_path, monkeypatch):
    root = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    monkeypatch.setenv("IMAGINEBENCH_CACHE", str(tmp_path / "cache"))
    return root


@pytest.fixture
def train_set(minari_root, tmp_path):
    """A 12-episode CLEVR training set in ``minari_root`` (cards under ``tmp_path/cards``)."""
    from imaginebench_data.pipeline.build import build

    build("imaginebench/clevr-train-real-v0", episodes=12, workers=1, cards_dir=tmp_path / "cards",
          progress=False)
    return "imaginebench/clevr-train-real-v0"
