"""Ctrl-C, and SIGTERM, that are never lost.

Python delivers SIGINT as a ``KeyboardInterrupt`` wherever the main thread happens to be, and
one raised inside a destructor or a library's callback is printed and dropped: the build
then runs on. ``install()`` (the command line does it) also records the request, and
``check()``, called between episodes by the writer, raises it again until it is handled.

SIGTERM (``kill``, a batch scheduler's time limit) is answered as Ctrl-C is, so that a
command stopped either way removes what it half wrote and says in one line what it kept.
Ctrl-C reaches the whole process group and SIGTERM this process alone, so neither leaves
the ending of a pool's workers to the workers: each pool ends its own when interrupted.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from . import orphans

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_requested = threading.Event()
_received = [signal.SIGINT]  # the signal of the last request


def _handler(signum, frame) -> None:
    _requested.set()
    _received[0] = signum
    raise KeyboardInterrupt


def install() -> None:
    """Record every Ctrl-C and SIGTERM, and raise ``KeyboardInterrupt`` for each (as Python's
    default handler does for Ctrl-C)."""
    _requested.clear()
    _received[0] = signal.SIGINT
    for signum in SIGNALS:
        signal.signal(signum, _handler)


def exit_code() -> int:
    """What a command stopped by the last request exits with: 128 + the signal's number (130
    for Ctrl-C, 143 for SIGTERM), as a shell reports a process the signal killed."""
    return 128 + int(_received[0])


def clear() -> None:
    """The interrupt was handled: later work in this process runs again."""
    _requested.clear()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C or SIGTERM came (it may have been dropped on the way)."""
    if _requested.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold back Ctrl-C and SIGTERM for the block and deliver them after, to the handlers in
    place before.

    Blocking SIGINT in the main thread is not enough: the kernel hands a process group's
    signal to any thread that does not block it (tqdm's monitor, torch's pool), and Python then
    raises ``KeyboardInterrupt`` in the main thread all the same, in the middle of the block.
    Outside the main thread (where handlers cannot be set) the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {signum: signal.signal(signum, lambda number, frame: held.append(number))
                for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)  # the previous handler runs now (and raises)


@contextlib.contextmanager
def starting_workers() -> Iterator[None]:
    """Start worker processes in the block: Ctrl-C and SIGTERM are held back until it ends (one
    that stopped a pool half-started would leave workers that nothing ends), and blocked in this
    thread, so that each worker, forked or spawned, inherits them blocked and none can stop it
    before ``in_worker`` sets its own handlers."""
    with deferred():
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def in_worker() -> None:
    """A pool worker's handlers, set first in its initializer: Ctrl-C, which reaches the whole
    process group, is ignored (the main process stops the work and ends the pool), rather than
    each worker printing a traceback; SIGTERM, which its pool ends it with, ends it at once (a
    forked worker would otherwise run the handler it copied from its parent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(SIGNALS))


def pool_worker(parent: int) -> None:
    """A pool worker's start, first in its initializer: ``in_worker``'s handlers, and a watch that
    ends it once ``parent``, the process that started the pool, is gone (``orphans``)."""
    in_worker()
    orphans.exit_with_parent(parent)
