"""Which dataset an original ImagineBench file becomes, read from its file name.

Names of the original release (reference 0.3) and of its Parquet re-release (0.5):

    <prefix>_real.<ext>                      level "train",   source "real"
    <prefix>_imaginary_<level>.<ext>         level <level>,   source "imaginary"
    <prefix>_<level>.<ext>                   level <level>,   source "imaginary" (Parquet names)

with ``<prefix>`` one of ball, metaworld, babyai, libero, mujoco (our domains clevr,
metaworld, babyai, libero, halfcheetah), ``<level>`` one of rephrase, easy, hard and
``<ext>`` h5, hdf5, npy or parquet. Other names (e.g. CLEVR's ``clevr_test_*.npy`` eval
episodes) are not datasets and are ignored.

Observations of the original are ``STATE_DIMS[domain]`` state numbers, optionally
followed by the ``ENCODING_DIM``-d instruction encoding, which the importer strips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PREFIX_DOMAINS = {"ball": "clevr", "metaworld": "metaworld", "babyai": "babyai", "libero": "libero",
                  "mujoco": "halfcheetah"}
STATE_DIMS = {"clevr": 10, "metaworld": 91, "babyai": 17, "libero": 44, "halfcheetah": 18}
ENCODING_DIM = 768
HDF5_SUFFIXES = (".h5", ".hdf5")
NAME_PATTERN = re.compile(
    r"^(?P<prefix>ball|metaworld|babyai|libero|mujoco)_"
    r"(?:(?P<real>real)|(?:imaginary_)?(?P<level>rephrase|easy|hard))\.(?:h5|hdf5|npy|parquet)$"
)


@dataclass(frozen=True)
class Target:
    """The dataset an original file becomes (all but the namespace of its id)."""

    domain: str
    level: str
    source: str

    @property
    def state_dim(self) -> int:
        return STATE_DIMS[self.domain]

    def dataset_id(self, namespace: str) -> str:
        return f"{namespace}/{self.domain}-{self.level}-{self.source}-v0"


def target_of(file_name: str) -> Target | None:
    """The target of an original file name, or None when the name is not a dataset file."""
    match = NAME_PATTERN.match(file_name)
    if match is None:
        return None
    domain = PREFIX_DOMAINS[match["prefix"]]
    if match["real"]:
        return Target(domain, "train", "real")
    return Target(domain, match["level"], "imaginary")


@dataclass
class Discovered:
    """Files found under a source folder, sorted by kind.

    ``hdf5`` pairs each HDF5 data file with its side ``.npy`` (instructions and goals; the
    ``.npy`` of the same stem) or None. A ``.npy`` without an HDF5 file of the same stem is
    a pickled data file. ``parquet`` holds every Parquet shard of the release (their rows
    name the original files). Other files are not datasets and are left out.
    """

    hdf5: list[tuple[Path, Path | None]]
    pickled: list[Path]
    parquet: list[Path]


def discover(src_dir: Path) -> Discovered:
    """Sort the files under ``src_dir`` (recursively, skipping hidden folders) by kind."""
    if not src_dir.is_dir():
        raise FileNotFoundError(f"no folder {src_dir} to import from")
    files = sorted(p for p in src_dir.rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(src_dir).parts))
    found = Discovered([], [], [])
    for path in files:
        dataset_file = target_of(path.name) is not None
        if path.suffix == ".parquet":
            found.parquet.append(path)
        elif dataset_file and path.suffix in HDF5_SUFFIXES:
            side = path.with_suffix(".npy")
            found.hdf5.append((path, side if side.is_file() else None))
        elif dataset_file and path.suffix == ".npy" and not any(
                path.with_suffix(suffix).is_file() for suffix in HDF5_SUFFIXES):
            found.pickled.append(path)
    return found
