"""`imaginebench numerics`: a fingerprint per library, so two machines whose checkpoints differ
see which library parts them; a saved fingerprint from elsewhere is read as untrusted input."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from fresh import unpinned_environ
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.imagine import fingerprint, numerics

GELU, MINILM = "torch: GELU (oneDNN)", "MiniLM: instruction embeddings"


def numerics_command(*args: str, **cpu: str) -> subprocess.CompletedProcess:
    """`imaginebench numerics ARGS` in a fresh process whose environment names the kernels ``cpu``."""
    return subprocess.run([sys.executable, "-m", "imaginebench_data", "numerics", *args], capture_output=True,
                          text=True, env=unpinned_environ(**cpu))


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() == "DEFAULT", reason="needs a CPU with AVX2")
def test_a_fingerprint_names_the_one_library_whose_kernels_changed(tmp_path):
    saved = tmp_path / "here.json"
    first = numerics_command("--save", str(saved))
    assert first.returncode == 0, first.stderr[-2000:]
    kept = json.loads(saved.read_text())
    assert kept["machine"]["numerics"] == "portable" and set(kept["kernels"]) == set(fingerprint.KERNELS)
    # every pin as portable numerics set it but oneDNN's, whose older kernels compute GELU otherwise
    pins = {**numerics.PORTABLE_ENV, "ONEDNN_MAX_CPU_ISA": "SSE41"}
    other = numerics_command("--numerics", "native", "--compare", str(saved), **pins)
    assert other.returncode == 1, other.stderr[-2000:]
    differ = {GELU} | ({MINILM} if "unavailable" not in kept["kernels"][MINILM] else set())
    left_out = sum("unavailable" in value for value in kept["kernels"].values())  # the same on both sides
    assert other.stdout.strip().splitlines()[-1] == (
        f"{len(differ)} of {len(fingerprint.KERNELS) - left_out} kernels compared differ"
        + (f" ({left_out} not compared)" if left_out else "")
        + f": {', '.join(name for name in fingerprint.KERNELS if name in differ)}")
    assert "numerics native" in other.stdout and "numerics portable" in other.stdout  # both machines named


def test_compare_says_what_it_could_not_compare():
    verdicts = fingerprint.compare({"a": "1", "b": "2", "c": "unavailable: no module"},
                                   {"a": "1", "b": "3", "d": "4"})
    assert verdicts == {"a": "same", "b": "differs", "c": "not compared", "d": "not compared"}


def test_a_saved_fingerprint_that_is_not_one_is_one_line(tmp_path):
    path = tmp_path / "theirs.json"
    rng = np.random.default_rng(0)
    contents = [b"", b"[1, 2]", b'{"kernels": [1]}', b'{"kernels": {"a": 1}}', b'{"machine": {}}',
                b"\xff\xfe{", *(rng.integers(0, 256, int(rng.integers(1, 200)), dtype=np.uint8).tobytes()
                                for _ in range(20))]
    for content in contents:
        path.write_bytes(content)
        result = CliRunner().invoke(app, ["numerics", "--compare", str(path)])
        assert result.exit_code == 2, (content, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and f"{path}: expected a saved fingerprint" in " ".join(result.output.split())
    path.write_text('{"kernels": {"a": "1"}, "machine": "x"}')  # a machine not an object: not recorded
    assert fingerprint.load(path) == {"machine": {}, "kernels": {"a": "1"}}


def test_a_comparison_of_nothing_is_no_match_and_a_folder_is_no_file(tmp_path, monkeypatch):
    """Found 2026-12-06: a saved file naming none of the kernels printed "0 of 11 kernels differ"
    and exited 0, as a match; --save naming a folder failed after the hashing, in a traceback."""
    monkeypatch.setattr(fingerprint, "fingerprint", lambda progress=None: {"a": "1", "b": "2"})
    theirs = tmp_path / "theirs.json"
    for kernels, code, last in (({}, 2, "nothing compared"), ({"c": "3"}, 2, "nothing compared"),
                                ({"a": "1"}, 0, "0 of 1 kernels compared differ (1 not compared)"),
                                ({"a": "1", "b": "9"}, 1, "1 of 2 kernels compared differ: b")):
        theirs.write_text(json.dumps({"kernels": kernels}))
        result = CliRunner().invoke(app, ["numerics", "--compare", str(theirs)], env={"COLUMNS": "200"})
        assert result.exit_code == code and last in result.output.strip().splitlines()[-1], result.output
    folder = tmp_path / "folder"
    folder.mkdir()
    for option in ("--save", "--compare"):
        result = CliRunner().invoke(app, ["numerics", option, str(folder)], env={"COLUMNS": "200"})
        assert result.exit_code == 2 and "Traceback" not in result.output and "folder" in result.output
        assert "kernel fingerprints" not in result.output  # refused before the work
