"""A folder of files as a user of the original release has them, each trajectory's task known.

Written in the original layouts (``original_layouts``) with the original's kind of content
(``paraphrases``) and valid states and actions (short rollouts of our simulators):

- ``babyai_real.npy``: pickled dict, instructions the original's lower-case templates;
- ``release.parquet``: the Hugging Face rows of ``babyai_rephrase.npy``, 10-14 LLM paraphrases
  per trajectory plus ``task_str``;
- ``mujoco_real.npy`` (the original's sentences) and ``mujoco_imaginary_rephrase.npy``
  (paraphrase lists, no ``task_str``);
- ``ball_real.hdf5`` with its side ``.npy`` of instructions and goal vectors;
- ``metaworld_real.h5``: 91 state numbers + the 768-number encoding, no text at all, and
  ``metaworld_encode.npy`` (text -> 768 numbers) beside it;
- ``libero_real.npy`` (the original's sentences) and ``libero_imaginary_rephrase.npy``
  (paraphrase lists).

``NONSENSE`` rows (an instruction that names no task, an encoding in no dictionary) have no
true task: they must stay unresolved. ``write_release_folder`` returns file -> per-row truth.
"""

from __future__ import annotations

import numpy as np
from original_layouts import (
    ENCODING_DIM,
    cheetah_arrays,
    cheetah_rollouts,
    original_arrays,
    rollouts,
    write_ball_h5,
    write_h5,
    write_release,
)
from paraphrases import (
    BABYAI_PARAPHRASES,
    CHEETAH_ORIGINAL,
    CHEETAH_PARAPHRASES,
    LIBERO_ORIGINAL,
    LIBERO_PARAPHRASES,
    METAWORLD_ORIGINAL,
)

from imaginebench_data import get_domain
from imaginebench_data.domains.babyai import original as babyai_original

NONSENSE = "do a little dance in the corner"
BABYAI_TRAIN = (
    "goto-blue-ball",
    "open-green-door",
    "pickup-blue-box",
    "put-blue-ball-next-to-green-box",
    "goto-red-key",
    "pickup-yellow-key",
    "open-purple-door",
    "goto-grey-door",
)


def short_rollouts(domain_name, level, task_ids, steps=3, seed=0):
    """One rollout per task id: a reset, then ``steps`` random actions at a third of full scale."""
    domain = get_domain(domain_name)
    sim, rng = domain.simulator(), np.random.default_rng(seed)
    found = []
    for task_id in task_ids:
        task = domain.task(level, task_id)
        states = [sim.reset(task, rng)]
        actions = [
            domain.action_space.sample()
            if domain.discrete
            else (rng.uniform(-1, 1, domain.action_space.shape) / 3).astype(np.float32)
            for _ in range(steps)
        ]
        if domain.discrete:
            actions = [int(rng.integers(domain.action_space.n)) for _ in range(steps)]
        states += [sim.step(a) for a in actions]
        found.append((np.asarray(states), np.asarray(actions), np.zeros(steps, np.float32)))
    return found


def _babyai_words(task):
    goal = task.goal
    return {
        "c": babyai_original.COLOURS[goal["colour"]],
        "t": goal.get("object", "door"),
        **(
            {
                "c1": babyai_original.COLOURS[goal["colour"]],
                "t1": goal["object"],
                "c2": babyai_original.COLOURS[goal["other_colour"]],
                "t2": goal["other"],
            }
            if goal["kind"] == "putnext"
            else {}
        ),
    }


def _pickled(path, trajectories, state_dim, instructions, **more):
    arrays = original_arrays(
        trajectories,
        state_dim,
        encoding=False,
        action_shape=np.shape(trajectories[0][1])[1:],
        action_dtype=np.asarray(trajectories[0][1]).dtype,
    )
    np.save(path, {**arrays, "instructions": instructions, **more})
    return arrays


def babyai_files(folder):
    babyai = get_domain("babyai")
    real_ids = list(BABYAI_TRAIN) * 3
    tasks = [babyai.task("train", i) for i in real_ids]
    instructions = [
        [babyai_original.templates(t)[k % len(babyai_original.templates(t))]] for k, t in enumerate(tasks)
    ]
    _pickled(
        folder / "babyai_real.npy",
        short_rollouts("babyai", "train", real_ids + [real_ids[0]]),
        17,
        instructions + [[NONSENSE]],
    )
    truth = {"babyai_real.npy": real_ids + [None]}
    rephrase_ids = list(BABYAI_TRAIN) * 2
    trajectories = short_rollouts("babyai", "rephrase", rephrase_ids, seed=1)
    arrays = original_arrays(trajectories, 17, encoding=False, action_dtype=np.int64)
    rng = np.random.default_rng(2)
    lists, task_str = [], []
    for k, task_id in enumerate(rephrase_ids):
        task = babyai.task("rephrase", task_id)
        texts = [p.format(**_babyai_words(task)) for p in BABYAI_PARAPHRASES[task.goal["kind"]]]
        lists.append(list(rng.permutation(texts)[: 10 + k % 5]))
        task_str.append(babyai_original.templates(task)[0])
    write_release(
        [folder / "release.parquet"],
        {"babyai_rephrase.npy": {**arrays, "instructions": lists, "task_str": task_str}},
    )
    truth["babyai_rephrase.npy"] = rephrase_ids
    return truth


def cheetah_files(folder):
    plan = [(task_id, 4) for task_id in CHEETAH_ORIGINAL] * 2
    real = cheetah_rollouts("train", plan)
    np.save(
        folder / "mujoco_real.npy",
        {**cheetah_arrays(real), "instructions": [[CHEETAH_ORIGINAL[r.task_id]] for r in real]},
    )
    rephrase = cheetah_rollouts("rephrase", plan, seed=12)
    rng = np.random.default_rng(3)
    lists = [
        list(rng.permutation(CHEETAH_PARAPHRASES[r.task_id])[: 3 + k % 4]) for k, r in enumerate(rephrase)
    ]
    np.save(folder / "mujoco_imaginary_rephrase.npy", {**cheetah_arrays(rephrase), "instructions": lists})
    return {
        "mujoco_real.npy": [r.task_id for r in real],
        "mujoco_imaginary_rephrase.npy": [r.task_id for r in rephrase],
    }


def clevr_files(folder):
    episodes = rollouts("train", 6)
    write_ball_h5(folder, "ball_real.hdf5", episodes)
    return {"ball_real.hdf5": [e.task_id for e in episodes]}


def _encodings(texts, rng):
    """BERT-pooler-like vectors: values in [-1, 1], cosine similarity about 0.98 between texts."""
    base = rng.uniform(-0.9, 0.9, ENCODING_DIM)
    return {
        text: np.clip(base + rng.normal(0, 0.08, ENCODING_DIM), -1, 1).astype(np.float32) for text in texts
    }


def metaworld_files(folder):
    task_ids = [task_id for task_id in METAWORLD_ORIGINAL for _ in range(2)]
    rng = np.random.default_rng(4)
    table = _encodings([t for texts in METAWORLD_ORIGINAL.values() for t in texts], rng)
    np.save(folder / "metaworld_encode.npy", table)
    trajectories = short_rollouts("metaworld", "train", task_ids + ["reach"], steps=2, seed=5)
    arrays = original_arrays(trajectories, 91, action_shape=(4,), action_dtype=np.float32)
    stranger = np.clip(rng.uniform(-0.9, 0.9, ENCODING_DIM), -1, 1)  # an instruction no dictionary holds
    for row, task_id in enumerate(task_ids + [None]):
        code = stranger if task_id is None else table[METAWORLD_ORIGINAL[task_id][row % 3]]
        arrays["observations"][row, :, 91:] = code
    write_h5(folder / "metaworld_real.h5", arrays)
    return {"metaworld_real.h5": task_ids + [None]}


def libero_files(folder):
    libero = get_domain("libero")
    task_ids = [t.id for t in libero.tasks("train")] * 2
    texts = [
        LIBERO_ORIGINAL[libero.task("train", i).goal["kind"]].format(
            o=libero.task("train", i).goal["items"][0]
        )
        for i in task_ids
    ]
    trajectories = short_rollouts("libero", "train", task_ids, steps=2, seed=6)
    _pickled(folder / "libero_real.npy", trajectories, 44, [[t] for t in texts])
    lists = []
    for k, task_id in enumerate(task_ids):
        goal = libero.task("rephrase", task_id).goal
        lists.append([p.format(o=goal["items"][0]) for p in LIBERO_PARAPHRASES[goal["kind"]][2 + k % 2 :]])
    _pickled(folder / "libero_imaginary_rephrase.npy", trajectories, 44, lists)
    return {"libero_real.npy": task_ids, "libero_imaginary_rephrase.npy": task_ids}


def write_release_folder(folder):
    """Every file above into ``folder``; file name -> each row's true task id (None: none)."""
    truth = {}
    for write in (babyai_files, cheetah_files, clevr_files, metaworld_files, libero_files):
        truth.update(write(folder))
    return truth
