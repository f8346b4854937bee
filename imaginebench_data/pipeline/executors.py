"""Where a build's per-episode work runs: forked processes on this machine, or a Ray cluster.

An executor maps a picklable ``function`` over ``jobs`` in worker processes, each set up once
by ``setup(*setup_args)`` (the domain's simulator), and yields the results **in the order of
the jobs**, as they come: whichever worker ran a job, the writer sees the same episodes in the
same order, so a dataset has the same bytes (and checksum) on either executor. Jobs are
drawn from their iterator in the caller's thread, and only as results are handed on (at most
``WINDOW`` chunks per worker in flight), so a build never holds a whole dataset in memory, an
error raised while drawing them (the model imagining) comes back at once, as raised, and an
interrupted build does not wait for the next job to be drawn. (Until 2026-12-07 the local
pool drew them with ``Pool.imap``, in multiprocessing's task thread, all at once: an error
there was sent to a worker to raise, and one that did not unpickle there hung the build.)

- ``LocalPool(workers)``: ``workers`` forked processes (``multiprocessing``); 1 runs in this one.
- ``RayCluster(workers, address)``: ``workers`` Ray actors of one CPU each, on the Ray instance
  this process is already connected to, else on ``address`` (``ray start --head`` prints it),
  else on a local Ray started here (and stopped by ``close``). Every node needs this package
  installed, as on the driver. Each actor gets this process's portable-numerics settings
  (``PORTABLE_ENV``), whoever started Ray.

A job that fails in a worker is a fault of the code (the domain's expert, simulator or
checkers), not of the user's input: the job functions report it as an ``EpisodeError`` naming
the episode (``episode_fault``), and the command line answers it in one line.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import multiprocessing
import multiprocessing.pool
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..core import interrupt
from ..imagine.numerics import PORTABLE_ENV

EXECUTORS = ("local", "ray")
CONNECT_SECONDS = 5.0  # Ray itself retries an unreachable address for minutes


class ExecutorError(RuntimeError):
    """An executor cannot start (Ray missing, an address that does not answer, too few CPUs)."""


class EpisodeError(RuntimeError):
    """The work on one episode failed (in a worker or here): ``where`` names the episode, ``fault``
    the error (its type and message). The traceback is the chained cause, a worker's as
    multiprocessing or Ray sends it."""

    def __init__(self, where: str, fault: str) -> None:
        super().__init__(where, fault)
        self.where, self.fault = where, fault

    def __str__(self) -> str:
        return f"{self.where}: {self.fault}"


@contextlib.contextmanager
def episode_fault(where: Callable[[], str]) -> Iterator[None]:
    """Report an error raised inside the block as an ``EpisodeError`` at ``where()``. A Ctrl-C
    (``KeyboardInterrupt``) is no error and goes through as it is."""
    try:
        yield
    except Exception as error:
        raise EpisodeError(where(), f"{type(error).__name__}: {error}") from error


Setup = tuple[Callable[..., None], tuple]  # (initializer, its arguments), run once per worker
Job = Callable[[Any], Any]
WINDOW = 4  # chunks per worker submitted and not yet handed on


def _chunks(jobs: Iterable, chunksize: int) -> Iterator[list]:
    jobs = iter(jobs)
    while chunk := list(itertools.islice(jobs, chunksize)):
        yield chunk


def _run_chunk(function: Job, chunk: list) -> list:
    return [function(job) for job in chunk]


class LocalPool:
    """``workers`` forked processes on this machine (``workers`` 1: this process)."""

    name = "local"

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers

    def map(self, function: Job, jobs: Iterable, setup: Setup, chunksize: int = 1) -> Iterator:
        initializer, args = setup
        if self.workers <= 1:
            initializer(*args)
            yield from map(function, jobs)
            return
        with _forked_pool(self.workers, initializer, args) as pool:
            pending: collections.deque = collections.deque()
            for chunk in _chunks(jobs, chunksize):
                pending.append(pool.apply_async(_run_chunk, (function, chunk)))
                if len(pending) == WINDOW * self.workers:
                    yield from pending.popleft().get()  # the oldest chunk: results in job order
            while pending:
                yield from pending.popleft().get()

    def provenance(self) -> dict[str, Any]:
        return {"workers": self.workers}

    def close(self) -> None:
        pass


def _init_forked_worker(parent: int, initializer: Callable[..., None], args: tuple) -> None:
    # Ctrl-C stops the build in the main process, which ends the pool; a main process killed
    # with SIGKILL cannot end it: each worker then ends itself (core/orphans.py).
    interrupt.pool_worker(parent)
    initializer(*args)


@contextlib.contextmanager
def _forked_pool(workers: int, initializer: Callable[..., None],
                 args: tuple) -> Iterator[multiprocessing.pool.Pool]:
    """``workers`` forked processes, each set up by ``initializer(*args)``, terminated on exit
    (started under ``interrupt.starting_workers``: a Ctrl-C that interrupted ``Pool()`` half-way
    would leave workers, and a thread that forks new ones, that nothing terminates)."""
    context = multiprocessing.get_context("fork")
    pool = None
    try:
        with interrupt.starting_workers():  # a Ctrl-C held back is raised on leaving this block
            pool = context.Pool(workers, initializer=_init_forked_worker,
                                initargs=(os.getpid(), initializer, args))
        yield pool
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


class _Worker:
    """A Ray actor: runs chunks of jobs, set up again only when the setup changes (a new domain)."""

    def __init__(self) -> None:
        self.setup: Setup | None = None

    def run(self, setup: Setup, function: Job, chunk: list) -> list:
        if setup != self.setup:
            setup[0](*setup[1])
            self.setup = setup
        return _run_chunk(function, chunk)


class RayCluster:
    """``workers`` Ray actors (one CPU each); see the module's docstring for where they run."""

    name = "ray"

    def __init__(self, workers: int = 2, address: str | None = None) -> None:
        try:
            import ray
            from ray.util import ActorPool
        except ImportError:
            raise ExecutorError("--executor ray needs Ray: pip install 'imaginebench-data[ray]' "
                                "(or pip install ray)") from None
        self._ray, self._pool_type, self.workers, self.address = ray, ActorPool, workers, address
        self._started = not ray.is_initialized()
        if self._started:
            if address and address != "auto":
                _check_reachable(address)
            try:
                ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
            except ConnectionError as error:
                raise ExecutorError(f"could not connect to a Ray cluster at {address!r}: "
                                    f"{str(error).splitlines()[0]}{_auth_hint(address)}") from None
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if workers > cpus:
            self.close()
            raise ExecutorError(f"--workers {workers} asks for {workers} Ray actors of one CPU each; the "
                                f"Ray cluster has {cpus} CPUs (add nodes, or pass --workers {cpus} or fewer)")
        # the numerics chosen here (imagine/numerics.py), also for actors on other machines and
        # where the user started Ray (until 2026-12-07 they were given to a Ray started here only)
        pinned = {key: os.environ[key] for key in PORTABLE_ENV if key in os.environ}
        options = {"runtime_env": {"env_vars": pinned}} if pinned else {}
        actor = ray.remote(num_cpus=1, **options)(_Worker)
        self._actors = [actor.remote() for _ in range(workers)]

    def map(self, function: Job, jobs: Iterable, setup: Setup, chunksize: int = 1) -> Iterator:
        pool = self._pool_type(self._actors)
        in_flight = 0
        for chunk in _chunks(jobs, chunksize):
            pool.submit(lambda actor, part: actor.run.remote(setup, function, part), chunk)
            in_flight += 1
            if in_flight == WINDOW * len(self._actors):
                yield from pool.get_next()  # the oldest chunk: results stay in submission order
                in_flight -= 1
        while pool.has_next():
            yield from pool.get_next()

    def provenance(self) -> dict[str, Any]:
        return {"workers": self.workers, "executor": "ray"}

    def close(self) -> None:
        """Stop the actors, and the Ray instance if this executor started it."""
        for actor in getattr(self, "_actors", []):
            self._ray.kill(actor)
        self._actors = []
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()


def _auth_hint(address: str | None) -> str:
    """Why a cluster that answers may still refuse us: since Ray 2.59 ``ray start --head`` turns
    token authentication on when a token exists (``~/.ray/auth_token``, which any local
    ``ray.init`` writes), while a client given an explicit address never does (found 2026-12-06
    with Ray 2.60: "InvalidAuthToken", then only "Failed to connect")."""
    if not address or address == "auto" or os.environ.get("RAY_AUTH_MODE"):
        return ""
    return ("; if the cluster uses Ray's token authentication (`ray start --head` turns it on where "
            "~/.ray/auth_token exists), set RAY_AUTH_MODE=token here, with the head's token in "
            "~/.ray/auth_token or RAY_AUTH_TOKEN, or pass --address auto on the head node")


def _check_reachable(address: str) -> None:
    """Fail in seconds, with one line, where ``ray.init`` would retry a dead address for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--address {address!r}: expected HOST:PORT (as `ray start --head` prints), "
                            "ray://HOST:PORT or auto")
    try:
        connection = socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS)
    except OSError as error:
        raise ExecutorError(f"no Ray cluster answers at {address} ({error.strerror or error}); start one "
                            "with `ray start --head` on that machine, or leave out --address") from None
    with connection:
        if os.environ.get("RAY_USE_TLS", "0").lower() not in ("1", "true") and not _speaks_http2(connection):
            raise ExecutorError(f"what answers at {address} is not a Ray head: it does not speak gRPC, as "
                                "Ray's GCS (or Ray Client) port does; give the address `ray start --head` "
                                "printed, or leave out --address")


# A client's HTTP/2 connection preface and an empty SETTINGS frame (RFC 9113, 3.4 and 6.5)
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _speaks_http2(connection: socket.socket) -> bool:
    """Whether the server answers an HTTP/2 preface with a SETTINGS frame, as every gRPC
    server does (an HTTP/1 server answers text, others nothing within CONNECT_SECONDS)."""
    try:
        connection.sendall(_HTTP2_HELLO)
        header = b""
        while len(header) < 9:
            chunk = connection.recv(9 - len(header))
            if not chunk:
                return False
            header += chunk
    except OSError:
        return False
    return header[3] == 4  # the frame type


Executor = LocalPool | RayCluster


def make_executor(name: str = "local", workers: int = 2, address: str | None = None) -> Executor:
    """The executor called ``name`` (one of ``EXECUTORS``) with ``workers`` workers."""
    if name not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {name!r}")
    if address and name != "ray":
        raise ValueError("--address names a Ray cluster: use it with --executor ray")
    return RayCluster(workers, address) if name == "ray" else LocalPool(workers)
