"""Ctrl-C that is never lost.

Python delivers SIGINT as a ``KeyboardInterrupt`` wherever the main thread happens to be, and
one raised inside a destructor or a library's callback is printed and dropped: the build
then runs on. ``install()`` (the command line does it) also records the request, and
``check()``, called between episodes by the writer, raises it again until it is handled.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

_requested = threading.Event()


def _handler(signum, frame) -> None:
    _requested.set()
    raise KeyboardInterrupt


def install() -> None:
    """Record every Ctrl-C (and raise it, as Python's default handler does)."""
    _requested.clear()
    signal.signal(signal.SIGINT, _handler)


def clear() -> None:
    """The interrupt was handled: later work in this process runs again."""
    _requested.clear()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed (it may have been dropped on the way)."""
    if _requested.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold back Ctrl-C for the block and deliver it after, to the handler in place before.

    Blocking SIGINT in the main thread is not enough: the kernel hands a process group's
    signal to any thread that does not block it (tqdm's monitor, torch's pool), and Python then
    raises ``KeyboardInterrupt`` in the main thread all the same, in the middle of the block.
    Outside the main thread (where handlers cannot be set) the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed.is_set():
            signal.raise_signal(signal.SIGINT)  # the previous handler runs now (and raises)
