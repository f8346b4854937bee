"""How a command stops: Ctrl-C (which a terminal sends to the whole process group) and SIGTERM
(``kill``, a batch scheduler's time limit: the main process alone) each leave nothing
half-written, end every worker, say in one line what was kept and exit 128 + the signal."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app

HARD = "imaginebench/clevr-hard-real-v0"
STOPS = {"ctrl-c": (os.killpg, signal.SIGINT), "sigterm": (os.kill, signal.SIGTERM)}


@pytest.mark.parametrize("stop", STOPS)
def test_a_stopped_build_ends_its_workers_removes_staging_and_prints_one_line(minari_root, tmp_path, stop):
    command = [str(Path(sys.executable).with_name("imaginebench")), "build",
               "imaginebench/clevr-train-real-v0", "--episodes", "2000", "--workers", "2",
               "--cards-dir", str(tmp_path / "cards")]
    # PYTHONFAULTHANDLER: should the build hang, SIGABRT makes it print where each thread is
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env=env)
    deadline = time.monotonic() + 120
    while not list(minari_root.glob(".imaginebench-staging-*")):  # the build is under way
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    send, signum = STOPS[stop]
    send(process.pid, signum)
    try:
        out, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        group = _group(process.pid)
        os.kill(process.pid, signal.SIGABRT)
        time.sleep(2)
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"the build did not stop within 120 s of {stop}; its process group:\n{group}\n"
                    f"its stderr:\n{err[-6000:]}")
    assert process.returncode == 128 + signum, out + err
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err
    assert sum("interrupted" in line for line in err.splitlines()) == 1  # one line, no worker tracebacks
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # no worker of the pool outlives the build
        os.killpg(process.pid, 0)
    assert not list(minari_root.glob(".imaginebench-staging-*"))  # staging removed
    assert not (minari_root / "imaginebench" / "clevr-train-real-v0").exists()


def test_a_ctrl_c_dropped_on_the_way_still_stops_the_build_at_the_next_episode(minari_root, tmp_path):
    """A KeyboardInterrupt raised inside a destructor is printed and dropped by Python; the
    request it carried is kept and the writer raises it again between episodes."""
    from imaginebench_data.core import interrupt
    from imaginebench_data.pipeline.build import build

    interrupt._requested.set()  # as the handler leaves it when its exception was swallowed
    try:
        with pytest.raises(KeyboardInterrupt):
            build(HARD, episodes=3, workers=1, cards_dir=tmp_path / "cards", progress=False)
    finally:
        interrupt.clear()
    assert not list(minari_root.glob(".imaginebench-staging-*"))
    assert not (minari_root / HARD).exists()
    assert build(HARD, episodes=2, workers=1, cards_dir=tmp_path / "cards", progress=False).card.episodes == 2


def test_an_interrupted_evaluate_says_where_its_finished_trainings_are(train_set, tmp_path, monkeypatch):
    """Ctrl-C (injected at the second training) is one line naming the journal, which holds the
    first training's row; the same command then trains the second only."""
    import pandas as pd

    from imaginebench_data.baselines import compare

    out, run, calls = tmp_path / "results", compare.train_and_evaluate, []

    def ctrl_c_at_the_second(*args, **kwargs):
        calls.append(args[3])  # the seed
        if len(calls) == 2:
            raise KeyboardInterrupt
        return run(*args, **kwargs)

    monkeypatch.setattr(compare, "train_and_evaluate", ctrl_c_at_the_second)
    args = ["evaluate", "--domain", "clevr", "--level", "train", "--seeds", "2", "--steps", "20",
            "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    journal = out / "clevr-bc.journal.csv"
    assert result.exit_code == 130 and "Traceback" not in result.output, result.output
    assert f"interrupted: each training that finished is kept in {journal}; the same command goes on" in \
        result.output
    assert pd.read_csv(journal)["seed"].tolist() == [0]
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and calls == [0, 1, 1], again.output


def _busy_workers(pid: int, seconds: float) -> int:
    """How many spawned pool workers of ``pid`` have used ``seconds`` of CPU time (set up: torch
    imported, the datasets read; so training)."""
    listing = subprocess.run(["ps", "-o", "cputimes=,args=", "--ppid", str(pid)], capture_output=True,
                             text=True)
    rows = [line.split(maxsplit=1) for line in listing.stdout.splitlines()]
    return sum(int(used) >= seconds and "multiprocessing.spawn" in args for used, args in rows)


def _group(pgid: int) -> str:
    """``ps``'s lines for the live processes of a process group (zombies left out)."""
    listing = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pgid)], capture_output=True,
                             text=True)
    return "\n".join(line for line in listing.stdout.splitlines() if line.split()[1][0] != "Z")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="lists processes with Linux's ps")
@pytest.mark.parametrize("stop", STOPS)
def test_an_evaluate_on_two_workers_stops_at_once(train_set, minari_root, tmp_path, stop):
    """Stopped while its two workers train, with two more trainings submitted, ``evaluate
    --workers 2`` ends its workers, says in one line that no training had finished, and exits
    128 + the signal, within seconds: it waits for no training (before, Ctrl-C let each worker
    take up a queued training, and SIGTERM ended the main process without a word)."""
    out = tmp_path / "results"
    command = [str(Path(sys.executable).with_name("imaginebench")), "evaluate", "--domain", "clevr",
               "--level", "train", "--seeds", "4", "--steps", "1000000", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "COLUMNS": "250"})
    try:
        deadline = time.monotonic() + 120
        while _busy_workers(process.pid, seconds=8) < 2:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.1)
        send, signum = STOPS[stop]
        send(process.pid, signum)
        out_text, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 128 + signum, out_text + err
    assert "Traceback" not in out_text + err and "KeyboardInterrupt" not in out_text + err, err
    lines = [line for line in err.splitlines() if "interrupted" in line]
    assert lines == ["interrupted: no training of clevr had finished, so none is kept"], err
    assert not (out / "clevr-bc.journal.csv").exists()
    assert "leaked" not in err  # the pool was shut down, not left to the resource tracker
    time.sleep(0.5)
    assert not _group(process.pid)  # no worker outlives the command
