"""An error in the work on one episode (the expert, the simulator, the checkers) is a fault of
the code, not of the user's input: the command line names the episode in one line (exit 1),
writes nothing, and --debug shows the traceback, the worker's included."""

import re

import minari
import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.domains import get_domain
from imaginebench_data.pipeline import generators
from imaginebench_data.pipeline.executors import EpisodeError, LocalPool
from imaginebench_data.pipeline.rollout import expert_episode

HARD = "imaginebench/clevr-hard-real-v0"


def _expert_failing_at(index_that_fails: int):
    real = generators.expert_episode

    def expert(domain, level, index, seed, sim):
        if index == index_that_fails:
            raise KeyError("block_7")  # a programming error, as a KeyError in an expert would be
        return real(domain, level, index, seed, sim)

    return expert


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_fault_in_the_experts_episode_is_one_line_naming_it_and_writes_nothing(minari_root, tmp_path,
                                                                                  monkeypatch, workers):
    monkeypatch.setattr(generators, "expert_episode", _expert_failing_at(3))  # forked workers inherit it
    command = ["build", HARD, "--episodes", "6", "--workers", workers, "--cards-dir", str(tmp_path / "cards")]
    result = CliRunner().invoke(app, command)
    # the progress bars aside ("3/6 [00:02<00:02,  1.25ep/s]", or "1.17s/ep]" on a busy machine)
    bar = re.compile(r"\d+/\d+ \[")
    lines = [line for line in result.output.splitlines() if line.strip() and not bar.search(line)]
    assert result.exit_code == 1 and len(lines) == 1 and "Traceback" not in result.output, result.output
    assert lines[0].startswith(f"error: {HARD}, the expert's episode 3 of clevr's hard level (recipe seed ")
    assert "failed: KeyError: 'block_7'" in lines[0] and "not of your input" in lines[0]
    assert HARD not in minari.list_local_datasets() and not list(tmp_path.glob("cards/*"))

    debug = CliRunner().invoke(app, ["--debug", *command])
    assert isinstance(debug.exception, EpisodeError) and "episode 3" in debug.exception.where
    causes, cause = [], debug.exception.__cause__
    while cause is not None:  # the dataset's error <- the job's <- the KeyError (a worker's: its text)
        causes.append(cause)
        cause = cause.__cause__
    assert "block_7" in "".join(map(str, causes)) and "KeyError" in "".join(map(str, causes))


def test_a_fault_in_a_checker_names_the_episodes_task_and_seed(monkeypatch):
    domain = get_domain("clevr")
    episode = expert_episode(domain, "hard", 0, 0, domain.simulator())

    def broken(*args):
        raise IndexError("index 9 is out of bounds")

    monkeypatch.setattr(generators, "annotate", broken)
    with pytest.raises(EpisodeError) as raised:
        list(generators.checked(LocalPool(2), "clevr", iter([episode])))
    where = f"checking the real episode of task {episode.task_id!r} with seed {episode.seed}"
    assert raised.value.where == where
    assert raised.value.fault == "IndexError: index 9 is out of bounds"


def test_an_episode_error_crosses_processes_whole():
    import pickle

    error = pickle.loads(pickle.dumps(EpisodeError("episode 2", "KeyError: 'x'")))
    assert (error.where, error.fault) == ("episode 2", "KeyError: 'x'")
    assert str(error) == "episode 2: KeyError: 'x'"


def test_a_ctrl_c_inside_an_episode_is_not_turned_into_an_error(monkeypatch):
    domain = get_domain("clevr")
    episode = expert_episode(domain, "hard", 0, 0, domain.simulator())

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(generators, "annotate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        list(generators.checked(LocalPool(1), "clevr", iter([episode])))
