"""Importing the original ImagineBench files: HDF5 + side .npy, pickled .npy, and the Parquet release.

The files are written here in the original layouts from CLEVR rollouts of our own simulator
(with a fake 768-d encoding appended), imported the way a user would, and read back.
"""

import json
import os
import pickle

import h5py
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fresh import run_fresh
from typer.testing import CliRunner

from imaginebench_data import get_domain
from imaginebench_data.build.rollout import expert_episode
from imaginebench_data.cli import app
from imaginebench_data.datasets.store import open_dataset, plain_value
from imaginebench_data.datasets.writer import DatasetExistsError
from imaginebench_data.imports import SourceFileError, UnsafePickleError, import_dir, read_sources
from imaginebench_data.imports.resolve import TaskResolver

CLEVR = get_domain("clevr")
DIRECTIONS = ("behind", "left", "front", "right")  # the original's goal[5] order
ORIGINAL_WORDS = {"behind": "behind", "left": "to the left of", "front": "in front of",
                  "right": "to the right of"}
COLOURS = ("red", "blue", "green", "purple", "cyan")
ARRAY_KEYS = ("observations", "actions", "next_observations", "rewards", "terminals", "masks", "goals")
TRAIN_ID = "imaginebench-original/clevr-train-real-v0"
REPHRASE_ID = "imaginebench-original/clevr-rephrase-imaginary-v0"


# --- the original layouts -------------------------------------------------------------------
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
    """Arrays in the original layout. Without next_observations a trajectory stores its T+1 states
    and a dummy last action (masks.sum() = T+1); with them it stores T states and T next states."""
    rng = np.random.default_rng(0)
    width = 10 + 768 * encoding
    lengths = [len(e) + (0 if next_observations else 1) for e in episodes]
    rows, steps = len(episodes), max(lengths) + 2
    arrays = {"observations": np.full((rows, steps, width), np.nan, np.float32),
              "actions": np.zeros((rows, steps), np.int64), "rewards": np.zeros((rows, steps, 1), np.float32),
              "masks": np.zeros((rows, steps, 1), np.float32)}
    if next_observations:
        arrays["next_observations"] = np.full((rows, steps, width), np.nan, np.float32)
        arrays["terminals"] = np.zeros((rows, steps), np.float32)
    for i, (episode, length) in enumerate(zip(episodes, lengths)):
        code = rng.uniform(-1, 1, (1, width - 10)).astype(np.float32)  # one encoding per trajectory
        arrays["observations"][i, :length] = np.hstack([episode.states[:length], code.repeat(length, 0)])
        if next_observations:
            arrays["next_observations"][i, :length] = np.hstack([episode.states[1:], code.repeat(length, 0)])
            arrays["terminals"][i, length - 1] = 1
        arrays["actions"][i, :len(episode)] = episode.actions
        arrays["rewards"][i, :len(episode), 0] = episode.rewards
        arrays["masks"][i, :length] = 1
    return arrays


def write_ball_h5(folder, name, episodes, **changes):
    """An HDF5 data file and its side .npy (instructions + goals); ``changes`` replace arrays (None: drop)."""
    arrays = {**padded(episodes), **changes}
    with h5py.File(folder / name, "w") as file:
        for key, value in arrays.items():
            if value is not None:
                file[key] = value
    side = {"instructions": [[original_text(CLEVR.task(e.level, e.task_id)), "A second wording."]
                             for e in episodes],
            "goals": np.stack([goal_code(CLEVR.task(e.level, e.task_id)) for e in episodes])}
    np.save(folder / (name.rsplit(".", 1)[0] + ".npy"), side)
    return arrays, side


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


def babyai_file(width=17):
    rng = np.random.default_rng(3)
    observations = rng.uniform(0, 8, (3, 5, width)).astype(np.float32)
    masks = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], np.float32)[:, :, None]
    return {"observations": observations, "next_observations": observations + 1,
            "actions": rng.integers(0, 7, (3, 5)), "rewards": rng.uniform(0, 1, (3, 5, 1)).astype(np.float32),
            "terminals": masks[:, :, 0], "masks": masks, "task_str": ["goto", "open", "pickup"],
            "instructions": [["go to the ball", "reach the ball"], ["open the door"], ["pick up the key"]]}


def mujoco_file():
    """A pickled file of a domain treated as not built (see ``without_halfcheetah``)."""
    return babyai_file(width=18)


@pytest.fixture(autouse=True)
def without_halfcheetah(monkeypatch):
    """The importer as it behaves for a domain whose folder is absent: every domain is built
    now, so HalfCheetah is hidden from it to exercise the check-and-report path."""
    import imaginebench_data.imports.importer as importer

    monkeypatch.setattr(importer, "DOMAINS", tuple(d for d in importer.DOMAINS if d != "halfcheetah"))


@pytest.fixture(scope="module")
def train_episodes():
    return rollouts("train", 4)


@pytest.fixture(scope="module")
def rephrase_episodes():
    return rollouts("rephrase", 3)


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


def nothing_written(minari_root, cards):
    return not any(minari_root.rglob("metadata.json")) and not (cards.exists() and any(cards.iterdir()))


# --- tests ----------------------------------------------------------------------------------------
def test_hdf5_import_recovers_states_text_and_tasks_in_a_fresh_process(minari_root, tmp_path, train_episodes):
    src = tmp_path / "src"
    src.mkdir()
    pushes = [len(e) for e in train_episodes]
    cut = int(np.argmax(pushes))  # the longest rollout, cut after 2 of its pushes: truncated, not terminated
    masks = padded(train_episodes)["masks"]
    masks[cut, 3:] = 0
    arrays, side = write_ball_h5(src, "ball_real.hdf5", train_episodes, masks=masks)
    (src / "clevr_test_easy_level.npy").write_bytes(b"not a dataset")  # ignored, never read
    [result] = import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    lengths = arrays["masks"][:, :, 0].sum(axis=1).astype(int)
    card = result.card
    assert result.dataset_id == TRAIN_ID and result.status == "written" and result.episodes == 4
    assert pushes[cut] > 2 and list(lengths - 1) == [2 if i == cut else n for i, n in enumerate(pushes)]
    assert card["steps"] == sum(pushes) - pushes[cut] + 2
    assert card["transition_error_rate"] == 0 and card["illegal_state_rate"] == 0  # our simulator's data
    assert card["goal_consistency"] == 0.75
    assert card["provenance"]["rows_read"] == card["provenance"]["rows_kept"] == 4
    assert set(card["provenance"]["sha256"]) == {"ball_real.hdf5", "ball_real.npy"}
    assert card["provenance"]["stored_observation_width"] == 778
    assert (tmp_path / "cards" / "clevr-train-real-v0.json").is_file()
    code = f"""
        import json, minari
        ds = minari.load_dataset("{TRAIN_ID}")
        print(json.dumps([{{"states": ep.observations["state"].tolist(), "actions": ep.actions.tolist(),
                           "instruction": str(ep.observations["instruction"][0]),
                           "terminated": bool(ep.terminations[-1]), "truncated": bool(ep.truncations[-1])}}
                          for ep in ds.iterate_episodes()]))
        print(json.dumps([m["options"] for m in ds.storage.get_episode_metadata(range(ds.total_episodes))],
                         default=lambda v: v.item() if hasattr(v, "item") else str(v)))
    """
    episodes, metadata = (json.loads(line) for line in run_fresh(code, minari_root).splitlines())
    for i, stored in enumerate(episodes):
        states = np.asarray(stored["states"], np.float32)
        assert np.array_equal(states, arrays["observations"][i, :lengths[i], :10])  # encoding stripped
        assert np.array_equal(stored["actions"], arrays["actions"][i, :lengths[i] - 1])  # last action dropped
        assert stored["instruction"] == side["instructions"][i][0].replace("\u2019", "'")
        assert stored["terminated"] == (i != cut) != stored["truncated"]
    assert [m["task_id"] for m in metadata] == [e.task_id for e in train_episodes]
    assert [m["phrasing_id"] for m in metadata] == [-1] * 4  # the original's wording, not ours
    assert [m["source"] for m in metadata] == ["real"] * 4


def test_parquet_release_gives_the_same_datasets_as_the_original_files(minari_root, tmp_path, train_episodes):
    originals, release = tmp_path / "original", tmp_path / "release"
    originals.mkdir()
    release.mkdir()
    arrays, side = write_ball_h5(originals, "ball_real.hdf5", train_episodes)
    np.save(originals / "mujoco_easy.npy", mujoco_file())
    write_release([release / "train-00000.parquet", release / "train-00001.parquet"],
                  {"ball_real.hdf5": {**arrays, "goals": side["goals"], "instructions": side["instructions"]},
                   "mujoco_easy.npy": mujoco_file()})
    from_files = import_dir(originals, cards_dir=tmp_path / "cards-a", progress=False)
    from_release = import_dir(release, namespace="release-copy", cards_dir=tmp_path / "cards-b",
                              progress=False)
    assert [r.status for r in from_release] == [r.status for r in from_files]
    assert [r.format for r in from_release] == ["parquet", "parquet"]
    written = [(a.card, b.card) for a, b in zip(from_files, from_release) if a.card]
    assert len(written) == 1
    for key in ("checksum", "episodes", "steps", "goal_consistency", "per_task"):
        assert written[0][0][key] == written[0][1][key]
    metadata = [open_dataset(i)[0].storage.get_episode_metadata(range(4))
                for i in (TRAIN_ID, "release-copy/clevr-train-real-v0")]
    assert [m["options"]["task_id"] for m in metadata[0]] == [m["options"]["task_id"] for m in metadata[1]]
    npy, parquet = (next(s for s in read_sources(folder, progress=False) if s.name == "mujoco_easy.npy")
                    for folder in (originals, release))
    for key in ("observations", "next_observations", "actions", "rewards", "masks", "terminals"):
        assert np.array_equal(npy.arrays[key], parquet.arrays[key]), key
    assert npy.instructions == parquet.instructions
    assert npy.task_str == parquet.task_str == ["goto", "open", "pickup"]


def test_pickled_file_with_next_observations_keeps_every_step(minari_root, tmp_path, rephrase_episodes):
    src = tmp_path / "src"
    src.mkdir()
    content = pickled_rephrase(rephrase_episodes, extra_instruction="Do a little dance.")
    np.save(src / "ball_imaginary_rephrase.npy", content)
    unresolved = r"ball_imaginary_rephrase.npy: 1 of 5 trajectories match no clevr rephrase task"
    with pytest.raises(SourceFileError, match=unresolved) as err:
        import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    assert "Do a little dance." in str(err.value) and nothing_written(minari_root, tmp_path / "cards")
    [result] = import_dir(src, cards_dir=tmp_path / "cards", unmatched="skip", progress=False)
    card, (dataset, _) = result.card, open_dataset(REPHRASE_ID)
    lengths = content["masks"][:, :, 0].sum(axis=1).astype(int)
    assert card["provenance"]["rows_unresolved_dropped"] == card["provenance"]["rows_too_short"] == 1
    assert card["provenance"]["rows_read"] == 5 and card["episodes"] == 3
    assert card["steps"] == sum(lengths[:3]) == sum(len(e) for e in rephrase_episodes)
    assert card["illegal_by_kind"]["non_finite"] == pytest.approx(1 / sum(lengths[:3] + 1))
    for i, (episode, stored) in enumerate(zip(rephrase_episodes, dataset.iterate_episodes())):
        states = stored.observations["state"]
        assert np.array_equal(states[:-1], content["observations"][i, :lengths[i]], equal_nan=True)
        assert np.array_equal(states[-1], content["next_observations"][i, lengths[i] - 1])
        assert np.array_equal(stored.actions, episode.actions)
    options = [m["options"] for m in dataset.storage.get_episode_metadata(range(3))]
    assert [o["task_id"] for o in options] == [e.task_id for e in rephrase_episodes]
    assert [int(o["phrasing_id"]) for o in options] == [e.phrasing_id for e in rephrase_episodes]
    assert [plain_value(o["source"]) for o in options] == ["imaginary"] * 3


def test_domain_not_available_yet_is_checked_and_reported_not_written(minari_root, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    np.save(src / "mujoco_imaginary_easy.npy", mujoco_file())
    [result] = import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    assert result.dataset_id == "imaginebench-original/halfcheetah-easy-imaginary-v0"
    assert result.rows_read == 3
    assert result.status == "not written: domain 'halfcheetah' not available yet" and result.card is None
    assert nothing_written(minari_root, tmp_path / "cards")
    broken = {**mujoco_file(), "observations": np.zeros((3, 5, 17), np.float32)}
    np.save(src / "mujoco_imaginary_easy.npy", broken)
    with pytest.raises(SourceFileError, match=r"mujoco_imaginary_easy.npy: key 'observations' .* width 17"):
        import_dir(src, progress=False)


def _break_release(src, arrays, side):
    content = {**arrays, "goals": side["goals"], "instructions": side["instructions"]}
    write_release([src / "release.parquet"], {"ball_real.hdf5": content})
    table = pq.read_table(src / "release.parquet")
    data = table.column("observations_data").to_pylist()
    broken = table.column("row_index").to_pylist().index(1)
    data[broken] = data[broken][:-4]  # one float short
    pq.write_table(table.set_column(table.schema.get_field_index("observations_data"), "observations_data",
                                    pa.array(data, pa.binary())), src / "release.parquet")
    (src / "ball_real.hdf5").unlink()
    (src / "ball_real.npy").unlink()


def _nan_in_real(arrays):
    observations = arrays["observations"].copy()
    observations[1, 2, 4] = np.nan
    return {"observations": observations}


def _hole_in_mask(arrays):
    masks = arrays["masks"].copy()
    masks[1, 1] = 0
    return {"masks": masks}


# breakage -> (changes to the HDF5 file's arrays, or the release to break, and the expected error)
BREAKAGES = {
    "missing key": (lambda a: {"masks": None}, r"ball_real.hdf5: missing key\(s\) \['masks'\]"),
    "observation width": (lambda a: {"observations": a["observations"][:, :, :777]},
                          r"ball_real.hdf5: key 'observations' has observation width 777; expected 10 "),
    "NaN in real observations": (_nan_in_real,
                                 r"ball_real.hdf5: key 'observations' trajectory 1 step 2 is not finite"),
    "mask not a prefix": (_hole_in_mask, r"ball_real.hdf5: key 'masks' trajectory 1 is not a prefix of ones"),
    "action outside the space": (lambda a: {"actions": np.where(a["masks"][:, :, 0] > 0, 40, 0)},
                                 r"ball_real.hdf5: key 'actions' trajectory 0 step 0 is 40, not in Discrete"),
    "row bytes against shape": (_break_release, r"ball_real.hdf5: column 'observations_data' of row_index 1 "
                                                r"holds 34228 bytes; expected 34232 = \(11, 778\) x 4-byte"),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_a_broken_file_is_named_with_its_key_and_nothing_is_written(minari_root, tmp_path, breakage,
                                                                    train_episodes, rephrase_episodes):
    src, cards = tmp_path / "src", tmp_path / "cards"
    src.mkdir()
    np.save(src / "ball_imaginary_rephrase.npy", pickled_rephrase(rephrase_episodes))  # a good file
    change, message = BREAKAGES[breakage]
    if change is _break_release:
        _break_release(src, *write_ball_h5(src, "ball_real.hdf5", train_episodes[:2]))
    else:
        write_ball_h5(src, "ball_real.hdf5", train_episodes[:2], **change(padded(train_episodes[:2])))
    with pytest.raises(SourceFileError, match=message):
        import_dir(src, cards_dir=cards, progress=False)
    assert nothing_written(minari_root, cards)


class _System:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


class _Eval:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return eval, (f"__import__('pathlib').Path({self.path!r}).touch()",)


@pytest.mark.parametrize("payload, refused", [("system", "posix.system"), ("eval", "builtins.eval")])
def test_an_unsafe_pickle_is_refused_and_never_run(minari_root, tmp_path, payload, refused):
    src, marker = tmp_path / "src", tmp_path / "payload-ran"
    src.mkdir()
    evil = _System(f"touch {marker}") if payload == "system" else _Eval(str(marker))
    np.save(src / "babyai_real.npy", {**babyai_file(), "observations": evil})
    with pytest.raises(UnsafePickleError, match=rf"babyai_real.npy: refused to unpickle global '{refused}'"):
        import_dir(src, progress=False)
    assert not marker.exists()
    assert nothing_written(minari_root, tmp_path / "cards")


def test_pickles_written_by_numpy_1_and_old_protocols_load(tmp_path):
    content = babyai_file()
    for protocol in (0, 2, 4, 5):
        stream = pickle.dumps(np.asanyarray(content, dtype=object), protocol=protocol)
        if protocol < 4:  # numpy 1.x named its module numpy.core
            stream = stream.replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
        with open(tmp_path / "babyai_real.npy", "wb") as file:
            np.lib.format.write_array_header_1_0(file, {"descr": "|O", "fortran_order": False, "shape": ()})
            file.write(stream)
        [source] = read_sources(tmp_path, progress=False)
        assert np.array_equal(source.arrays["observations"], content["observations"]), protocol
        assert source.instructions == content["instructions"]


@pytest.mark.parametrize("level, goal, task_id", [
    ("train", [1, 2, 0, 0, 0, 1], "red-left-of-blue"),
    ("rephrase", [0, 0, 2, 0, 1, 3], "cyan-right-of-green"),
    ("easy", [0, 0, 1, 0, 0, 2], "push-green-front"),
    ("easy", [0, 0, 1, 0, 0, 4], None),  # "don't move": no such task of ours
    ("hard", [0, 0, 0, 0, 0, 2], "line-in-colour-order"),
    ("hard", [0, 0, 0, 0, 0, 3], "gather-around-green"),
    ("hard", [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 0, 1], "red-left-of-blue+green-behind-purple"),
    ("hard", [0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 1, 2, 0, 3], None),  # not one of our pairs
    ("train", [1, 1, 0, 0, 0, 1], None),  # two sources: not a relation
])
def test_clevr_goal_vectors_resolve_to_our_tasks(level, goal, task_id):
    resolution = TaskResolver(CLEVR, level).resolve(["words of the original"], np.asarray(goal, float))
    assert (resolution.task.id if resolution.task else None) == task_id


def test_cli_prints_what_it_imported_and_refuses_to_overwrite(minari_root, tmp_path, train_episodes):
    src = tmp_path / "src"
    src.mkdir()
    write_ball_h5(src, "ball_real.hdf5", train_episodes[:2])
    np.save(src / "mujoco_imaginary_hard.npy", {**babyai_file(), "observations": np.zeros((3, 5, 18)),
                                                 "next_observations": np.zeros((3, 5, 18))})
    runner, cards = CliRunner(), ["--cards-dir", str(tmp_path / "cards")]
    first = runner.invoke(app, ["import", str(src), *cards])
    assert first.exit_code == 0, first.output
    assert "clevr-train-real-v0" in first.output and "2 of 2" in first.output and "written" in first.output
    assert "halfcheetah-hard-imaginary-v0" in first.output and "not written" in first.output
    again = runner.invoke(app, ["import", str(src), "--only", "ball_real", *cards])
    assert again.exit_code == 1 and "--force" in again.output and "Nothing was written" in again.output
    forced = runner.invoke(app, ["import", str(src), "--only", "ball_real.hdf5", "--force", *cards])
    assert forced.exit_code == 0 and "halfcheetah" not in forced.output
    assert json.loads((tmp_path / "cards" / "clevr-train-real-v0.json").read_text())["episodes"] == 2
    with pytest.raises(DatasetExistsError):
        import_dir(src, only=["ball_real"], progress=False)
