"""Fault injection: 222 mutated original files, each imported in a memory-limited process.

From valid files of every layout the importer reads (HDF5 with a side .npy, chunked and
compressed HDF5, CLEVR's one-step easy HDF5, pickled .npy dicts of protocols 3 and 5, the
Parquet release) the corpus makes, with a fixed seed: byte flips, zeroed and inserted bytes,
truncations, and structural changes (keys deleted, dtypes and shapes changed, huge declared
sizes, links, unwritten and virtual datasets, hostile pickles, broken Parquet columns).

Every file must either import (check only) or be refused with one ``OriginalFileError`` line
naming the file, as must the CLI's ``imaginebench import --check`` for every fourth: never
another exception, and never a MemoryError under the 3 GiB address-space limit of the
reading process (``original_layouts.check_limited``; the importer's own limit is set to
256 MiB there).
"""

import pickle
import shutil
import struct
import time
from collections import Counter

import h5py
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from original_layouts import (
    MEMORY_LIMIT,
    check_limited,
    npy_bytes,
    pickled_call,
    pickled_dict,
    pickled_rephrase,
    rollouts,
    shared_nest,
    write_ball_h5,
    write_easy_h5,
    write_release,
)

SEED = 20261123
BYTE_MUTANTS = 24  # per base
INT = struct.Struct("<i")


# --- the valid bases ------------------------------------------------------------------------------
def _gzip_h5(folder, arrays, side):
    with h5py.File(folder / "ball_real.h5", "w") as file:
        for key, value in arrays.items():
            file.create_dataset(key, data=value, chunks=(1, *value.shape[1:]), compression="gzip")
    np.save(folder / "ball_real.npy", side)


def _bases(root):
    """name -> (folder, the file byte mutations hit); all valid files that import."""
    train, rephrase = rollouts("train", 2), rollouts("rephrase", 2)
    folders = {name: root / "bases" / name for name in ("h5", "h5-gzip", "easy", "npy", "npy-p5", "parquet")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    arrays, side = write_ball_h5(folders["h5"], "ball_real.hdf5", train)
    _gzip_h5(folders["h5-gzip"], arrays, side)
    write_easy_h5(folders["easy"], rollouts("easy", 3))
    content = pickled_rephrase(rephrase)
    np.save(folders["npy"] / "ball_imaginary_rephrase.npy", content)
    (folders["npy-p5"] / "ball_imaginary_rephrase.npy").write_bytes(
        npy_bytes(pickle.dumps(np.asanyarray(content, dtype=object), protocol=5)))
    write_release([folders["parquet"] / "release.parquet"],
                  {"ball_real.hdf5": {**arrays, **side}, "ball_imaginary_rephrase.npy": content})
    targets = {"h5": "ball_real.hdf5", "h5-gzip": "ball_real.h5", "easy": "ball_imaginary_easy.h5",
               "npy": "ball_imaginary_rephrase.npy", "npy-p5": "ball_imaginary_rephrase.npy",
               "parquet": "release.parquet"}
    return {name: (folders[name], targets[name]) for name in folders}, arrays, side, content


# --- byte-level mutations -------------------------------------------------------------------------
def _mutate_bytes(data, kind, rng):
    data = bytearray(data)
    at = int(rng.integers(len(data)))
    if kind.startswith("flip"):
        for where in rng.integers(len(data), size=int(kind[4:])):
            data[where] ^= int(rng.integers(1, 256))
    elif kind == "truncate":
        del data[at:]
    elif kind == "zero64":
        data[at:at + 64] = bytes(len(data[at:at + 64]))
    elif kind == "insert16":
        data[at:at] = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    elif kind == "copy256":
        source = int(rng.integers(len(data)))
        data[at:at + 256] = data[source:source + 256][:len(data[at:at + 256])]
    return bytes(data)


BYTE_KINDS = ("flip1", "flip8", "flip64", "truncate", "zero64", "insert16", "copy256", "flip1")


# --- structural mutations -------------------------------------------------------------------------
def _h5(arrays, side, **changes):
    def write(folder):
        write_ball_h5_arrays(folder, {**arrays, **changes}, side)
    return write


def write_ball_h5_arrays(folder, arrays, side):
    with h5py.File(folder / "ball_real.hdf5", "w") as file:
        for key, value in arrays.items():
            if value is not None:
                file[key] = value
    if side is not None:
        np.save(folder / "ball_real.npy", side)


def _h5_edit(arrays, side, edit):
    def write(folder):
        write_ball_h5_arrays(folder, arrays, side)
        with h5py.File(folder / "ball_real.hdf5", "a") as file:
            edit(file, folder)
    return write


def _replace(key, make):
    def edit(file, folder):
        del file[key]
        make(file, folder)
    return edit


def _h5_patch_dims(arrays, side, chunked=False):
    """ball_real.hdf5 whose observations' dataspace declares N = 10**9 (contiguous: dims and max dims;
    chunked, resizable: dims alone), patched in the file's bytes."""
    def write(folder):
        write_ball_h5_arrays(folder, arrays, side)
        path, shape = folder / "ball_real.hdf5", arrays["observations"].shape
        if chunked:
            with h5py.File(path, "a") as file:
                del file["observations"]
                file.create_dataset("observations", data=arrays["observations"], chunks=(1, *shape[1:]),
                                    maxshape=(None, *shape[1:]))
        data = path.read_bytes()
        huge = struct.pack("<3Q", 10 ** 9, *shape[1:])
        path.write_bytes(data.replace(struct.pack("<3Q", *shape), huge, 1 if chunked else 2))
    return write


def _virtual_inside(file, folder):
    layout = h5py.VirtualLayout(shape=(2, 3, 778), dtype="f4")
    layout[:] = h5py.VirtualSource(".", "rewards", shape=(2, 3, 778))
    file.create_virtual_dataset("observations", layout)


def _hdf5_cases(arrays, side):
    obs = arrays["observations"]
    cases = {f"h5 without {key}": _h5(arrays, side, **{key: None})
             for key in ("observations", "actions", "rewards", "masks")}
    cases.update({
        "h5 observations float16": _h5(arrays, side, observations=obs.astype(np.float16)),
        "h5 observations int8": _h5(arrays, side, observations=np.nan_to_num(obs).astype(np.int8)),
        "h5 observations bool": _h5(arrays, side, observations=obs > 0),
        "h5 observations complex": _h5(arrays, side, observations=obs.astype(np.complex64)),
        "h5 observations 2-d": _h5(arrays, side, observations=obs[:, 0]),
        "h5 actions 0.5": _h5(arrays, side, actions=arrays["actions"] + 0.5),
        "h5 actions (N, T, 3)": _h5(arrays, side, actions=np.zeros((*obs.shape[:2], 3))),
        "h5 masks 2": _h5(arrays, side, masks=arrays["masks"] * 2),
        "h5 masks (N, T+1)": _h5(arrays, side, masks=np.ones((obs.shape[0], obs.shape[1] + 1))),
        "h5 next_observations wrong shape": _h5(arrays, side, next_observations=obs[:, :3]),
        "h5 no side file": _h5(arrays, None),
        "h5 side goals short": _h5(arrays, {**side, "goals": side["goals"][:1]}),
        "h5 side instructions int": _h5(arrays, {**side, "instructions": 7}),
        "h5 declared N 10**9": _h5_patch_dims(arrays, side),
        "h5 chunked, declared N 10**9": _h5_patch_dims(arrays, side, chunked=True),
        "h5 observations a group": _h5_edit(arrays, side, _replace(
            "observations", lambda f, _: f.create_group("observations"))),
        "h5 observations scalar": _h5_edit(arrays, side, _replace(
            "observations", lambda f, _: f.__setitem__("observations", 1.0))),
        "h5 dangling soft link": _h5_edit(arrays, side, _replace(
            "masks", lambda f, _: f.__setitem__("masks", h5py.SoftLink("/nowhere")))),
        "h5 external link inside the folder": _h5_edit(arrays, side, _replace(
            "masks", lambda f, d: f.__setitem__("masks", h5py.ExternalLink("ball_real.hdf5", "/masks2")))),
        "h5 virtual dataset of the same file": _h5_edit(arrays, side,
                                                        _replace("observations", _virtual_inside)),
        "h5 observations never written": _h5_edit(arrays, side, _replace(
            "observations", lambda f, _: f.create_dataset("observations", obs.shape, "f4"))),
    })
    return cases


def _npy(payload, header=None, name="ball_imaginary_rephrase.npy"):
    def write(folder):
        (folder / name).write_bytes(npy_bytes(payload) if header is None else npy_bytes(payload, header))
    return write


def _saved(content):
    def write(folder):
        np.save(folder / "ball_imaginary_rephrase.npy", content, allow_pickle=True)
    return write


class _System:
    def __reduce__(self):
        return (__import__("os").system, ("true",))


def _pickle_cases(content):
    valid = pickle.dumps(np.asanyarray(content, dtype=object), protocol=2)
    deep = b"\x80\x02" + b"]" * 100_000 + b"a" * 99_999 + b"."
    cases = {f"npy without {key}": _saved({k: v for k, v in content.items() if k != key})
             for key in ("observations", "actions", "rewards", "masks")}
    cases.update({
        "npy a list": _saved([content]),
        "npy instructions 5": _saved({**content, "instructions": 5}),
        "npy instructions numbers": _saved({**content, "instructions": [[1.5]] * len(content["masks"])}),
        "npy instructions ragged nest": _saved({**content, "instructions": [[["a", ["b"]]], [[]]]}),
        "npy observations nested lists": _saved({**content,
                                                 "observations": content["observations"].tolist()}),
        "npy observations ragged": _saved({**content, "observations": [[1.0], [1.0, 2.0]]}),
        "npy observations objects": _saved({**content, "observations": np.array([{}, []], dtype=object)}),
        "npy unsafe global": _saved({**content, "observations": _System()}),
        "npy bytearray(2e9)": _npy(pickled_dict({"observations": pickled_call(
            "__builtin__.bytearray", b"J" + INT.pack(2_000_000_000))})),
        "npy bytes(2e9)": _npy(pickled_dict({"observations": pickled_call(
            "__builtin__.bytes", b"J" + INT.pack(2_000_000_000))})),
        "npy zlib codec": _npy(pickled_dict({"observations": pickled_call(
            "_codecs.encode", b"U\x03abc", b"U\x04zlib")})),
        "npy memo index 2**31": _npy(b"\x80\x02}r\xff\xff\xff\x7f."),
        "npy str() of 2**30 shared floats": _npy(pickled_dict({"observations": pickled_call(
            "__builtin__.str", shared_nest())})),
        "npy 2**30 shared floats": _npy(pickled_dict({"observations": shared_nest()})),
        "npy list(2**30)": _npy(b"\x80\x02" + pickled_call("__builtin__.list", b"J" + INT.pack(1 << 30))
                                + b"."),
        "npy 100k nested lists": _npy(deep),
        "npy header garbage": _npy(valid, b"{'descr': ',O', 'fortran_order': False, 'shape': (), }"),
        "npy header unclosed": _npy(valid, b"{'descr': '|O', 'fortran_order': False, 'shape': ((), }"),
        "npy header shape 10**12": _npy(valid, {"descr": "<f4", "fortran_order": False,
                                                "shape": (10 ** 12,)}),
        "npy header version 9": lambda folder: (folder / "ball_imaginary_rephrase.npy").write_bytes(
            b"\x93NUMPY\x09\x00" + npy_bytes(valid)[8:]),
        "npy empty": lambda folder: (folder / "ball_imaginary_rephrase.npy").write_bytes(b""),
        "npy observations 100k deep": _npy(pickled_dict({"observations": deep[2:-1]})),
        "npy truncated pickle": _npy(valid[:len(valid) // 2]),
    })
    return cases


def _release(arrays, side, content, change):
    """The release of both files with ``change(table) -> table`` applied (a list: several shards)."""
    def write(folder):
        write_release([folder / "release.parquet"], {"ball_real.hdf5": {**arrays, **side},
                                                     "ball_imaginary_rephrase.npy": content})
        tables = change(pq.read_table(folder / "release.parquet"))
        for index, table in enumerate(tables if isinstance(tables, list) else [tables]):
            pq.write_table(table, folder / f"release-{index}.parquet")
        (folder / "release.parquet").unlink()
    return write


def _set(column, values, kind=None):
    def change(table):
        data = values(table.column(column).to_pylist()) if callable(values) else [values] * table.num_rows
        return table.set_column(table.schema.get_field_index(column), column,
                                pa.array(data, kind or table.schema.field(column).type))
    return change


def _parquet_cases(arrays, side, content):
    changes = {
        "pq observations_shape N 10**9": _set("observations_shape", lambda v: [
            s.replace("(2,", "(1000000000,") if s.endswith("778)") else s for s in v]),
        "pq observations_shape T 10**12": _set("observations_shape", lambda v: [
            s.replace(", 11,", ", 1000000000000,") for s in v]),
        "pq observations_shape garbage": _set("observations_shape", "two by eleven"),
        "pq observations_shape ()": _set("observations_shape", "()"),
        "pq observations_shape 5000 digits": _set("observations_shape", f"({'9' * 5000}, 1, 1)"),
        "pq actions_dtype garbage": _set("actions_dtype", "int65"),
        "pq actions_dtype object": _set("actions_dtype", "object"),
        "pq rewards_dtype complex": _set("rewards_dtype", "complex64"),
        "pq row_index all 0": _set("row_index", 0),
        "pq row_index 10**12": _set("row_index", lambda v: [i + 10 ** 12 for i in v]),
        "pq row_index null": _set("row_index", lambda v: [None] + v[1:]),
        "pq row_index text": _set("row_index", lambda v: [str(i) for i in v], pa.string()),
        "pq file_name null": _set("file_name", lambda v: v[:-1] + [None]),
        "pq observations_data null": _set("observations_data", lambda v: [None] + v[1:]),
        "pq observations_data short": _set("observations_data", lambda v: [v[0][:-1]] + v[1:]),
        "pq masks_data not bytes": _set("masks_data", 1.5, pa.float64()),
        "pq instructions numbers": _set("instructions_data", lambda v: [[1] for _ in v],
                                        pa.list_(pa.int64())),
        "pq without row_index": lambda t: t.drop_columns(["row_index"]),
        "pq without observations_data": lambda t: t.drop_columns(["observations_data"]),
        "pq shards disagree": lambda t: [t.slice(0, 2), _set("row_index", lambda v: [str(i) for i in v],
                                                             pa.string())(t.slice(2))],
    }
    return {name: _release(arrays, side, content, change) for name, change in changes.items()}


# --- the corpus and the test ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """label -> folder holding one mutated file (and the side file it goes with)."""
    root, rng = tmp_path_factory.mktemp("fuzz"), np.random.default_rng(SEED)
    bases, arrays, side, content = _bases(root)
    cases = {}
    for name, (base, target) in bases.items():
        cases[f"{name} unchanged"] = lambda folder, base=base: shutil.copytree(base, folder,
                                                                               dirs_exist_ok=True)
        for index in range(BYTE_MUTANTS):
            kind = BYTE_KINDS[index % len(BYTE_KINDS)]
            side_file = name in ("h5", "easy") and index % 4 == 3  # every fourth hits the side .npy
            hit = target.rsplit(".", 1)[0] + ".npy" if side_file else target
            cases[f"{name} {kind} #{index} of {hit}"] = (lambda folder, base=base, hit=hit, kind=kind,
                                                         seed=int(rng.integers(1 << 31)): _write_mutant(
                                                             base, folder, hit, kind, seed))
    cases.update(_hdf5_cases(arrays, side))
    cases.update(_pickle_cases(content))
    cases.update(_parquet_cases(arrays, side, content))
    folders = {}
    for index, (label, write) in enumerate(cases.items()):
        folders[label] = root / "cases" / f"{index:03d}" / "src"
        folders[label].mkdir(parents=True)
        write(folders[label])
    return folders, root


def _write_mutant(base, folder, hit, kind, seed):
    shutil.copytree(base, folder, dirs_exist_ok=True)
    (folder / hit).write_bytes(_mutate_bytes((base / hit).read_bytes(), kind, np.random.default_rng(seed)))


def test_every_mutated_file_imports_or_is_refused_in_one_line(corpus):
    folders, root = corpus
    started = time.perf_counter()
    records = dict(zip(folders, check_limited(list(folders.values()), root, cli=list(folders.values())[::4])))
    seconds = time.perf_counter() - started
    outcomes = Counter(record["outcome"] for record in records.values())
    failed = {label: record["message"] for label, record in records.items() if record["outcome"] == "failed"}
    assert not failed, "\n\n".join(f"{label}:\n{message}" for label, message in failed.items())
    for label, record in records.items():
        if record["outcome"] == "refused":
            message = record["message"]
            assert "\n" not in message and "unexpected" not in message, (label, message)
            assert message.split(":")[0].endswith((".h5", ".hdf5", ".npy", ".parquet")), (label, message)
        cli = record.get("cli")
        if cli:
            assert cli["uncaught"] is None and "Traceback" not in cli["output"], (label, cli)
            if record["outcome"] == "imported":
                assert cli["exit_code"] == 0, (label, cli)
            else:
                assert cli["exit_code"] == 2 and "Nothing was written." in cli["output"], (label, cli)
                assert f"error: {record['message'][:40]}" in " ".join(cli["output"].split()), (label, cli)
    peak = max(record["maxrss_kb"] for record in records.values()) * 1024
    through_cli = sum("cli" in record for record in records.values())
    print(f"\nfuzz: {len(records)} files ({dict(outcomes)}), {through_cli} also through the CLI, "
          f"{seconds:.1f} s, peak RSS {peak / 2 ** 20:.0f} MiB under RLIMIT_AS "
          f"{MEMORY_LIMIT / 2 ** 30:.0f} GiB")
    assert len(records) >= 100 and peak < MEMORY_LIMIT
    assert outcomes["imported"] >= 10 and outcomes["refused"] >= 80  # both paths are exercised
    assert all(records[f"{name} unchanged"]["outcome"] == "imported"
               for name in ("h5", "h5-gzip", "easy", "npy", "npy-p5", "parquet"))
