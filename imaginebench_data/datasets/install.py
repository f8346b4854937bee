"""Installing a built dataset folder into the Minari root, crash-safe, and recovering after a crash.

Layout, under the Minari root (every name of ours is hidden, so Minari never lists it):

- ``.imaginebench-locks/<namespace>__<name>.lock``: one lock per dataset id, held by a writer
  from before it checks whether the version exists until the new version is in (a second
  writer of the same id waits; ``IMAGINEBENCH_LOCK_TIMEOUT`` seconds makes it give up with a
  one-line error naming the holder); ``staging.lock`` guards making and removing staging folders.
- ``.imaginebench-staging-*/``: where a dataset is built, with ``.owner.json`` (pid, host,
  boot id, process start time) written when it is made and touched every ``HEARTBEAT_S`` while
  it is in use (another host's folder is judged by that heartbeat: its pid cannot be checked).
- ``<namespace>/.<name>.install``: the intent (journal) of an install in progress;
  ``<namespace>/.<name>.replaced``: the previous version while it is being replaced.

The install of a complete ``built`` folder as ``<namespace>/<name>`` (lock held):

1. fsync the built files and folders;                                 hook ``staged``
2. write the intent (temporary file, fsync, ``os.replace``, fsync of the namespace folder),
   naming the backup and the new folder;                               hook ``intent``
3. if a version exists: rename it to the backup, fsync the folder;   hook ``moved_aside``
4. rename ``built`` to ``<name>``, fsync the folder;                  hook ``moved_in``
5. remove the backup;                                                 hook ``cleanup``
6. remove the intent, fsync the folder; the writer then removes its staging folder.

An error or Ctrl-C in steps 2-4 is undone at once (the previous version renamed back, the
intent removed); one after step 4, or a kill anywhere, is settled by the next ``recover``.

``recover(root)`` settles what a crash left, under each id's lock (so never an install in
progress): with an intent or a backup, the destination is kept if it is complete (its
``data/metadata.json`` holds the card) and the backup removed (rolled forward); if the
destination is missing, the backup is renamed back (rolled back). Killed at any step, a
dataset is therefore left as its old version (steps 1-3) or its new one (4-6). It also
removes staging folders whose owner is gone, and lock files nobody holds. When there is
nothing to do it costs one listing of the root and one of each namespace folder.

Recovery runs in every process of ours that opens a Minari folder: the writer (before it checks
for an existing version) and the readers (``read.data_path`` and ``read.local_ids``, so
``verify``, ``ib.load``, ``quality_frame``, ``imaginebench list`` / ``verify`` / ``build``).
Plain ``minari.load_dataset`` runs none of our code: it sees the old or the new version
complete after a crash at any step but 3 (between the renames), where the dataset is missing
until something of ours runs, e.g. ``python -m imaginebench_data.datasets.install``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .ids import DatasetId, DatasetIdError, datasets_root
from .lock import FileLock, LockTimeoutError

LOCKS = ".imaginebench-locks"
STAGING_PREFIX = ".imaginebench-staging-"
OWNER = ".owner.json"
STAGES = ("staged", "intent", "moved_aside", "moved_in", "cleanup")  # the install's hook points
READER_WAIT_S = 10.0  # a reader waits this long for an install in progress to finish
ORPHAN_AGE_S = 3600.0  # a staging folder without an owner file (older versions) is stale after 1 h
HEARTBEAT_S = 600.0  # an owner touches its owner file this often while it uses the folder
FOREIGN_AGE_S = 2 * 3600.0  # one owned by another host (its pid can't be checked): 2 h without a beat
UNBEATING_AGE_S = 24 * 3600.0  # one of another host made by a version without heartbeats: 24 h old
_HIDDEN = re.compile(r"\.(?P<name>.+?)\.(?:replaced|install(?:\.tmp-[0-9]+)?)")

logger = logging.getLogger(__name__)


class DatasetLockedError(LockTimeoutError):
    """Another process is writing this dataset id (the message names it, in one line)."""


def _fault_hook(stage: str) -> None:
    """Called at each named point of a write (``STAGES``, and ``locked`` / ``lock_wait``); tests
    replace it to kill the process there. Does nothing."""


# --- locks ------------------------------------------------------------------------------------------
def _id_lock(root: Path, dataset_id: DatasetId) -> FileLock:
    return FileLock(root / LOCKS / f"{dataset_id.namespace}__{dataset_id.name}.lock",
                    f"dataset {dataset_id}")


def lock_timeout() -> float | None:
    """``$IMAGINEBENCH_LOCK_TIMEOUT`` in seconds; unset or empty: wait as long as it takes."""
    text = os.environ.get("IMAGINEBENCH_LOCK_TIMEOUT", "").strip()
    try:
        return float(text) if text else None
    except ValueError:
        raise ValueError(f"IMAGINEBENCH_LOCK_TIMEOUT must be a number of seconds, got {text!r}") from None


@contextlib.contextmanager
def dataset_lock(root: Path, dataset_id: DatasetId) -> Iterator[None]:
    """Hold ``dataset_id``'s lock (waiting for it, up to ``lock_timeout()``)."""
    def waiting(holder: str) -> None:
        _fault_hook("lock_wait")
        limit = lock_timeout()
        print(f"imaginebench: dataset {dataset_id} is being written by {holder}; waiting"
              + ("" if limit is None else f" up to {limit:g} s"), file=sys.stderr)

    lock = _id_lock(root, dataset_id)
    try:
        lock.acquire(lock_timeout(), on_wait=waiting)
    except LockTimeoutError as error:
        raise DatasetLockedError(str(error)) from None
    try:
        _fault_hook("locked")
        yield
    finally:
        lock.release()


# --- small durable steps ----------------------------------------------------------------------------
def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(path: Path) -> None:
    for folder, _, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(folder))


def _write_atomic(path: Path, text: str) -> None:
    """``path`` holds ``text`` or is as it was, whatever happens: temp file, fsync, rename, fsync."""
    temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with open(temporary, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    _fsync_dir(path.parent)


def _complete(folder: Path) -> bool:
    """A finished dataset folder: its ``data/metadata.json`` reads and holds the card."""
    from .read import CARD_KEY

    try:
        return CARD_KEY in json.loads((folder / "data" / "metadata.json").read_text())
    except (OSError, ValueError):
        return False


# --- install ----------------------------------------------------------------------------------------
def install(built: Path, destination: Path, root: Path) -> None:
    """Move the complete folder ``built`` to ``destination`` (see the module docstring), the
    caller holding the dataset's lock; an existing version is removed only once the new one is in."""
    folder, name = destination.parent, destination.name
    folder.mkdir(parents=True, exist_ok=True)
    backup, intent = folder / f".{name}.replaced", folder / f".{name}.install"
    _fsync_tree(built)
    _fault_hook("staged")
    old = destination.exists()
    _write_atomic(intent, json.dumps({
        "dataset": f"{folder.name}/{name}", "backup": backup.name if old else None,
        "new": os.path.relpath(built, root), "pid": os.getpid(), "host": socket.gethostname(),
        "time": time.time()}))
    try:
        _fault_hook("intent")
        if old:
            os.rename(destination, backup)
            _fsync_dir(folder)
            _fault_hook("moved_aside")
        os.rename(built, destination)
    except BaseException:  # an error or Ctrl-C between the renames: undo at once
        if old and backup.exists() and not destination.exists():
            os.rename(backup, destination)
        intent.unlink(missing_ok=True)
        _fsync_dir(folder)
        raise
    _fsync_dir(folder)
    _fault_hook("moved_in")
    shutil.rmtree(backup, ignore_errors=True)
    _fault_hook("cleanup")
    if not backup.exists():  # else recovery retries it
        intent.unlink()
    _fsync_dir(folder)


# --- staging folders --------------------------------------------------------------------------------
def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def _process_start(pid: int) -> str | None:
    """The process's start time (clock ticks since boot, /proc field 22) and state, or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]  # a zombie has finished


def _owner() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(), "boot_id": _boot_id(),
            "start": _process_start(os.getpid()), "created": time.time(), "heartbeat_s": HEARTBEAT_S}


@contextlib.contextmanager
def _heartbeat(path: Path) -> Iterator[None]:
    """Touch ``path``'s owner file every ``HEARTBEAT_S`` seconds (a daemon thread) inside the block:
    how another host tells a folder in use from an abandoned one (``stale_reason``). Until
    2026-12-07 such a folder was removed 24 h after it was made, even while its build ran."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT_S):
            with contextlib.suppress(OSError):  # removed, or the folder is gone: the writer says so
                os.utime(path / OWNER)

    thread = threading.Thread(target=beat, name=f"heartbeat {path.name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _owned_folder(parent: Path, prefix: str) -> Path:
    """A new folder ``parent/prefix*`` with this process's owner file (see ``stale_reason``)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        _write_atomic(path / OWNER, json.dumps(_owner()))
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    return path


@contextlib.contextmanager
def staging_folder(root: Path) -> Iterator[Path]:
    """A new staging folder under ``root`` owned by this process (made under the staging lock,
    so a cleaner never sees it without its owner file), removed on exit."""
    path = None
    try:
        with FileLock(root / LOCKS / "staging.lock", "staging folders"):
            path = _owned_folder(root, STAGING_PREFIX)
        with _heartbeat(path):
            yield path
    finally:  # also after an error or Ctrl-C while it was being made
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def owned_scratch(parent: Path, prefix: str) -> Iterator[Path]:
    """A scratch folder ``parent/prefix*`` outside a Minari root (the card files' staging),
    removed on exit and, after a kill, by the next ``remove_abandoned(parent, prefix)``: made
    without a lock, so a folder found without its owner file is left for ``ORPHAN_AGE_S``."""
    path = _owned_folder(parent, prefix)
    try:
        with _heartbeat(path):
            yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def remove_abandoned(parent: Path, prefix: str) -> list[str]:
    """Remove the folders ``parent/prefix*`` whose owner is gone (``stale_reason``); say which."""
    done = _remove_stale([path for path in parent.glob(f"{prefix}*") if path.is_dir()], "scratch folder")
    for line in done:
        logger.warning("imaginebench: %s", line)
    return done


def _remove_stale(folders: list[Path], kind: str) -> list[str]:
    """Remove those of ``folders`` whose owner is gone (``stale_reason``); say which."""
    done = []
    for path in folders:
        with contextlib.suppress(FileNotFoundError):
            reason = stale_reason(path)
            if reason:
                shutil.rmtree(path, ignore_errors=True)
                done.append(f"removed the {kind} {path.name} ({reason})")
    return done


def stale_reason(path: Path) -> str | None:
    """Why the staging folder ``path`` is abandoned, or None while its owner may still use it."""
    try:
        owner = json.loads((path / OWNER).read_text())
        pid, host = int(owner["pid"]), str(owner["host"])
    except (OSError, ValueError, KeyError, TypeError):
        age = time.time() - path.stat().st_mtime
        return f"no owner file, {age / 3600:.1f} h old" if age > ORPHAN_AGE_S else None
    if host == socket.gethostname():
        if owner.get("boot_id") not in (None, _boot_id()):
            return f"pid {pid}'s machine has restarted since"
        start = _process_start(pid)
        if start is None or owner.get("start") not in (None, start):
            return f"its owner, pid {pid}, is gone"
        return None
    if "heartbeat_s" not in owner:  # made by a version without heartbeats: only its age tells
        age = time.time() - float(owner.get("created", 0))
        return f"owned by {host}, {age / 3600:.1f} h old" if age > UNBEATING_AGE_S else None
    silent = time.time() - (path / OWNER).stat().st_mtime
    return f"owned by {host}, no heartbeat for {silent / 3600:.1f} h" if silent > FOREIGN_AGE_S else None


def _clean_staging(root: Path, names: list[str]) -> list[str]:
    lock = FileLock(root / LOCKS / "staging.lock", "staging folders")
    if not lock.try_acquire():  # another process is making or cleaning one: it is its turn
        return []
    with lock:
        return _remove_stale([root / name for name in names], "staging folder")


# --- recovery ---------------------------------------------------------------------------------------
def _settle(root: Path, dataset_id: DatasetId) -> list[str]:
    """Finish or undo an interrupted install of ``dataset_id`` (its lock held)."""
    folder, name = root / dataset_id.namespace, dataset_id.name
    destination, backup, intent = folder / name, folder / f".{name}.replaced", folder / f".{name}.install"
    done = []
    if backup.exists():
        if not destination.exists():
            os.rename(backup, destination)
            _fsync_dir(folder)
            done.append(f"{dataset_id}: install interrupted; rolled back to the previous version")
        elif _complete(destination):
            shutil.rmtree(backup)
            done.append(f"{dataset_id}: install interrupted after the new version was in; "
                        "removed the previous one")
        else:
            logger.warning("imaginebench: %s is incomplete; its previous version is kept in %s",
                           destination, backup)
            return done
    elif intent.exists():
        done.append(f"{dataset_id}: install interrupted before a rename or after the last; "
                    + ("kept the version in place" if destination.exists() else "no version was in place"))
    for leftover in folder.glob(f".{name}.install*"):
        leftover.unlink(missing_ok=True)
    _fsync_dir(folder)
    return done


def _settle_locked(root: Path, dataset_id: DatasetId, holding: DatasetId | None) -> list[str]:
    if dataset_id == holding:
        return _settle(root, dataset_id)
    lock = _id_lock(root, dataset_id)
    # A writer (holding its own lock) never waits for another id's: no two writers wait on each other.
    try:
        lock.acquire(timeout=0 if holding is not None else READER_WAIT_S)
    except LockTimeoutError:
        return []  # an install in progress: its writer finishes it
    with lock:
        return _settle(root, dataset_id)


def _clean_locks(root: Path) -> None:
    with contextlib.suppress(OSError):
        for path in (root / LOCKS).iterdir():
            lock = FileLock(path, path.name)
            if lock.try_acquire():  # nobody holds it: its holder died
                lock.release()


def recover(root: Path | None = None, holding: DatasetId | None = None) -> list[str]:
    """Settle interrupted installs and remove abandoned staging folders and lock files under
    ``root`` (default: Minari's); return what was done (also logged as warnings). ``holding``:
    the id whose lock the caller holds. Errors (e.g. a read-only folder) are logged, not raised."""
    root = Path(root) if root is not None else datasets_root()
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    pending, staging, locks = set(), [], False
    for entry in entries:
        if entry.name.startswith(STAGING_PREFIX):
            staging.append(entry.name)
        elif entry.name == LOCKS:
            locks = True
        elif not entry.name.startswith(".") and entry.is_dir():
            with contextlib.suppress(OSError):
                for name in os.listdir(entry.path):
                    match = _HIDDEN.fullmatch(name) if name.startswith(".") else None
                    if match:
                        with contextlib.suppress(DatasetIdError):
                            pending.add(DatasetId.parse(f"{entry.name}/{match['name']}"))
    done: list[str] = []
    try:
        for dataset_id in sorted(pending):
            done += _settle_locked(root, dataset_id, holding)
        if staging:
            done += _clean_staging(root, staging)
        if locks:
            _clean_locks(root)
    except OSError as error:
        logger.warning("imaginebench: recovery under %s stopped: %s", root, error)
    for line in done:
        logger.warning("imaginebench: %s", line)
    return done


if __name__ == "__main__":  # python -m imaginebench_data.datasets.install [ROOT]
    logger.setLevel(logging.ERROR)  # what was done is printed below
    if len(sys.argv) > 2 or sys.argv[1:2] and sys.argv[1].startswith("-"):
        print("usage: python -m imaginebench_data.datasets.install [ROOT]: settles interrupted installs "
              "and removes dead builds' staging folders under ROOT (default: Minari's folder)")
        sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else datasets_root()
    if len(sys.argv) > 1 and not where.is_dir():
        print(f"error: {where}: expected Minari's datasets folder, found no folder there")
        sys.exit(2)
    print("\n".join(recover(where)) or f"nothing to recover under {where}")
