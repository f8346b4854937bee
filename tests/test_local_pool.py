"""The local process pool under Ctrl-C: a signal that lands while the pool starts must not
leave workers (or the thread that forks replacements) behind."""

import multiprocessing
import multiprocessing.pool
import signal
import threading
import time

import pytest

from imaginebench_data.pipeline.executors import LocalPool


def _nothing() -> None:
    pass


def _double(x: int) -> int:
    return 2 * x


def test_results_come_in_job_order():
    assert list(LocalPool(2).map(_double, range(7), (_nothing, ()))) == [0, 2, 4, 6, 8, 10, 12]


def test_ctrl_c_delivered_to_another_thread_while_the_pool_starts_leaves_no_worker(monkeypatch):
    """The kernel gives a process group's SIGINT to any thread that does not block it (tqdm's
    monitor, here a parked thread); Python then raises in the main thread, which a signal
    mask on the main thread alone does not prevent. The hook sends it half-way through
    ``Pool()``: after the workers and the thread that replaces them started, before the pool
    registers its terminator."""
    parked = threading.Event()
    bystander = threading.Thread(target=parked.wait, daemon=True)
    bystander.start()
    finalize = multiprocessing.util.Finalize

    def ctrl_c_then_finalize(obj, *args, **kwargs):
        if isinstance(obj, multiprocessing.pool.Pool):
            signal.pthread_kill(bystander.ident, signal.SIGINT)
            time.sleep(0.2)  # Python runs the handler in the main thread at its next check
        return finalize(obj, *args, **kwargs)

    monkeypatch.setattr(multiprocessing.util, "Finalize", ctrl_c_then_finalize)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            list(LocalPool(2).map(_double, range(50), (_nothing, ())))
    finally:
        signal.signal(signal.SIGINT, previous)
        parked.set()
    time.sleep(0.5)  # a leaked pool's worker thread would have forked replacements by now
    assert multiprocessing.active_children() == []
    assert not [t for t in threading.enumerate() if t.name.endswith("(_handle_workers)") and t.is_alive()]
