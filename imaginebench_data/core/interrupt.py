"""Ctrl-C that is never lost.

Python delivers SIGINT as a ``KeyboardInterrupt`` wherever the main thread happens to be, and
one raised inside a destructor or a library's callback is printed and dropped: the build
then runs on. ``install()`` (the command line does it) also records the request, and
``check()``, called between episodes by the writer, raises it again until it is handled.
"""

from __future__ import annotations

import signal
import threading

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
