"""One lock per dataset id: concurrent writers of the same id take turns, or give up clearly.

The first writer stops right after taking the lock (its ``locked`` hook waits for a ``go``
file), so the second one meets the lock held every time, whatever the timing; the hooks log
every stage they pass to a shared file, which gives the order the two writers went in.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import imaginebench_data.pipeline.build as pipeline
from imaginebench_data.datasets.lock import FileLock
from imaginebench_data.datasets.read import local_ids, read_card
from imaginebench_data.datasets.verify import verify

ID = "imaginebench/clevr-easy-real-v0"

WRITER = """
import os, sys, time
from pathlib import Path
import imaginebench_data.datasets.install as install
from imaginebench_data.pipeline.build import build

signals, me = Path(sys.argv[1]), sys.argv[2]

def hook(stage):
    with open(signals / "log", "a") as log:
        log.write(f"{me} {stage}\\n")
    if stage == "lock_wait":
        (signals / f"{me}-waiting").touch()
    if me == "first" and stage == "locked":
        (signals / "first-locked").touch()
        while not (signals / "go").exists():
            time.sleep(0.01)

install._fault_hook = hook
try:
    build(sys.argv[3], episodes=3, workers=1, force=True, cards_dir=signals / me, progress=False)
except Exception as error:
    print(f"{type(error).__name__}: {error}", file=sys.stderr)
    sys.exit(3)
"""


def start(who: str, signals: Path, root: Path, **env: str) -> subprocess.Popen:
    env = {**os.environ, "MINARI_DATASETS_PATH": str(root), "IMAGINEBENCH_CACHE": str(root.parent / "cache"),
           **env}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(signals), who, ID], env=env, cwd="/",
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"exited {process.returncode} early: {process.stderr.read()}"
        assert time.monotonic() < deadline, f"no {path.name} after {seconds} s"
        time.sleep(0.01)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    _, stderr = process.communicate(timeout=300)
    return process.returncode, stderr


def hidden(root: Path) -> list[str]:
    return sorted([p.name for p in root.iterdir() if p.name.startswith(".")]
                  + [p.name for p in (root / "imaginebench").iterdir() if p.name.startswith(".")])


def test_two_concurrent_builds_of_one_id_take_turns(minari_root, tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "sequential"))
    sequential = pipeline.build(ID, episodes=3, workers=1, progress=False, cards_dir=tmp_path / "cards")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(minari_root))
    signals = tmp_path / "signals"
    signals.mkdir()
    first = start("first", signals, minari_root)
    wait_for(signals / "first-locked", first)
    second = start("second", signals, minari_root)
    wait_for(signals / "second-waiting", second)
    assert "second locked" not in (signals / "log").read_text()
    (signals / "go").touch()
    (first_rc, first_err), (second_rc, second_err) = finish(first), finish(second)
    assert first_rc == 0 and second_rc == 0, first_err + second_err
    assert f"being written by pid {first.pid} on" in second_err
    log = (signals / "log").read_text().split("\n")
    # The second took the lock only once the first had installed and cleaned up.
    assert log.index("first cleanup") < log.index("second locked") < log.index("second staged")
    verdict = verify(ID)
    assert verdict.ok, verdict.problems
    assert verdict.episodes == 3
    assert read_card(ID).checksum == sequential.card.checksum
    assert hidden(minari_root) == []


def test_a_writer_with_a_timeout_gives_up_naming_the_holder(minari_root, tmp_path):
    signals = tmp_path / "signals"
    signals.mkdir()
    first = start("first", signals, minari_root)
    wait_for(signals / "first-locked", first)
    second = start("second", signals, minari_root, IMAGINEBENCH_LOCK_TIMEOUT="0.2")
    second_rc, second_err = finish(second)
    assert second_rc == 3
    error = second_err.strip().split("\n")[-1]
    assert error.startswith(f"DatasetLockedError: dataset {ID} is locked by pid {first.pid} on ")
    assert "gave up after 0.2 s" in error
    (signals / "go").touch()
    first_rc, first_err = finish(first)
    assert first_rc == 0, first_err
    assert verify(ID).ok
    assert hidden(minari_root) == []


def test_a_lock_file_goes_when_released_and_a_dead_holders_lock_is_free(tmp_path):
    path = tmp_path / "locks" / "x.lock"
    with FileLock(path, "x") as lock:
        assert lock.held and path.exists()
        assert not FileLock(path, "x").try_acquire()  # another open file: the same lock
    assert not (tmp_path / "locks").exists()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parents[1])!r})
from imaginebench_data.datasets.lock import FileLock
FileLock({str(path)!r}, "x").acquire()
print("held", flush=True)
os._exit(137)
"""], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    holder.wait()
    assert path.exists()  # left by the killed holder, but not held
    lock = FileLock(path, "x")
    assert lock.try_acquire()
    lock.release()
    assert not path.exists()


KILLED_MID_ROLLOUT = """
import os, sys
from pathlib import Path
import imaginebench_data.pipeline.publish as publish
from imaginebench_data.pipeline.build import build

real_row, rows = publish.episode_row, []

def row(*args, **kwargs):  # the writer's per-episode callback: the pool is at work
    rows.append(1)
    if len(rows) == 3:
        os._exit(137)
    return real_row(*args, **kwargs)

publish.episode_row = row
build("imaginebench/clevr-train-real-v0", episodes=200, workers=2, force=True,
      cards_dir=Path(sys.argv[1]), progress=False)
"""


def test_a_killed_writers_pool_workers_do_not_keep_its_lock(minari_root, tmp_path):
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "IMAGINEBENCH_CACHE": str(tmp_path)}
    with open(tmp_path / "stderr", "w") as stderr:  # not a pipe: the workers would keep it open
        killed = subprocess.Popen([sys.executable, "-c", KILLED_MID_ROLLOUT, str(tmp_path / "cards")],
                                  env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=stderr)
        assert killed.wait(timeout=300) == 137, (tmp_path / "stderr").read_text()
    lock = FileLock(minari_root / ".imaginebench-locks" / "imaginebench__clevr-train-real-v0.lock", "x")
    assert lock.try_acquire()  # at once: the workers, still running, closed their copy at fork
    lock.release()
    assert local_ids() == []  # and recovery removes the dead writer's staging folder
    assert list(minari_root.iterdir()) == []


def test_the_card_files_are_written_while_the_dataset_is_still_locked(minari_root, tmp_path, monkeypatch):
    """Found 2026-12-07: the card files were written after the lock was let go, so a second
    --force build of the id could install its dataset in between and the cards folder then
    described the other build's episodes. They are now written under the lock."""
    import imaginebench_data.pipeline.publish as publish
    from imaginebench_data.datasets import install
    from imaginebench_data.datasets.ids import DatasetId

    real, locked = publish.write_card_files, []

    def checking(card, frame, cards_dir):
        other = install._id_lock(minari_root, DatasetId.parse(ID))  # another writer's attempt
        taken = other.try_acquire()
        if taken:
            other.release()
        locked.append(not taken)
        return real(card, frame, cards_dir)

    monkeypatch.setattr(publish, "write_card_files", checking)
    result = pipeline.build(ID, episodes=3, workers=1, cards_dir=tmp_path, progress=False)
    assert locked == [True]
    assert result.card == read_card(ID) and (tmp_path / "clevr-easy-real-v0.json").is_file()
