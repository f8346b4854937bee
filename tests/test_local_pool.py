"""The local process pool: results come back in job order, whole chunks of episodes too, and a
Ctrl-C that lands while the pool starts leaves no workers (or the thread that forks
replacements) behind."""

import multiprocessing
import multiprocessing.pool
import signal
import threading
import time

import numpy as np
import pytest

from imaginebench_data.pipeline.executors import LocalPool


def _nothing() -> None:
    pass


def _double(x: int) -> int:
    return 2 * x


def test_results_come_in_job_order():
    assert list(LocalPool(2).map(_double, range(7), (_nothing, ()))) == [0, 2, 4, 6, 8, 10, 12]


class TwoPartError(Exception):
    """An error whose constructor takes more than its message: it does not unpickle from args."""

    def __init__(self, message: str, given: str) -> None:
        super().__init__(message)
        self.given = given


def test_an_error_while_drawing_the_jobs_comes_back_at_once_as_raised():
    """The jobs iterator (for imagined sets, the model imagining) runs in the caller's thread: its
    error is raised there, whatever it is. Under Pool.imap it went to a worker to be raised, and
    one that did not unpickle there killed the worker and hung the build."""
    def jobs():
        yield 1
        yield 2
        raise TwoPartError("the checkpoint folder is damaged", given="x")

    outcome = {}

    def run():
        try:
            outcome["results"] = list(LocalPool(2).map(_double, jobs(), (_nothing, ())))
        except TwoPartError as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the pool hung on an error raised by its jobs"
    assert outcome["error"].given == "x" and "results" not in outcome


def test_jobs_are_drawn_as_results_are_handed_on_not_all_at_once():
    from imaginebench_data.pipeline.executors import WINDOW

    drawn = []

    def jobs():
        for job in range(1000):
            drawn.append(job)
            yield job

    results = LocalPool(2).map(_double, jobs(), (_nothing, ()))
    assert next(results) == 0
    assert len(drawn) == WINDOW * 2  # one window of chunks; imap had drawn all 1000 by now
    assert list(results) == [2 * job for job in range(1, 1000)]
    results.close()


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


def test_chunks_of_episodes_come_back_in_order_and_unchanged(monkeypatch):
    """Episodes handed to workers several at a time (7 here, which does not divide 45) are the
    episodes one process rolls out, in the same order."""
    from imaginebench_data.pipeline import generators
    from imaginebench_data.pipeline.recipe import load_recipes

    recipe = load_recipes()["imaginebench/babyai-train-real-v0"]
    alone = list(generators.expert_episodes(recipe, 45, LocalPool(1)))
    monkeypatch.setattr(generators, "chunk_size", lambda count, workers: 7)
    pooled = list(generators.expert_episodes(recipe, 45, LocalPool(2)))
    assert [e.metadata for e in pooled] == [e.metadata for e in alone]
    for one, other in zip(pooled, alone, strict=True):
        assert np.array_equal(one.states, other.states) and np.array_equal(one.actions, other.actions)


@pytest.mark.parametrize(("count", "workers", "expected"), [(8400, 2, 64), (840, 2, 13), (200, 2, 3),
                                                              (10, 4, 1), (0, 2, 1), (5000, 1, 64)])
def test_chunk_size_keeps_about_32_chunks_per_worker_between_1_and_64(count, workers, expected):
    from imaginebench_data.pipeline.generators import chunk_size

    assert chunk_size(count, workers) == expected


@pytest.mark.parametrize("error", ["build.UnknownRecipeError", "read.DatasetNotFoundError",
                                   "ids.DatasetIdError"])
def test_the_packages_errors_with_a_given_text_cross_processes_whole(error):
    import importlib
    import pickle

    module, name = error.split(".")
    package = "pipeline" if module == "build" else "datasets"
    kind = getattr(importlib.import_module(f"imaginebench_data.{package}.{module}"), name)
    back = pickle.loads(pickle.dumps(kind("no such dataset", given="imaginebench/x")))
    assert type(back) is kind and str(back) == "no such dataset" and back.given == "imaginebench/x"
