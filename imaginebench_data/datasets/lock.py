"""Advisory locks on files (``fcntl.flock``) that leave nothing behind once released.

A lock is the ``flock`` on the file *currently* at its path. The holder writes its pid, host
and start time into the file (so a waiter can name it), and on release unlinks the file before
closing it; a waiter that then gets the lock on the unlinked file sees that the path no longer
names the file it holds and tries again on the path's new file. The kernel drops a ``flock``
when its holder dies, however it dies, so a killed holder never blocks anyone: its file stays
until someone takes and releases the lock (``recover`` does so for abandoned ones). Once no
lock file is left in the folder, the folder is removed too.

A process forked while a lock is held (e.g. a worker pool's) closes its copy of the lock's
file at once, so the lock goes with its holder, not with the last of its children, and only
the holder releases (unlinks) it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

_HELD: set[int] = set()  # descriptors of the locks this process holds


def _close_held_in_child() -> None:
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_close_held_in_child)


class LockTimeoutError(TimeoutError):
    """The lock stayed held by another process for longer than the timeout (one-line message)."""


def _open_locked(path: Path, blocking: bool) -> int | None:
    """An open descriptor of the file at ``path`` (created with its folder if missing) that
    holds its flock; ``None`` when another holds it and ``blocking`` is false."""
    while True:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # the folder was removed meanwhile: make it again
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        try:
            held = os.fstat(fd)
            current = os.stat(path)
            if (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # its holder unlinked it on release: lock the path's new file


def holder_of(path: Path) -> str:
    """Who holds (or last held) the lock at ``path``, in words: 'pid N on HOST since HH:MM:SS'."""
    try:
        info = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        info = {}
    if "pid" not in info:
        return "another process"
    since = time.strftime("%H:%M:%S", time.localtime(info.get("since", 0)))
    return f"pid {info['pid']} on {info.get('host', '?')} since {since}"


class FileLock:
    """An exclusive lock named by ``path``; ``label`` says what it guards in messages."""

    def __init__(self, path: Path, label: str) -> None:
        self.path, self.label, self._fd, self._pid = Path(path), label, None, os.getpid()

    @property
    def held(self) -> bool:
        return self._fd is not None and self._pid == os.getpid()

    def acquire(self, timeout: float | None = None,
                on_wait: Callable[[str], None] | None = None) -> FileLock:
        """Take the lock: wait for it (forever if ``timeout`` is None), else raise
        ``LockTimeoutError`` naming the holder. ``on_wait(holder)`` is called once if it is busy."""
        fd = _open_locked(self.path, blocking=False)
        if fd is None:
            if on_wait is not None:
                on_wait(holder_of(self.path))
            if timeout is None:
                fd = _open_locked(self.path, blocking=True)
            else:
                deadline = time.monotonic() + timeout
                while fd is None and time.monotonic() < deadline:
                    time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
                    fd = _open_locked(self.path, blocking=False)
                if fd is None:
                    raise LockTimeoutError(
                        f"{self.label} is locked by {holder_of(self.path)}; gave up after {timeout:g} s "
                        f"(lock file {self.path})")
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd, self._pid = fd, os.getpid()
        _HELD.add(fd)
        return self

    def try_acquire(self) -> bool:
        """Take the lock if it is free now; whether it was taken."""
        try:
            self.acquire(timeout=0)
        except LockTimeoutError:
            return False
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None or self._pid != os.getpid():  # a forked copy: the parent holds the lock
            return
        _HELD.discard(fd)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)
        try:
            self.path.parent.rmdir()  # the last lock file gone: the folder goes too
        except OSError:
            pass

    def __enter__(self) -> FileLock:
        if not self.held:
            self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
