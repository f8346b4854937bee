"""The package works installed, outside a checkout: ``pip install .`` into a fresh venv, then
``imaginebench list`` and ``imaginebench build ID`` and ``python -m`` a recipe module from
another directory find the recipes shipped inside the wheel."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv with this package installed from the checkout (not editable). Its
    dependencies come from the test's own environment, appended to sys.path by a .pth file
    (which does not run that environment's editable-install hooks)."""
    root = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    purelib = subprocess.run([str(root / "bin" / "python"), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True,
                             text=True).stdout.strip()
    Path(purelib, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(root / "bin" / "python"), "install",
                    "--quiet", "--no-deps", "--no-build-isolation", str(CHECKOUT)], check=True,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return root


def run(venv: Path, *command: str, cwd: Path, minari: Path) -> str:
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari), "IMAGINEBENCH_CACHE": str(cwd / "cache"),
           "COLUMNS": "200"}
    env.pop("PYTHONPATH", None)
    result = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=cwd, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_installed_package_lists_and_builds_from_outside_the_checkout(venv, tmp_path):
    where = run(venv, "python", "-c", "import imaginebench_data; print(imaginebench_data.__file__)",
                cwd=tmp_path, minari=tmp_path / "minari")
    assert str(venv) in where and str(CHECKOUT) not in where  # the installed copy, not the checkout
    listing = run(venv, "imaginebench", "list", cwd=tmp_path, minari=tmp_path / "minari")
    rows = [line for line in listing.splitlines() if line.startswith("│ imaginebench/")]
    assert len(rows) == 50 and "imaginebench/libero-hard-imaginary-v0" in listing
    run(venv, "imaginebench", "build", "imaginebench/clevr-easy-real-v0", "--episodes", "3", "--workers", "1",
        cwd=tmp_path, minari=tmp_path / "minari")
    assert (tmp_path / "minari" / "imaginebench" / "clevr-easy-real-v0" / "data" / "metadata.json").is_file()
    assert (tmp_path / "cards" / "clevr-easy-real-v0.md").is_file()  # cards/ of the current directory
    run(venv, "python", "-m", "imaginebench_data.builders.clevr", "imaginebench/clevr-hard-real-v0",
        "--episodes", "2", "--workers", "1", cwd=tmp_path, minari=tmp_path / "minari")
    assert (tmp_path / "cards" / "clevr-hard-real-v0.json").is_file()
