"""Importing the original ImagineBench files: HDF5 + side .npy, pickled .npy, and the Parquet release.

The files are written here in the original layouts (``original_layouts``) from rollouts of our own
simulators (CLEVR, and HalfCheetah in its original 18-number layout), imported the way a user
would, and read back.
"""

import json
import os
import pickle

import minari
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fresh import run_fresh
from original_layouts import (
    CLEVR,
    HALFCHEETAH,
    babyai_file,
    cheetah_file,
    cheetah_rollouts,
    padded,
    pickled_rephrase,
    rollouts,
    write_ball_h5,
    write_cheetah,
    write_release,
)
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.datasets.ids import DatasetId
from imaginebench_data.datasets.read import open_dataset, plain_value, stored_episodes
from imaginebench_data.datasets.writer import DatasetExistsError
from imaginebench_data.domains import domain_names, get_domain
from imaginebench_data.domains.halfcheetah.layout import DT, PEAK, TIME, TROUGH, X, from_original
from imaginebench_data.imports import OriginalFileError, UnsafePickleError, import_dir, read_originals
from imaginebench_data.imports.names import Target, target_of
from imaginebench_data.imports.resolve import TaskResolver

TRAIN_ID = "imaginebench-original/clevr-train-real-v0"
REPHRASE_ID = "imaginebench-original/clevr-rephrase-imaginary-v0"
CHEETAH_ID = "imaginebench-original/halfcheetah-train-real-v0"


@pytest.fixture(scope="module")
def train_episodes():
    return rollouts("train", 4)


@pytest.fixture(scope="module")
def rephrase_episodes():
    return rollouts("rephrase", 3)


@pytest.fixture(scope="module")
def cheetah_train():
    """Two jumps the expert completes (5 steps each) and a run cut after 10 steps (not reached)."""
    found = cheetah_rollouts("train", [("jump-forward", 12), ("jump-backward", 12), ("run-forward", 10)])
    assert [r.success for r in found] == [True, True, False]
    return found


def nothing_written(minari_root, cards):
    return not any(minari_root.rglob("metadata.json")) and not (cards.exists() and any(cards.iterdir()))


def file_states(arrays, row):
    """The (T+1, 18) original states trajectory ``row`` of a file stores, cut as the importer cuts them."""
    length = int(arrays["masks"][row].sum())
    observations = arrays["observations"][row, :length, :HALFCHEETAH.original.state_dim]
    if "next_observations" not in arrays:
        return observations
    final = arrays["next_observations"][row, length - 1:length, :HALFCHEETAH.original.state_dim]
    return np.concatenate([observations, final])


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
    (src / "nodomain_real.npy").write_bytes(b"no registered domain has this prefix")  # ignored too
    [result] = import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    lengths = arrays["masks"][:, :, 0].sum(axis=1).astype(int)
    card = result.card
    assert str(result.dataset_id) == TRAIN_ID and result.status == "written" and result.episodes == 4
    assert pushes[cut] > 2 and list(lengths - 1) == [2 if i == cut else n for i, n in enumerate(pushes)]
    assert card.steps == sum(pushes) - pushes[cut] + 2
    assert card.transition_error_rate == 0 and card.illegal_state_rate == 0  # our simulator's data
    assert card.goal_consistency == 0.75
    assert card.provenance["rows_read"] == card.provenance["rows_kept"] == 4
    assert set(card.provenance["sha256"]) == {"ball_real.hdf5", "ball_real.npy"}
    assert card.provenance["stored_observation_width"] == 778
    description = minari.load_dataset(TRAIN_ID).storage.metadata["description"]  # `minari show` prints it
    assert "Imported locally by `imaginebench import`" in description
    assert "imaginebench build" not in description
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
    cheetah = write_cheetah(originals / "mujoco_easy.npy", cheetah_rollouts(
        "easy", [("run-forward-fast", 8), ("run-backward-fast", 6)]), next_observations=True)
    write_release([release / "train-00000.parquet", release / "train-00001.parquet"],
                  {"ball_real.hdf5": {**arrays, "goals": side["goals"], "instructions": side["instructions"]},
                   "mujoco_easy.npy": cheetah})
    from_files = import_dir(originals, cards_dir=tmp_path / "cards-a", progress=False)
    from_release = import_dir(release, namespace="release-copy", cards_dir=tmp_path / "cards-b",
                              progress=False)
    assert [r.status for r in from_release] == [r.status for r in from_files] == ["written", "written"]
    assert [r.format for r in from_release] == ["parquet", "parquet"]
    for a, b in zip(from_files, from_release):
        assert a.dataset_id.name == b.dataset_id.name
        cards = [{k: v for k, v in r.card.to_json().items() if k not in ("id", "provenance")} for r in (a, b)]
        assert cards[0] == cards[1]
        stored = [list(stored_episodes(open_dataset(r.dataset_id)[0], get_domain(r.dataset_id.domain)))
                  for r in (a, b)]
        assert [e.task_id for e in stored[0]] == [e.task_id for e in stored[1]]
        assert all(np.array_equal(x.states, y.states, equal_nan=True) for x, y in zip(*stored))
    npy, parquet = (next(f for f in read_originals(folder, progress=False) if f.name == "mujoco_easy.npy")
                    for folder in (originals, release))
    for key in ("observations", "next_observations", "actions", "rewards", "masks", "terminals"):
        assert np.array_equal(npy.arrays[key], parquet.arrays[key], equal_nan=True), key
    assert npy.instructions == parquet.instructions


def test_pickled_file_with_next_observations_keeps_every_step(minari_root, tmp_path, rephrase_episodes):
    src = tmp_path / "src"
    src.mkdir()
    content = pickled_rephrase(rephrase_episodes, extra_instruction="Do a little dance.")
    np.save(src / "ball_imaginary_rephrase.npy", content)
    unresolved = r"ball_imaginary_rephrase.npy: 1 of 5 trajectories match no clevr rephrase task"
    with pytest.raises(OriginalFileError, match=unresolved) as err:
        import_dir(src, cards_dir=tmp_path / "cards", unmatched="error", progress=False)
    assert "Do a little dance." in str(err.value) and nothing_written(minari_root, tmp_path / "cards")
    [kept] = import_dir(src, cards_dir=tmp_path / "cards", progress=False)  # by default kept, unresolved
    assert kept.card.episodes == 4 and kept.card.unresolved == 1
    assert kept.card.resolution == kept.resolution == {"phrasing": 3, "unresolved": 1}
    assert kept.card.provenance["rows_unresolved_kept"] == 1 and "goal_consistency" in kept.card.notes
    assert kept.card.per_task["unresolved"]["goal_consistency"] is None
    resolved = [s for t, s in kept.card.per_task.items() if t != "unresolved"]  # goal consistency: over these
    assert kept.card.goal_consistency == pytest.approx(
        sum(s["goal_consistency"] * s["episodes"] for s in resolved) / sum(s["episodes"] for s in resolved))
    [result] = import_dir(src, cards_dir=tmp_path / "cards", unmatched="skip", force=True, progress=False)
    card, (dataset, _) = result.card, open_dataset(REPHRASE_ID)
    lengths = content["masks"][:, :, 0].sum(axis=1).astype(int)
    assert card.provenance["rows_unresolved_dropped"] == card.provenance["rows_too_short"] == 1
    assert card.provenance["rows_read"] == 5 and card.episodes == 3
    assert card.steps == sum(lengths[:3]) == sum(len(e) for e in rephrase_episodes)
    assert card.illegal_by_kind["non_finite"] == pytest.approx(1 / sum(lengths[:3] + 1))
    for i, (episode, stored) in enumerate(zip(rephrase_episodes, dataset.iterate_episodes())):
        states = stored.observations["state"]
        assert np.array_equal(states[:-1], content["observations"][i, :lengths[i]], equal_nan=True)
        assert np.array_equal(states[-1], content["next_observations"][i, lengths[i] - 1])
        assert np.array_equal(stored.actions, episode.actions)
    options = [m["options"] for m in dataset.storage.get_episode_metadata(range(3))]
    assert [o["task_id"] for o in options] == [e.task_id for e in rephrase_episodes]
    assert [int(o["phrasing_id"]) for o in options] == [e.phrasing_id for e in rephrase_episodes]
    assert [plain_value(o["source"]) for o in options] == ["imaginary"] * 3


@pytest.mark.parametrize("file_name, next_observations", [("mujoco_real.npy", False),
                                                        ("mujoco_real.h5", True)])
def test_halfcheetah_files_in_the_original_18_number_layout_become_our_22_number_states(
        minari_root, tmp_path, cheetah_train, file_name, next_observations):
    src = tmp_path / "src"
    src.mkdir()
    arrays = write_cheetah(src / file_name, cheetah_train, next_observations=next_observations)
    [result] = import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    card, (dataset, _) = result.card, open_dataset(CHEETAH_ID)
    assert str(result.dataset_id) == CHEETAH_ID and result.status == "written" and result.episodes == 3
    assert card.provenance["stored_observation_width"] == 18 + 768 * file_name.endswith(".h5")
    stored = list(stored_episodes(dataset, HALFCHEETAH))
    for row, (rollout, episode) in enumerate(zip(cheetah_train, stored)):
        original = file_states(arrays, row)
        assert np.array_equal(original, rollout.original) and original[0, 0] != 0  # the absolute x
        states = episode.states
        assert states.shape == (len(rollout.actions) + 1, 22)
        assert np.array_equal(states, from_original(original))  # exactly the domain's conversion
        assert states[0, 0] == 0 and np.array_equal(states[1:, :18], original[1:])
        assert np.array_equal(states[0, 1:18], original[0, 1:])
        x = np.cumsum(states[:, 0].astype(np.float64))
        assert np.array_equal(states[:, X], x.astype(np.float32))  # column 18: the summed dx
        assert np.array_equal(states[:, TIME], (DT * np.arange(len(states))).astype(np.float32))
        assert np.array_equal(states[:, PEAK], np.maximum.accumulate(np.maximum(x, 0)).astype(np.float32))
        assert np.array_equal(states[:, TROUGH], np.minimum.accumulate(np.minimum(x, 0)).astype(np.float32))
        assert np.abs(states - rollout.states).max() < 1e-5  # the simulator's own 22 numbers, rebuilt
        assert np.array_equal(episode.actions, rollout.actions)  # a dummy last action is dropped
        assert np.array_equal(episode.rewards, rollout.rewards)
        assert episode.infos["transition_error"].max() < 1e-3  # re-simulated from the rebuilt states
        assert bool(episode.terminations[-1]) == rollout.success != bool(episode.truncations[-1])
        assert episode.instruction == HALFCHEETAH.task("train", rollout.task_id).phrasings[row]
        assert (episode.task_id, episode.phrasing_id) == (rollout.task_id, row)
    assert card.transition_error_rate == 0 and card.illegal_state_rate == 0
    assert card.notes["transition_tolerance"] == HALFCHEETAH.transition_tolerance
    assert card.goal_consistency == pytest.approx(np.mean([r.success for r in cheetah_train]))


def test_halfcheetah_file_in_our_layout_is_refused_by_its_width(minari_root, tmp_path, cheetah_train):
    src = tmp_path / "src"
    src.mkdir()
    content = cheetah_file(cheetah_train)
    observations = content["observations"]
    content["observations"] = np.concatenate([observations, np.zeros((*observations.shape[:2], 4))], -1)
    np.save(src / "mujoco_real.npy", content)
    width = r"mujoco_real.npy: key 'observations' has observation width 22; expected 18 \(the original's"
    with pytest.raises(OriginalFileError, match=width):
        import_dir(src, cards_dir=tmp_path / "cards", progress=False)
    assert nothing_written(minari_root, tmp_path / "cards")


@pytest.mark.parametrize("name", domain_names())
def test_file_names_come_from_the_registry(name):
    domain = get_domain(name)
    prefix = domain.original.prefix
    real = target_of(f"{prefix}_real.h5")
    assert real == Target(name, "train", "real") and real.state_dim == domain.original.state_dim
    assert real.dataset_id("ns") == DatasetId.parse(f"ns/{name}-train-real-v0")
    assert target_of(f"{prefix}_imaginary_easy.npy") == Target(name, "easy", "imaginary")
    assert target_of(f"{prefix}_hard.parquet") == Target(name, "hard", "imaginary")
    assert target_of(f"{prefix}_imaginary_train.npy") is None and target_of(f"{prefix}_real.csv") is None
    assert target_of(f"not{prefix}_real.npy") is None


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
    "no trajectories": (lambda a: {key: value[:0] for key, value in a.items()},  # found 2026-12-06
                        r"ball_real.hdf5: key 'observations' has shape \(0, \d+, 10\); expected at "),
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
    with pytest.raises(OriginalFileError, match=message):
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
        [original] = read_originals(tmp_path, progress=False)
        assert np.array_equal(original.arrays["observations"], content["observations"]), protocol
        assert original.instructions == content["instructions"]


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
    resolver = TaskResolver(CLEVR, level, encoder=None)
    resolution = resolver.resolve(["words of the original"], np.asarray(goal, float))
    assert (resolution.task.id if resolution.task else None) == task_id


def test_cli_prints_what_it_imported_and_refuses_to_overwrite(minari_root, tmp_path, train_episodes):
    src = tmp_path / "src"
    src.mkdir()
    write_ball_h5(src, "ball_real.hdf5", train_episodes[:2])
    write_cheetah(src / "mujoco_imaginary_hard.npy", cheetah_rollouts(
        "hard", [("jump-in-place", 20), ("backward-then-forward", 6)]), next_observations=True)
    runner, cards = CliRunner(), ["--cards-dir", str(tmp_path / "cards")]
    first = runner.invoke(app, ["import", str(src), *cards])
    assert first.exit_code == 0, first.output
    assert "clevr-train-real-v0" in first.output and "2 of 2" in first.output and "written" in first.output
    assert "halfcheetah-hard-imaginary-v0" in first.output and "not written" not in first.output
    cheetah_card = json.loads((tmp_path / "cards" / "halfcheetah-hard-imaginary-v0.json").read_text())
    assert cheetah_card["episodes"] == 2 and cheetah_card["source"] == "imaginary"
    again = runner.invoke(app, ["import", str(src), "--only", "ball_real", *cards])
    assert again.exit_code == 2 and "--force" in again.output and "Nothing was written" in again.output
    forced = runner.invoke(app, ["import", str(src), "--only", "ball_real.hdf5", "--force", *cards])
    assert forced.exit_code == 0 and "halfcheetah" not in forced.output
    assert json.loads((tmp_path / "cards" / "clevr-train-real-v0.json").read_text())["episodes"] == 2
    with pytest.raises(DatasetExistsError):
        import_dir(src, only=["ball_real"], progress=False)


def test_real_trajectories_whose_every_state_is_illegal_are_flagged(minari_root, tmp_path, train_episodes):
    """Every ball at the table's centre: each state breaks the no-overlap rule, as a file read in
    the wrong layout would. The import still writes it (the card reports the rate), and says so."""
    import dataclasses

    src, cards = tmp_path / "src", ["--cards-dir", str(tmp_path / "cards")]
    src.mkdir()
    write_ball_h5(src, "ball_real.hdf5", [dataclasses.replace(e, states=np.zeros_like(e.states))
                                          for e in train_episodes[:2]])
    env = {"COLUMNS": "250"}
    checked = CliRunner().invoke(app, ["import", str(src), "--check", *cards], env=env)
    assert checked.exit_code == 0 and "100.00%" in checked.output, checked.output
    assert ("warning: ball_real.hdf5: every state of its 2 real trajectories is illegal by clevr's"
            in checked.output)
    written = CliRunner().invoke(app, ["import", str(src), *cards], env=env)
    assert written.exit_code == 0 and "written" in written.output and "warning:" in written.output
    card = json.loads((tmp_path / "cards" / "clevr-train-real-v0.json").read_text())
    assert card["illegal_state_rate"] == 1.0
    write_ball_h5(src, "ball_real.hdf5", train_episodes[:2])
    legal = CliRunner().invoke(app, ["import", str(src), "--check", *cards], env=env)
    assert legal.exit_code == 0 and "0.00%" in legal.output and "100.00%" not in legal.output
    assert "warning" not in legal.output, legal.output


def test_the_namespace_of_the_built_datasets_is_refused_for_an_import(minari_root, tmp_path, train_episodes):
    """Found 2026-12-06: `--namespace imaginebench` was taken, and its cards would have gone to
    cards/ over the committed ones."""
    src = tmp_path / "src"
    src.mkdir()
    write_ball_h5(src, "ball_real.hdf5", train_episodes[:2])
    result = CliRunner().invoke(app, ["import", str(src), "--namespace", "imaginebench"],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "holds the datasets this package builds" in result.output
    assert not (minari_root / "imaginebench").exists()
