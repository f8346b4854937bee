"""The failures fault injection found in the importer, each reproduced so that it stays found.

Files that declare sizes they do not hold (a huge Parquet shape, an HDF5 dataset never written,
a pickled ``bytearray(2e9)`` in a 60-byte file), links out of the source folder, and .npy
headers that do not parse are read in a process whose address space is limited to 3 GiB
(``original_layouts.check_limited``): each must be refused with one ``OriginalFileError``
naming file, key, expected and found, never a traceback or a MemoryError. CLEVR's one-step
easy files, which the original keeps without a state after the push, now import.
"""

import re
import struct

import h5py
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from original_layouts import (
    CLEVR,
    check_limited,
    npy_bytes,
    padded,
    pickled_call,
    pickled_dict,
    rollouts,
    shared_nest,
    write_ball_h5,
    write_easy_h5,
    write_release,
)
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.datasets.read import open_dataset, stored_episodes
from imaginebench_data.imports import OriginalFileError, import_dir
from imaginebench_data.imports.limits import MAX_BYTES, MAX_BYTES_ENV, max_bytes

EASY_ID = "imaginebench-original/clevr-easy-imaginary-v0"
INT = struct.Struct("<i")


def _ball(folder, episodes, **changes):
    return write_ball_h5(folder, "ball_real.hdf5", episodes, **changes)


def _parquet_shape(folder, episodes, text):
    """The release of ball_real.hdf5 with ``observations_shape`` ``text`` ({t}: the file's T) in every row."""
    arrays, side = _ball(folder, episodes)
    text = text.format(t=arrays["observations"].shape[1])
    write_release([folder / "release.parquet"], {"ball_real.hdf5": {**arrays, **side}})
    (folder / "ball_real.hdf5").unlink()
    (folder / "ball_real.npy").unlink()
    table = pq.read_table(folder / "release.parquet")
    column = table.schema.get_field_index("observations_shape")
    pq.write_table(table.set_column(column, "observations_shape", pa.array([text] * table.num_rows)),
                   folder / "release.parquet")


def _h5_replaced(folder, episodes, make):
    """ball_real.hdf5 whose observations are replaced by what ``make(file, folder)`` puts there."""
    _ball(folder, episodes)
    with h5py.File(folder / "ball_real.hdf5", "a") as file:
        del file["observations"]
        make(file, folder.parent)


def _outside(folder):
    """A file outside the source folder holding an observations array."""
    path = folder / "elsewhere.h5"
    with h5py.File(path, "w") as file:
        file["observations"] = np.zeros((2, 3, 778), np.float32)
    return path


def _virtual(file, outside):
    layout = h5py.VirtualLayout(shape=(2, 3, 778), dtype="f4")
    layout[:] = h5py.VirtualSource(str(_outside(outside)), "observations", shape=(2, 3, 778))
    file.create_virtual_dataset("observations", layout)


def _pickled(folder, payload, header=None, name="babyai_real.npy"):
    (folder / name).write_bytes(npy_bytes(payload) if header is None else npy_bytes(payload, header))


BYTEARRAY_2E9 = pickled_call("__builtin__.bytearray", b"J" + INT.pack(2_000_000_000))
RECONSTRUCT_HUGE = pickled_call("numpy.core.multiarray._reconstruct", b"cnumpy\nndarray\n",
                                b"J" + INT.pack(1 << 30) + b"\x85", b"U\x02f8")
OBJECT_ARRAY_HUGE = (pickled_call("numpy.core.multiarray._reconstruct", b"cnumpy\nndarray\n", b"K\x00\x85",
                                  b"U\x01b")
                     + b"(K\x01J" + INT.pack(1 << 30) + b"\x85" + pickled_call("numpy.dtype", b"U\x02O8")
                     + b"\x89]K\x01atb")  # state (1, (2**30,), dtype('O'), False, [1]): one item of 2**30

# case -> (how to write it into the source folder, the error expected)
CASES = {
    "parquet declared N huge": (
        lambda f, e: _parquet_shape(f, e, "(1000000000, {t}, 778)"),
        r"ball_real.hdf5: column 'observations_shape' is '\(1000000000, \d+, 778\)': N = 1000000000 "
        r"trajectories; expected N = 2, the rows present"),
    "parquet declared row shape huge": (
        lambda f, e: _parquet_shape(f, e, "(2, 1000000000, 778)"),
        r"ball_real.hdf5: column 'observations_data' of row_index \d holds \d+ bytes; "
        r"expected 3112000000000 = \(1000000000, 778\) x 4-byte float32"),
    "hdf5 dataset never written": (
        lambda f, e: _h5_replaced(f, e, lambda h, _: h.create_dataset("observations", (18000, 50, 778),
                                                                      "f4")),
        r"ball_real.hdf5: key 'observations' declares shape \(18000, 50, 778\) x 4-byte float32 = "
        r"2,800,800,000 bytes \(2.61 GiB\); found nothing stored \(never written\)"),
    "hdf5 chunks never written": (
        lambda f, e: _h5_replaced(f, e, lambda h, _: h.create_dataset(
            "observations", (18000, 50, 778), "f4", chunks=(100, 50, 778)).write_direct(
            np.ones((100, 50, 778), np.float32), dest_sel=np.s_[:100])),
        r"ball_real.hdf5: key 'observations' declares shape \(18000, 50, 778\) x 4-byte float32 = .* in 180 "
        r"chunks of \(100, 50, 778\); found 1 chunk\(s\) written"),
    "hdf5 external link outside the folder": (
        lambda f, e: _h5_replaced(f, e, lambda h, out: h.__setitem__(
            "observations", h5py.ExternalLink(str(_outside(out)), "/observations"))),
        r"ball_real.hdf5: key 'observations' is an external link to '.*elsewhere.h5':'/observations'; "
        r"expected a dataset stored in the file"),
    "hdf5 virtual dataset outside the folder": (
        lambda f, e: _h5_replaced(f, e, _virtual),
        r"ball_real.hdf5: key 'observations' declares shape \(2, 3, 778\) x 4-byte float32 as a virtual "
        r"dataset of \['.*elsewhere.h5'\]; expected its data stored in the file"),
    "hdf5 raw data in an external file": (
        lambda f, e: _h5_replaced(f, e, lambda h, out: h.create_dataset(
            "observations", (2, 3, 778), "f4", external=[(str(_outside(out)), 0, 2 * 3 * 778 * 4)])),
        r"ball_real.hdf5: key 'observations' declares .* with its data in external file\(s\) \['.*elsewhere"),
    "hdf5 soft link": (
        lambda f, e: _h5_replaced(f, e, lambda h, _: h.__setitem__("observations",
                                                                   h5py.SoftLink("/rewards"))),
        r"ball_real.hdf5: key 'observations' is a SoftLink to '/rewards'; expected a dataset stored in the "
        r"file"),
    "pickled bytearray(2e9)": (
        lambda f, e: _pickled(f, pickled_dict({"observations": BYTEARRAY_2E9})),
        r"babyai_real.npy: the pickled payload declares bytearray\(2000000000\) of 2,000,000,000 bytes "
        r"\(1.86 GiB\); expected at most the \d\d bytes the whole payload holds"),
    "pickled BYTEARRAY8 of 2**40 bytes": (
        lambda f, e: _pickled(f, b"\x80\x05\x96" + struct.pack("<Q", 1 << 40) + b"ab."),
        r"babyai_real.npy: the pickled payload declares a bytearray of 1,099,511,627,776 bytes "
        r"\(1.02e\+03 GiB\); expected at most the 14 bytes the whole payload holds"),
    "pickled array of 2**30 float64": (
        lambda f, e: _pickled(f, pickled_dict({"observations": RECONSTRUCT_HUGE})),
        r"babyai_real.npy: the pickled payload declares empty array of shape \(1073741824,\) of "
        r"8,589,934,592 bytes"),
    "pickled object array of 2**30 items holding one": (
        lambda f, e: _pickled(f, b"\x80\x02" + OBJECT_ARRAY_HUGE + b"."),
        r"babyai_real.npy: the pickled payload is corrupt \(an object array of shape \(1073741824,\) holds "
        r"1 item\(s\); expected 1073741824 items\)"),
    "pickled nested lists of 2**30 shared floats": (
        lambda f, e: _pickled(f, pickled_dict({"observations": shared_nest()})),
        r"babyai_real.npy: key 'observations': its nested lists as an array needs 8,589,934,592 bytes "
        r"\(8 GiB\); .* exceeds the import limit of 268,435,456 bytes \(0.25 GiB\) per file \(set "
        r"IMAGINEBENCH_IMPORT_MAX_BYTES to raise it\)"),
    "npy header SyntaxError": (
        lambda f, e: _pickled(f, b"", b"{'descr': ',O', 'fortran_order': False, 'shape': (), }"),
        r"babyai_real.npy: not a readable .npy file: its header does not parse \(SyntaxError: .*\); "
        r"expected a .npy header such as"),
    "side npy header TokenError": (
        lambda f, e: (_ball(f, e), _pickled(
            f, b"", b"{'descr': '|O', 'fortran_order': False, 'shape': ()), }", "ball_real.npy")),
        r"ball_real.npy: not a readable .npy file: its header does not parse \(TokenError: "),
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """Every case's folder written, then imported in one memory-limited process (CLI for all)."""
    episodes, root = rollouts("train", 2), tmp_path_factory.mktemp("limits")
    folders = {}
    for index, (case, (write, _)) in enumerate(CASES.items()):
        folders[case] = root / f"{index:02d}" / "src"
        folders[case].mkdir(parents=True)
        write(folders[case], episodes)
    records = check_limited(list(folders.values()), root, cli=list(folders.values()))
    return dict(zip(folders, records))


@pytest.mark.parametrize("case", CASES)
def test_a_declared_size_link_or_header_is_refused_in_one_line(checked, case):
    record, expected = checked[case], CASES[case][1]
    assert record["outcome"] == "refused", record.get("message")
    assert "\n" not in record["message"] and re.match(expected, record["message"]), record["message"]
    cli = record["cli"]
    assert cli["uncaught"] is None and cli["exit_code"] == 2, cli
    file_name = re.match(r"[\w.]+", record["message"])[0]
    assert f"error: {file_name}: " in cli["output"] and "Nothing was written." in cli["output"], cli["output"]
    assert "Traceback" not in cli["output"]
    assert record["maxrss_kb"] < 1 << 20  # the reading process never held 1 GiB


def test_the_tiny_files_really_are_tiny(tmp_path):
    _pickled(tmp_path, pickled_dict({"observations": BYTEARRAY_2E9}))
    assert (tmp_path / "babyai_real.npy").stat().st_size < 200


def test_the_limit_is_stated_and_configurable(monkeypatch, tmp_path):
    assert MAX_BYTES == 4 << 30 and max_bytes() == MAX_BYTES
    _ball(tmp_path, rollouts("train", 1))
    monkeypatch.setenv(MAX_BYTES_ENV, "256B")
    limit = r"ball_real.hdf5: key '\w+': .* needs [\d,]+ bytes; .* the import limit of 256 bytes per file"
    with pytest.raises(OriginalFileError, match=limit):
        import_dir(tmp_path, check_only=True, progress=False)
    monkeypatch.setenv(MAX_BYTES_ENV, "a lot")
    with pytest.raises(ValueError, match=r"IMAGINEBENCH_IMPORT_MAX_BYTES='a lot': expected a positive"):
        import_dir(tmp_path, check_only=True, progress=False)
    monkeypatch.setenv(MAX_BYTES_ENV, "64 MiB")
    assert max_bytes() == 64 << 20 and len(import_dir(tmp_path, check_only=True, progress=False)) == 1


def test_one_step_clevr_easy_files_without_next_observations_import(minari_root, tmp_path):
    """The original keeps each one-push trajectory as o_0 and a_0 alone; the state after the push is
    simulated (CLEVR's dataset state is its whole simulator state) and the step is kept."""
    episodes = rollouts("easy", 4)
    arrays, side = write_easy_h5(tmp_path, episodes)
    [result] = import_dir(tmp_path, cards_dir=tmp_path / "cards", progress=False)
    card, (dataset, _) = result.card, open_dataset(EASY_ID)
    assert str(result.dataset_id) == EASY_ID and result.episodes == 4 and card.steps == 4
    assert card.provenance["rows_final_state_simulated"] == 4 and card.provenance["rows_too_short"] == 0
    assert "4 of 4 trajectories have one step (L = 1): their final state was simulated by clevr's " \
           "simulator from o_0 with a_0" in card.provenance["final_state"]
    assert card.transition_error_rate == 0 and card.goal_consistency == 1.0
    for row, (rollout, stored) in enumerate(zip(episodes, stored_episodes(dataset, CLEVR))):
        assert np.array_equal(stored.states[0], arrays["observations"][row, 0, :10])
        assert np.allclose(stored.states[1], rollout.states[1], atol=1e-6)  # the live push, re-simulated
        assert stored.actions.tolist() == rollout.actions.tolist() and stored.rewards.tolist() == [1.0]
        assert stored.terminations.tolist() == [True] and stored.task_id == rollout.task_id


def test_a_one_step_trajectory_without_a_finite_state_is_still_dropped(minari_root, tmp_path):
    episodes = rollouts("easy", 3)
    write_easy_h5(tmp_path, episodes)
    with h5py.File(tmp_path / "ball_imaginary_easy.h5", "a") as file:
        file["observations"][1, 0, 3] = np.nan  # imaginary data may hold non-finite states
    [result] = import_dir(tmp_path, check_only=True, progress=False)
    assert result.episodes == 2 and result.rows_read == 3


@pytest.mark.parametrize("text", ["[nan]", "[/]"])
def test_the_cli_prints_the_error_as_it_is(tmp_path, text):
    episodes = rollouts("train", 2)
    if text == "[nan]":
        masks = padded(episodes)["masks"]
        masks[0, 0] = np.nan
        _ball(tmp_path, episodes, masks=masks)
    else:
        _, side = _ball(tmp_path, episodes)  # goals that resolve nothing: the message quotes the text
        np.save(tmp_path / "ball_real.npy", {"instructions": [[text]] * 2, "goals": side["goals"] * 0})
    result = CliRunner().invoke(app, ["import", str(tmp_path), "--check"])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert text in result.output
