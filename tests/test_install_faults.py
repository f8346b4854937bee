"""Nothing lost, nothing wrong served: a build killed at each step of its install.

The old version is ``clevr-easy-real-v0`` built with 2 episodes; the new one, with 3, is built
with ``force`` in a subprocess that dies (``os._exit(137)``) at one hook point of the install
(``install.STAGES``). A fresh process then opens the Minari folder: plain Minari first (no code
of ours), then our readers (which run the recovery), ``verify`` and ``minari.load_dataset``.
It must find the old or the new version, complete, and no hidden leftover afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import imaginebench_data.pipeline.build as pipeline
from imaginebench_data.datasets import install
from imaginebench_data.datasets.read import local_ids, read_card
from imaginebench_data.datasets.writer import DatasetExistsError

ID = "imaginebench/clevr-easy-real-v0"
NAME = ID.split("/")[1]
# Which version each kill leaves, and what it leaves in the namespace folder before recovery.
EXPECTED = {"staged": "old", "intent": "old", "moved_aside": "old", "moved_in": "new", "cleanup": "new"}
LEFT = {"staged": [], "intent": [f".{NAME}.install"],
        "moved_aside": [f".{NAME}.install", f".{NAME}.replaced"],
        "moved_in": [f".{NAME}.install", f".{NAME}.replaced"], "cleanup": [f".{NAME}.install"]}

KILLED_BUILD = """
import os, sys
from pathlib import Path
import imaginebench_data.datasets.install as install
from imaginebench_data.pipeline.build import build

def die_at(stage):
    if stage == sys.argv[1]:
        os._exit(137)

install._fault_hook = die_at
build(sys.argv[2], episodes=3, workers=1, force=True, cards_dir=Path(sys.argv[3]), progress=False)
"""

OPEN = """
import json, sys, minari
found = {}
try:  # plain Minari, before any code of ours ran
    found["plain"] = minari.load_dataset(sys.argv[1]).storage.metadata["imaginebench_card"]["checksum"]
except FileNotFoundError:
    found["plain"] = None
from imaginebench_data.datasets.read import local_ids
from imaginebench_data.datasets.verify import verify
found["ids"] = local_ids()  # runs the recovery
found["problems"] = verify(sys.argv[1]).problems
dataset = minari.load_dataset(sys.argv[1])
found["checksum"] = dataset.storage.metadata["imaginebench_card"]["checksum"]
found["episodes"] = dataset.total_episodes
print(json.dumps(found))
"""


@dataclass
class Versions:
    old_root: Path
    checksums: dict[str, str]


def build_into(root: Path, episodes: int, force: bool = False) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(root))
        return pipeline.build(ID, episodes=episodes, workers=1, force=force, progress=False,
                              cards_dir=root.parent / "cards").card.checksum


@pytest.fixture(scope="module")
def versions(tmp_path_factory) -> Versions:
    """The old version (2 episodes) in a root to copy, and the checksum of each version."""
    folder = tmp_path_factory.mktemp("versions")
    old = build_into(folder / "old", 2)
    new = build_into(folder / "new", 3)
    assert old != new
    return Versions(folder / "old", {"old": old, "new": new})


def hidden(root: Path) -> list[str]:
    """Hidden entries of the root and of its namespace folders."""
    found = [p.name for p in root.iterdir() if p.name.startswith(".")]
    for namespace in (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        found += [f"{namespace.name}/{p.name}" for p in namespace.iterdir() if p.name.startswith(".")]
    return sorted(found)


def run(code: str, root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MINARI_DATASETS_PATH": str(root), "IMAGINEBENCH_CACHE": str(root.parent / "cache")}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd="/", timeout=300)


def kill_at(stage: str, root: Path) -> None:
    killed = run(KILLED_BUILD, root, stage, ID, str(root.parent / "cards"))
    assert killed.returncode == 137, killed.stderr
    assert hidden(root) == sorted([".imaginebench-locks", *(f"imaginebench/{n}" for n in LEFT[stage])]
                                  + [p.name for p in root.glob(".imaginebench-staging-*")])
    assert len(list(root.glob(".imaginebench-staging-*"))) == 1


@pytest.mark.parametrize("stage", install.STAGES)
def test_a_killed_install_leaves_the_old_or_the_new_version(stage, versions, tmp_path):
    root = tmp_path / "minari"
    shutil.copytree(versions.old_root, root)
    kill_at(stage, root)
    opened = run(OPEN, root, ID)
    assert opened.returncode == 0, opened.stderr
    found = json.loads(opened.stdout)
    version = EXPECTED[stage]
    assert found["checksum"] == versions.checksums[version]
    assert found["episodes"] == {"old": 2, "new": 3}[version]
    assert found["problems"] == [] and found["ids"] == [ID]
    # Plain Minari sees a complete version too, but between the renames, where it sees none.
    assert found["plain"] == (None if stage == "moved_aside" else versions.checksums[version])
    if stage == "moved_aside":
        assert "rolled back to the previous version" in opened.stderr
    assert "removed the staging folder" in opened.stderr
    assert hidden(root) == []


def test_the_writer_settles_a_killed_install_before_it_checks_for_the_version(versions, minari_root,
                                                                               tmp_path):
    shutil.copytree(versions.old_root, minari_root)
    kill_at("moved_aside", minari_root)
    assert not (minari_root / ID).exists()
    with pytest.raises(DatasetExistsError):  # the old version was put back first
        pipeline.build(ID, episodes=3, workers=1, progress=False, cards_dir=tmp_path / "cards")
    assert read_card(ID).checksum == versions.checksums["old"]
    assert hidden(minari_root) == []
    assert pipeline.build(ID, episodes=3, workers=1, force=True, progress=False,
                          cards_dir=tmp_path / "cards").card.checksum == versions.checksums["new"]
    assert hidden(minari_root) == []


def test_leftovers_of_the_previous_writer_are_recovered(versions, minari_root):
    """What the writer before the journal left: a `.replaced` backup with no intent, and
    staging folders with no owner file (removed once an hour old)."""
    shutil.copytree(versions.old_root, minari_root)
    (minari_root / ID).rename(minari_root / "imaginebench" / f".{NAME}.replaced")
    for name, age in (("old", 2 * 3600), ("recent", 60)):
        folder = minari_root / f".imaginebench-staging-{name}" / "imaginebench" / NAME / "data"
        folder.mkdir(parents=True)
        (folder / "main_data.hdf5").write_bytes(b"x" * 1000)
        then = time.time() - age
        os.utime(minari_root / f".imaginebench-staging-{name}", (then, then))
    assert local_ids() == [ID]
    assert read_card(ID).checksum == versions.checksums["old"]
    assert hidden(minari_root) == [".imaginebench-staging-recent"]  # may be a live older writer's


def test_staging_folders_whose_owner_is_gone_are_removed(minari_root):
    minari_root.mkdir()
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    me = install._owner()
    elsewhere = {**me, "host": socket.gethostname() + "-x"}
    unbeating = {key: value for key, value in elsewhere.items() if key != "heartbeat_s"}
    owners = {
        "dead": {**me, "pid": finished.pid},
        "reused-pid": {**me, "start": "0"},  # our pid, but another process's start time
        "restarted": {**me, "boot_id": "another-boot"},
        "foreign-new": elsewhere,
        # made 2 days ago, its owner beating: a long build on another host (removed before 2026-12-07)
        "foreign-beating": {**elsewhere, "created": time.time() - 2 * 86400},
        "foreign-silent": elsewhere,  # no beat for 3 h, below
        # made by a version without heartbeats: judged by its age, 24 h
        "foreign-unbeating-old": {**unbeating, "created": time.time() - 25 * 3600},
        "foreign-unbeating-new": {**unbeating, "created": time.time() - 23 * 3600},
        "live": me,
    }
    for name, owner in owners.items():
        folder = minari_root / f".imaginebench-staging-{name}"
        folder.mkdir()
        (folder / install.OWNER).write_text(json.dumps(owner))
    silent = time.time() - 3 * 3600
    os.utime(minari_root / ".imaginebench-staging-foreign-silent" / install.OWNER, (silent, silent))
    done = install.recover(minari_root)
    assert len(done) == 5 and any(f"pid {finished.pid}, is gone" in line for line in done)
    assert any("no heartbeat for 3.0 h" in line for line in done), done
    assert hidden(minari_root) == [f".imaginebench-staging-{name}" for name in
                                   ("foreign-beating", "foreign-new", "foreign-unbeating-new", "live")]


def test_a_staging_folder_in_use_beats_and_stops_beating_when_done(minari_root, monkeypatch):
    monkeypatch.setattr(install, "HEARTBEAT_S", 0.01)
    minari_root.mkdir()
    long_ago = time.time() - 3 * 3600
    with install.staging_folder(minari_root) as path:
        owner = path / install.OWNER
        os.utime(owner, (long_ago, long_ago))
        deadline = time.time() + 10
        while owner.stat().st_mtime == long_ago and time.time() < deadline:
            time.sleep(0.01)
        assert owner.stat().st_mtime > long_ago + 3600  # touched by the heartbeat
        assert install.stale_reason(path) is None
    assert not path.exists()
    assert not any(t.name.startswith("heartbeat") for t in threading.enumerate())


def test_recovery_with_nothing_to_do_lists_only_the_root_and_its_namespaces(versions, minari_root,
                                                                           monkeypatch):
    shutil.copytree(versions.old_root, minari_root)
    listed = []
    real_scandir, real_listdir = os.scandir, os.listdir
    monkeypatch.setattr(install.os, "scandir", lambda path: listed.append(path) or real_scandir(path))
    monkeypatch.setattr(install.os, "listdir", lambda path: listed.append(path) or real_listdir(path))
    assert install.recover(minari_root) == []
    assert [Path(p) for p in listed] == [minari_root, minari_root / "imaginebench"]


@pytest.mark.parametrize("stage", install.STAGES)
def test_an_error_at_any_step_of_an_install_in_process(stage, versions, minari_root, tmp_path, monkeypatch):
    """An exception (not a kill) at a hook point: the writer undoes what it can at once (before the
    new version is in), and any reader of ours settles the rest."""
    shutil.copytree(versions.old_root, minari_root)

    def fail_at(name):
        if name == stage:
            raise OSError(f"injected at {name}")

    monkeypatch.setattr(install, "_fault_hook", fail_at)
    with pytest.raises(OSError, match=f"injected at {stage}"):
        pipeline.build(ID, episodes=3, workers=1, force=True, progress=False, cards_dir=tmp_path / "cards")
    if EXPECTED[stage] == "old":
        assert hidden(minari_root) == []  # nothing left for recovery
    assert local_ids() == [ID]
    assert read_card(ID).checksum == versions.checksums[EXPECTED[stage]]
    assert hidden(minari_root) == []


@pytest.mark.parametrize("arguments, code, says", [
    (["--help"], 0, "usage: python -m imaginebench_data.datasets.install [ROOT]"),
    (["-x"], 2, "usage: python -m imaginebench_data.datasets.install [ROOT]"),
    (["/nonexistent/minari"], 2, "error: /nonexistent/minari: expected Minari's datasets folder"),
])
def test_the_recovery_command_names_its_usage_and_a_missing_folder(arguments, code, says):
    """Found 2026-12-06: `--help` was taken for a folder ("nothing to recover under --help")."""
    ran = subprocess.run([sys.executable, "-m", "imaginebench_data.datasets.install", *arguments],
                         capture_output=True, text=True)
    assert ran.returncode == code and ran.stdout.startswith(says), ran.stdout + ran.stderr
