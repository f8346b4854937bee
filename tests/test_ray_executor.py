"""Builds on a Ray cluster (a local Ray of 2 CPUs) write the bytes the local process pool
writes, streaming, and a user who lacks Ray or names a dead cluster gets one line."""

import math
import socket
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.imagine import checkpoints as store
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.executors import WINDOW, ExecutorError, RayCluster, make_executor
from imaginebench_data.pipeline.recipe import load_recipes

ray = pytest.importorskip("ray")

TRAIN = "imaginebench/clevr-train-real-v0"
HARD = "imaginebench/clevr-hard-imaginary-v0"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# These two run before the module's Ray instance starts (an executor joins a running one).
def test_an_address_where_no_cluster_answers_is_one_line_in_seconds(minari_root):
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["build", TRAIN, "--episodes", "2", "--executor", "ray",
                                      "--address", f"127.0.0.1:{free_port()}"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no Ray cluster answers at 127.0.0.1:" in result.output and "ray start --head" in result.output
    assert time.perf_counter() - started < 30 and not ray.is_initialized()


@pytest.mark.parametrize("reply, ray_head", [
    (b"HTTP/1.0 400 Bad request\r\n\r\n", False),  # a web server
    (b"", False),  # accepts and closes
    (None, False),  # accepts and says nothing
    (bytes([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]), True),  # HTTP/2 SETTINGS, as gRPC sends
])
def test_an_address_that_answers_but_is_no_ray_head_is_one_line_in_seconds(monkeypatch, reply, ray_head):
    """Found 2026-12-06: a port that accepts TCP but is no Ray GCS (a web server, say) left the
    build in Ray's connection retries for minutes; the check now asks for gRPC's first frame."""
    import threading

    from imaginebench_data.pipeline import executors

    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1.0)
    server = socket.create_server(("127.0.0.1", 0))
    heard = []

    def serve():
        connection, _ = server.accept()
        with connection:
            heard.append(connection.recv(24))
            if reply is not None:
                connection.sendall(reply)
            time.sleep(1.5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    address = f"127.0.0.1:{server.getsockname()[1]}"
    started = time.perf_counter()
    try:
        if ray_head:
            executors._check_reachable(address)
        else:
            with pytest.raises(ExecutorError, match=rf"what answers at {address} is not a Ray head"):
                executors._check_reachable(address)
    finally:
        thread.join(5)
        server.close()
    assert heard == [b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"] and time.perf_counter() - started < 5


def test_without_ray_the_error_says_how_to_install_it(minari_root, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ExecutorError, match=r"pip install 'imaginebench-data\[ray\]'"):
        make_executor("ray")
    result = CliRunner().invoke(app, ["build", TRAIN, "--episodes", "2", "--executor", "ray"])
    assert result.exit_code == 2 and "needs Ray" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("mode", [None, "token"])
def test_a_cluster_that_answers_but_refuses_names_the_token(minari_root, monkeypatch, mode):
    """Found 2026-12-06 with Ray 2.60: `ray start --head` asks for a token where
    ~/.ray/auth_token exists, a client with an explicit address sends none, and all it said was
    "Failed to connect"; the line now says what to set."""
    from imaginebench_data.pipeline import executors

    def refuse(**kwargs):
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:6399\nmore")

    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.setattr(executors, "_check_reachable", lambda address: None)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    if mode:
        monkeypatch.setenv("RAY_AUTH_MODE", mode)
    with pytest.raises(ExecutorError) as raised:
        RayCluster(workers=2, address="127.0.0.1:6399")
    message = str(raised.value)
    assert message.startswith("could not connect to a Ray cluster at '127.0.0.1:6399': Failed to connect")
    assert ("set RAY_AUTH_MODE=token here" in message) == (mode is None) and "\n" not in message


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture
def cluster(local_ray):
    executor = RayCluster(workers=2)
    yield executor
    executor.close()


def test_results_come_in_job_order_with_bounded_work_in_flight(cluster):
    drawn = []

    def jobs():
        for job in range(40):
            drawn.append(job)
            yield float(job)

    seen = []
    for result in cluster.map(math.sqrt, jobs(), (time.sleep, (0,)), chunksize=3):
        seen.append(result)
        assert len(drawn) - len(seen) <= WINDOW * 2 * 3  # WINDOW chunks per actor, never the whole input
    assert seen == [math.sqrt(job) for job in range(40)]


def test_actors_get_the_numerics_chosen_here_on_a_ray_the_user_started(local_ray, monkeypatch):
    """Found 2026-12-07: the portable-numerics settings went only to a Ray this package started;
    on the user's own ``ray.init()`` (as ``local_ray`` is) the actors kept the raylet's."""
    import os

    from imaginebench_data.imagine.numerics import PORTABLE_ENV

    monkeypatch.setenv("MKL_CBWR", "AUTO")  # set after Ray started: an actor has it only if given it
    executor = RayCluster(workers=1)
    try:
        seen = list(executor.map(os.getenv, list(PORTABLE_ENV), (time.sleep, (0,))))
    finally:
        executor.close()
    assert seen == [os.environ.get(key) for key in PORTABLE_ENV] and seen[0] == "AUTO"


def test_a_fault_in_an_actors_episode_keeps_where_it_happened(cluster):
    from imaginebench_data.pipeline import generators
    from imaginebench_data.pipeline.executors import EpisodeError

    episode = generators.Episode(states=np.zeros((3, 2), np.float32), actions=np.zeros(2, np.int64),
                                 rewards=np.zeros(2, np.float32), terminations=np.zeros(2, bool),
                                 truncations=np.ones(2, bool), instruction="x", task_id="no-such-task",
                                 level="easy", phrasing_id=0, seed=11, source="imaginary")
    with pytest.raises(EpisodeError) as raised:  # Ray's error is also an EpisodeError, its fields forwarded
        list(cluster.map(generators._annotate_job, [episode], (generators._init_worker, ("clevr",))))
    assert raised.value.where == "checking the imaginary episode of task 'no-such-task' with seed 11"
    assert raised.value.fault.startswith("KeyError: ")


def test_more_workers_than_cluster_cpus_is_refused(local_ray):
    with pytest.raises(ExecutorError, match="the Ray cluster has 2 CPUs"):
        RayCluster(workers=3)


@pytest.fixture
def recipes(tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(store, "EVIDENCE_EPISODES", 8)
    return {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}


def test_ray_builds_equal_the_local_pool_real_and_imagined(minari_root, recipes, cluster, tmp_path):
    def both(dataset_id, episodes):
        options = dict(episodes=episodes, workers=2, recipes=recipes, progress=False, force=True)
        local = build(dataset_id, cards_dir=tmp_path / "local", **options)
        on_ray = build(dataset_id, cards_dir=tmp_path / "ray", executor=cluster, **options)
        assert on_ray.card.checksum == local.card.checksum
        assert on_ray.card.provenance["executor"] == "ray" and "executor" not in local.card.provenance
        figures = ("steps", "goal_consistency", "transition_error_rate", "illegal_state_rate", "per_task")
        assert {f: getattr(on_ray.card, f) for f in figures} == {f: getattr(local.card, f) for f in figures}
        return local, on_ray

    both(TRAIN, 20)
    local, on_ray = both(HARD, 6)  # grounded on TRAIN (one epoch), checked on Ray
    assert on_ray.card.provenance["checkpoint_hash"] == local.card.provenance["checkpoint_hash"]
