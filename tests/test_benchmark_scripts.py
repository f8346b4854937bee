"""The benchmark scripts still run against the package (they import its internals), on a few
episodes: the collection phase gives the same checksum with 1 and 2 workers, and the
per-episode split adds up."""

import importlib.util
import json
import os
import re
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
BABYAI = "imaginebench/babyai-train-real-v0"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_collection_phase_is_the_same_with_one_and_two_workers(tmp_path, capsys):
    _script("collection_speed").collection_phase(BABYAI, 12, 1, tmp_path)
    line = capsys.readouterr().out
    assert "collection phase (12 episodes)" in line and "(same checksum; checksum " in line, line


def test_per_episode_split_and_its_bound(tmp_path, capsys):
    _script("collection_speed").per_episode(BABYAI, 6, tmp_path)
    line = capsys.readouterr().out
    worker, main, bound = map(float, re.search(r"([\d.]+) ms \| main process .*?([\d.]+) ms \| "
                                               r"2-worker bound ([\d.]+)x", line).groups())
    assert worker > 0 and main > 0
    cores = min(3, os.cpu_count() or 1)  # the script's cap: two workers and the main process
    expected = (worker + main) / max(worker / 2, main, (worker + main) / cores)
    assert abs(bound - expected) < 0.02 + 0.01 * bound, line


def test_projection_charges_the_grounding_to_the_build_that_paid_for_it():
    """CLEVR's paper cards: hard, built from the cached model, is the slowest per episode; the
    grounding is easy's, the one build longer than it."""
    rows = [{"asked": 72400, "seconds": 3523.3, "training": 3178.1},
            {"asked": 1680, "seconds": 99.6, "training": 3178.1},
            {"asked": 5600, "seconds": 192.6, "training": 3178.1}]
    _script("projection").charge_grounding(rows)
    assert [round(row["seconds"], 1) for row in rows] == [345.2, 99.6, 192.6]
    cached = [{"asked": 10, "seconds": 50.0, "training": 600.0}]
    _script("projection").charge_grounding(cached)
    assert cached[0]["seconds"] == 50.0


def test_loader_benchmark_builds_a_missing_dataset(tmp_path, monkeypatch):
    """numpy is imported here before the package, as in the script: its in-process build once
    failed on the portable-numerics check, so the script builds through the command."""
    from imaginebench_data.datasets.read import local_ids

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "empty"))
    _script("loader_speed").ensure_dataset(BABYAI, tmp_path / "built", episodes=6)
    assert BABYAI in local_ids()
    card = json.loads((tmp_path / "built" / "cards" / "babyai-train-real-v0.json").read_text())
    assert card["episodes"] == 6


def test_every_benchmark_imports_names_the_package_has():
    """Their imports sit inside functions, so nothing else runs them (a renamed class once
    broke collection_speed.py unseen)."""
    import ast
    import importlib

    missing = []
    for path in sorted(BENCHMARKS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("imaginebench_data"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        try:
                            importlib.import_module(f"{node.module}.{alias.name}")
                        except ImportError:
                            missing.append(f"{path.name}: {node.module}.{alias.name}")
    assert not missing
