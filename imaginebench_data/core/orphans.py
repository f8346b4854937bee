"""Worker processes that end when the process that started them is gone.

A pool's workers are ended by the pool, which a process killed by a signal it does not
handle (``kill -9``; SIGTERM outside the command line, which answers it as Ctrl-C: see
``interrupt``) never gets to do: the workers of ``imaginebench evaluate`` went on training
for 37 minutes with no one to take their rows (2026-12-06), and a build's forked workers wait
for jobs forever. A worker that calls ``exit_with_parent`` in its initializer checks every
``POLL_SECONDS`` that its parent is the one that started it, and exits when it is not (the
kernel hands an orphan to another parent).
"""

from __future__ import annotations

import os
import threading
import time

POLL_SECONDS = 1.0


def exit_with_parent(parent: int) -> None:
    """End this process, from a daemon thread, once its parent is no longer ``parent`` (the
    pid of the process that started it, taken there: a parent gone before this call is seen
    at the first check)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(1)  # no cleanup to wait for: the parent that would take the results is gone

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
