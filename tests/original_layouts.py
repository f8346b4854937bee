"""Files in the original ImagineBench release's layouts, written from rollouts of our simulators.

- CLEVR ("ball" files): HDF5 data files (10 state numbers + a fake 768-d encoding) with a
  side .npy of instructions and goal vectors, and pickled .npy dicts;
- HalfCheetah ("mujoco" files): pickled .npy dicts or HDF5 files whose observations are the
  original's 18 state numbers (``states[..., :18]`` of our 22, except that the reset row's
  first number is the absolute x, as the original stored it), actions (N, L, 6) in [-1, 1];
- the Parquet re-release: one row per trajectory of any of those files;
- CLEVR's one-push easy level as the original keeps it: o_0 and a_0 alone (L = 1);
- hand-made ``.npy`` files (any header, any pickle payload), and ``check_limited``, which
  imports folders in a process whose address space is limited (``RLIMIT_AS``).

Each writer stores T+1 states and a dummy last action (masks.sum() = T+1) without
``next_observations``, or T states and T next states with them, as the original does.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from imaginebench_data import get_domain
from imaginebench_data.pipeline.rollout import expert_episode

ENCODING_DIM = 768
CLEVR = get_domain("clevr")
HALFCHEETAH = get_domain("halfcheetah")
DIRECTIONS = ("behind", "left", "front", "right")  # the original's goal[5] order
ORIGINAL_WORDS = {"behind": "behind", "left": "to the left of", "front": "in front of",
                  "right": "to the right of"}
COLOURS = ("red", "blue", "green", "purple", "cyan")
ARRAY_KEYS = ("observations", "actions", "next_observations", "rewards", "terminals", "masks", "goals")


# --- any domain -----------------------------------------------------------------------------------
def original_arrays(trajectories, state_dim, *, action_shape=(), action_dtype=np.int64, encoding=True,
                    next_observations=False, seed=0):
    """Arrays in the original layout from ``(states (T+1, state_dim), actions (T, ...), rewards (T,))``
    triples, padded with NaN states and zero actions to two steps beyond the longest; one random
    encoding per trajectory appended to its observations when ``encoding``."""
    rng = np.random.default_rng(seed)
    width = state_dim + ENCODING_DIM * encoding
    lengths = [len(actions) + (0 if next_observations else 1) for _, actions, _ in trajectories]
    rows, steps = len(trajectories), max(lengths) + 2
    arrays = {"observations": np.full((rows, steps, width), np.nan, np.float32),
              "actions": np.zeros((rows, steps, *action_shape), action_dtype),
              "rewards": np.zeros((rows, steps, 1), np.float32),
              "masks": np.zeros((rows, steps, 1), np.float32)}
    if next_observations:
        arrays["next_observations"] = np.full((rows, steps, width), np.nan, np.float32)
        arrays["terminals"] = np.zeros((rows, steps), np.float32)
    for i, ((states, actions, rewards), length) in enumerate(zip(trajectories, lengths)):
        code = rng.uniform(-1, 1, (1, width - state_dim)).astype(np.float32)
        arrays["observations"][i, :length] = np.hstack([states[:length], code.repeat(length, 0)])
        if next_observations:
            arrays["next_observations"][i, :length] = np.hstack([states[1:], code.repeat(length, 0)])
            arrays["terminals"][i, length - 1] = 1
        arrays["actions"][i, :len(actions)] = actions
        arrays["rewards"][i, :len(actions), 0] = rewards
        arrays["masks"][i, :length] = 1
    return arrays


def write_h5(path, arrays, side=None):
    """An HDF5 data file (``None`` values are left out) and, if given, its side .npy."""
    with h5py.File(path, "w") as file:
        for key, value in arrays.items():
            if value is not None:
                file[key] = value
    if side is not None:
        np.save(path.with_suffix(".npy"), side)


def write_release(paths, originals):
    """The Parquet release: one row per trajectory, rows of all files mixed, split over ``paths``."""
    rows = []
    for name, content in originals.items():
        for index in range(len(content["observations"])):
            row = {"file_name": name, "row_index": index}
            for key in ARRAY_KEYS:
                array = np.asarray(content[key]) if key in content else None
                row[f"{key}_shape"] = None if array is None else str(array.shape)
                row[f"{key}_dtype"] = None if array is None else array.dtype.name
                row[f"{key}_data"] = None if array is None else np.ascontiguousarray(array[index]).astype(
                    array.dtype.newbyteorder("<")).tobytes()
            row["instructions_data"] = content["instructions"][index] if "instructions" in content else None
            row["task_str_data"] = [content["task_str"][index]] if "task_str" in content else None
            rows.append(row)
    rows = rows[::-1]  # not in file or row order
    for part, path in enumerate(paths):
        chunk = rows[part::len(paths)]
        pq.write_table(pa.table({column: [row[column] for row in chunk] for column in chunk[0]}), path)


# --- CLEVR ----------------------------------------------------------------------------------------
def rollouts(level, count):
    sim = CLEVR.simulator()
    return [expert_episode(CLEVR, level, index, 7, sim) for index in range(count)]


def goal_code(task):
    """The original's 6-number relation goal: 1 at the source ball, 2 at the reference, then the direction."""
    code = np.zeros(6)
    code[task.goal["src"]], code[task.goal["dst"]] = 1, 2
    code[5] = DIRECTIONS.index(task.goal["relation"])
    return code


def original_text(task):
    goal = task.goal
    return (f"Let\u2019s see: can you push the {COLOURS[goal['src']]} ball "
            f"{ORIGINAL_WORDS[goal['relation']]} the {COLOURS[goal['dst']]} ball?")


def padded(episodes, encoding=True, next_observations=False):
    """CLEVR episodes' arrays in the original layout."""
    return original_arrays([(e.states, e.actions, e.rewards) for e in episodes], CLEVR.original.state_dim,
                           encoding=encoding, next_observations=next_observations)


def write_ball_h5(folder, name, episodes, **changes):
    """An HDF5 data file and its side .npy (instructions + goals); ``changes`` replace arrays (None: drop)."""
    arrays = {**padded(episodes), **changes}
    side = {"instructions": [[original_text(CLEVR.task(e.level, e.task_id)), "A second wording."]
                             for e in episodes],
            "goals": np.stack([goal_code(CLEVR.task(e.level, e.task_id)) for e in episodes])}
    write_h5(folder / name, arrays, side)
    return arrays, side


def easy_goal_code(task):
    """The original's easy goal: 1 at the pushed ball, then the direction."""
    code = np.zeros(6)
    code[task.goal["ball"]], code[5] = 1, DIRECTIONS.index(task.goal["relation"])
    return code


def write_easy_h5(folder, episodes, name="ball_imaginary_easy.h5", steps=3):
    """CLEVR's one-push level as the original keeps it: per trajectory o_0 (with an encoding) and a_0,
    masks.sum() = 1, no next_observations; a side .npy of instructions and goal vectors."""
    rows, width = len(episodes), CLEVR.original.state_dim + ENCODING_DIM
    arrays = {"observations": np.zeros((rows, steps, width), np.float32),
              "actions": np.zeros((rows, steps), np.int64), "rewards": np.zeros((rows, steps, 1), np.float32),
              "masks": np.zeros((rows, steps, 1), np.float32)}
    rng = np.random.default_rng(5)
    for i, episode in enumerate(episodes):
        arrays["observations"][i, 0] = np.concatenate([episode.states[0], rng.uniform(-1, 1, ENCODING_DIM)])
        arrays["actions"][i, 0], arrays["rewards"][i, 0, 0], arrays["masks"][i, 0] = (
            episode.actions[0], episode.rewards[0], 1)
    tasks = [CLEVR.task(e.level, e.task_id) for e in episodes]
    side = {"instructions": [[task.phrasings[0]] for task in tasks],
            "goals": np.stack([easy_goal_code(task) for task in tasks])}
    write_h5(folder / name, arrays, side)
    return arrays, side


def pickled_rephrase(episodes, extra_instruction=None):
    """An imaginary file with next_observations and our own rephrase phrasings (no goals); a NaN state.
    With ``extra_instruction``, two more rows: a copy of row 0 with that text, and an empty row."""
    arrays = padded(episodes, encoding=False, next_observations=True)
    arrays["observations"][0, 1, 3] = np.nan  # imaginary data may hold non-finite states
    instructions = [[e.instruction] for e in episodes]
    if extra_instruction:
        arrays = {k: np.concatenate([v, v[:1], v[:1]]) for k, v in arrays.items()}
        arrays["masks"][-1] = 0
        instructions += [[extra_instruction], instructions[0]]
    return {**arrays, "instructions": instructions}


def babyai_file(width=17):
    """A small pickled BabyAI-like dict (random numbers: for reading, not for importing)."""
    rng = np.random.default_rng(3)
    observations = rng.uniform(0, 8, (3, 5, width)).astype(np.float32)
    masks = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], np.float32)[:, :, None]
    return {"observations": observations, "next_observations": observations + 1,
            "actions": rng.integers(0, 7, (3, 5)), "rewards": rng.uniform(0, 1, (3, 5, 1)).astype(np.float32),
            "terminals": masks[:, :, 0], "masks": masks, "task_str": ["goto", "open", "pickup"],
            "instructions": [["go to the ball", "reach the ball"], ["open the door"], ["pick up the key"]]}


# --- HalfCheetah ----------------------------------------------------------------------------------
@dataclass
class CheetahRollout:
    """One live HalfCheetah rollout: our simulator's 22-number states, and the original's 18."""

    task_id: str
    level: str
    states: np.ndarray      # (T+1, 22) as the simulator returned them
    original: np.ndarray    # (T+1, 18): states[:, :18], the reset row's first number the absolute x
    actions: np.ndarray     # (T, 6) float32 in [-1, 1]
    rewards: np.ndarray     # (T,) the task's reward
    success: bool           # the task's predicate on the last live transition


def cheetah_rollouts(level, plan, seed=11):
    """One rollout per ``(task_id, max_steps)`` of ``plan``: the expert on the live simulator until
    the task's predicate holds or ``max_steps`` steps are taken."""
    sim, rng = HALFCHEETAH.simulator(), np.random.default_rng(seed)
    found = []
    for task_id, max_steps in plan:
        task = HALFCHEETAH.task(level, task_id)
        states = [sim.reset(task, rng)]
        absolute_x = float(sim.get_sim_state()[0])  # qpos[0] at the reset
        expert, actions, success = HALFCHEETAH.expert(task, rng, sim), [], False
        while not success and len(actions) < max_steps:
            actions.append(np.asarray(expert.act(states[-1]), np.float32))
            states.append(sim.step(actions[-1]))
            success = task.succeeded(states[-2], actions[-1], states[-1])
        states, actions = np.asarray(states), np.asarray(actions)
        original = states[:, :HALFCHEETAH.original.state_dim].copy()
        original[0, 0] = absolute_x
        rewards = np.asarray(task.reward(states[:-1], actions, states[1:]), np.float32)
        found.append(CheetahRollout(task_id, level, states, original, actions, rewards, bool(success)))
    return found


def cheetah_instructions(rollouts):
    """Per trajectory: two of our phrasings of its task (the original's texts are lists)."""
    return [list(HALFCHEETAH.task(r.level, r.task_id).phrasings[i:i + 2]) for i, r in enumerate(rollouts)]


def cheetah_arrays(rollouts, encoding=False, next_observations=False):
    return original_arrays([(r.original, r.actions, r.rewards) for r in rollouts],
                           HALFCHEETAH.original.state_dim, action_shape=(6,), action_dtype=np.float32,
                           encoding=encoding, next_observations=next_observations)


def cheetah_file(rollouts, next_observations=False):
    """A pickled mujoco dict as the original has it: 18 state numbers, no encoding."""
    return {**cheetah_arrays(rollouts, next_observations=next_observations),
            "instructions": cheetah_instructions(rollouts)}


def write_cheetah(path, rollouts, next_observations=False):
    """``path`` in the original layout its suffix names: a pickled .npy dict, or an HDF5 file
    (observations with the 768-d encoding) with a side .npy of instructions. Returns the arrays."""
    if path.suffix == ".npy":
        content = cheetah_file(rollouts, next_observations)
        np.save(path, content)
        return content
    arrays = cheetah_arrays(rollouts, encoding=True, next_observations=next_observations)
    write_h5(path, arrays, {"instructions": cheetah_instructions(rollouts)})
    return arrays


# --- hand-made files and a memory-limited import ------------------------------------------------
OBJECT_HEADER = {"descr": "|O", "fortran_order": False, "shape": ()}


def npy_bytes(payload: bytes, header: dict | bytes = OBJECT_HEADER) -> bytes:
    """A .npy file: ``header`` (a dict, or the raw header text) then ``payload`` (a pickle, for
    object arrays). A raw header is padded as numpy pads it."""
    out = io.BytesIO()
    if isinstance(header, dict):
        np.lib.format.write_array_header_1_0(out, header)
    else:
        text = header + b" " * (-(len(header) + 11) % 64) + b"\n"
        out.write(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text)
    return out.getvalue() + payload


def pickled_call(global_name: str, *args: bytes) -> bytes:
    """Protocol-2 opcodes calling ``module.name`` on the already pickled ``args`` (a tuple of them)."""
    module, name = global_name.rsplit(".", 1)
    tuple_op = {0: b")", 1: b"\x85", 2: b"\x86", 3: b"\x87"}
    return f"c{module}\n{name}\n".encode() + b"".join(args) + tuple_op[len(args)] + b"R"


def pickled_dict(items: dict[str, bytes]) -> bytes:
    """A protocol-2 pickle of a dict whose values are given as pickled opcodes."""
    body = b"".join(b"X" + len(key).to_bytes(4, "little") + key.encode() + value
                    for key, value in items.items())
    return b"\x80\x02}(" + body + b"u."


def shared_nest(levels=3, width=1024):
    """Protocol-2 opcodes of nested lists, ``width`` references to the level below at each of ``levels``
    levels, around [1.0]: ``width ** levels`` floats to numpy in ``3 * width * levels`` bytes."""
    level = b"(" + b"h\x00" * width + b"lq\x000"  # memo 0 = [memo 0] * width
    return b"]G" + struct.pack(">d", 1.0) + b"aq\x000" + level * levels + b"h\x00"


MEMORY_LIMIT = 3 << 30  # RLIMIT_AS of the process that reads the files: the pytest process stays free
READ_LIMIT = "256MiB"  # IMAGINEBENCH_IMPORT_MAX_BYTES there: the importer's own limit, well inside it
_WORKER = """
    import json, resource, sys, traceback
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
    from typer.testing import CliRunner
    from imaginebench_data.cli import app
    from imaginebench_data.imports import OriginalFileError, import_dir
    for folder, cli in json.loads(open(sys.argv[2]).read()):
        record = {"folder": folder}
        try:
            results = import_dir(folder, check_only=True, progress=False)
            record.update(outcome="imported", episodes=[r.episodes for r in results])
        except OriginalFileError as error:
            record.update(outcome="refused", message=str(error))
        except BaseException as error:  # a failure of the test: any other error, a MemoryError
            record.update(outcome="failed", error=type(error).__name__,
                          message=traceback.format_exc()[-3000:])
        if cli:
            result = CliRunner().invoke(app, ["import", folder, "--check"])
            uncaught = result.exception is not None and not isinstance(result.exception, SystemExit)
            record["cli"] = {"exit_code": result.exit_code, "output": result.output,
                             "uncaught": type(result.exception).__name__ if uncaught else None}
        # VmHWM, this process's own peak: ru_maxrss would keep the high-water mark of the pytest
        # process it was forked from (Linux carries it across exec), whatever this one used.
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        record["maxrss_kb"] = int(status["VmHWM"].split()[0])
        print(json.dumps(record), flush=True)
"""


def check_limited(folders, scratch: Path, cli=(), memory_limit=MEMORY_LIMIT, read_limit=READ_LIMIT):
    """Import (check only) each folder of ``folders`` in one process limited to ``memory_limit`` bytes of
    address space, the CLI's ``import --check`` too for those in ``cli``. Returns one record per folder:
    ``outcome`` "imported" / "refused" (an OriginalFileError: ``message``) / "failed" (anything else),
    ``cli`` (exit code, output, an uncaught exception), the process's peak RSS so far; a folder whose
    record is missing ended the process (its stderr is in the assertion)."""
    cases = scratch / "cases.json"
    cases.write_text(json.dumps([[str(folder), folder in cli] for folder in folders]))
    env = {**os.environ, "IMAGINEBENCH_IMPORT_MAX_BYTES": read_limit, "MALLOC_ARENA_MAX": "2",
           "MINARI_DATASETS_PATH": str(scratch / "minari"), "IMAGINEBENCH_CACHE": str(scratch / "cache"),
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_WORKER), str(memory_limit), str(cases)],
                         capture_output=True, text=True, env=env, cwd=scratch)
    lines = [line for line in run.stdout.splitlines() if line.startswith('{"folder"')]
    records = {Path(r["folder"]): r for r in map(json.loads, lines)}
    missing = [folder for folder in folders if Path(folder) not in records]
    assert not missing, f"the reading process ended ({run.returncode}) at {missing[0]}: {run.stderr[-3000:]}"
    return [records[Path(folder)] for folder in folders]
