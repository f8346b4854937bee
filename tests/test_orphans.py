"""A pool's workers end when the process that started them is killed by a signal (which gives
it no chance to end them): the spawned workers of ``evaluate --workers`` and the forked
workers of a build, each busy with a job of 5 minutes."""

import os
import signal
import subprocess
import sys
import time

import pytest

# each prints its workers' pids once they run a job, then waits on them
PARENTS = {
    "evaluate's spawned pool": """
import multiprocessing, os, time
from imaginebench_data.baselines.compare import training_pool
pool = training_pool(2)
[f.result() for f in [pool.submit(os.getpid) for _ in range(2)]]  # both workers set up
jobs = [pool.submit(time.sleep, 300) for _ in range(2)]
print(*[p.pid for p in multiprocessing.active_children()], flush=True)
[job.result() for job in jobs]
""",
    "a build's forked pool": """
import multiprocessing, threading, time
from imaginebench_data.pipeline.executors import LocalPool
def report():
    while len(multiprocessing.active_children()) < 2:
        time.sleep(0.05)
    print(*[p.pid for p in multiprocessing.active_children()], flush=True)
threading.Thread(target=report, daemon=True).start()
list(LocalPool(2).map(time.sleep, [300, 300], (int, ())))
""",
}


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for whoever adopted it)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("pool", PARENTS)
def test_workers_end_when_their_parent_is_killed(pool):
    parent = subprocess.Popen([sys.executable, "-c", PARENTS[pool]], stdout=subprocess.PIPE, text=True)
    workers = []
    try:
        workers += [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(map(_running, workers))
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=30) == -signal.SIGTERM
        deadline = time.monotonic() + 20  # a worker checks its parent every second
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in workers if _running(pid)], "workers outlived their parent"
    finally:
        parent.kill()
        for pid in filter(_running, workers):
            os.kill(pid, signal.SIGKILL)
