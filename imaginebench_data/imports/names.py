"""Which dataset an original ImagineBench file becomes, read from its file name.

Names of the original release (reference 0.3) and of its Parquet re-release (0.5):

    <prefix>_real.<ext>                      level "train",   source "real"
    <prefix>_imaginary_<level>.<ext>         level <level>,   source "imaginary"
    <prefix>_<level>.<ext>                   level <level>,   source "imaginary" (Parquet names)

with ``<prefix>`` the ``original.prefix`` of a registered domain (each domain declares its
own, see ``core.domain.OriginalLayout``), ``<level>`` one of rephrase, easy, hard and
``<ext>`` h5, hdf5, npy or parquet. Other names (other prefixes, or a release's evaluation
files) are not dataset files and are ignored.

Observations of the original are the domain's ``original.state_dim`` state numbers,
optionally followed by the ``ENCODING_DIM``-d instruction encoding, which the importer strips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.domain import Domain, OriginalLayout
from ..datasets.ids import DatasetId
from ..domains import all_domains, get_domain

ENCODING_DIM = 768
HDF5_SUFFIXES = (".h5", ".hdf5")
ORIGINAL_LEVELS = ("rephrase", "easy", "hard")  # the levels of the original's imaginary files
EXTENSIONS = ("h5", "hdf5", "npy", "parquet")


def prefix_domains() -> dict[str, Domain]:
    """File-name prefix -> registered domain, from each domain's ``original.prefix``."""
    found: dict[str, Domain] = {}
    for domain in all_domains():
        prefix = domain.original.prefix
        if prefix in found:
            raise ValueError(f"domains {found[prefix].name!r} and {domain.name!r} both declare the original "
                             f"file prefix {prefix!r}; each domain needs its own")
        found[prefix] = domain
    return found


def name_pattern(prefixes: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """The regular expression of dataset file names with one of ``prefixes``."""
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    return re.compile(
        rf"^(?P<prefix>{alternatives})_"
        rf"(?:(?P<real>real)|(?:imaginary_)?(?P<level>{'|'.join(ORIGINAL_LEVELS)}))\.(?:{'|'.join(EXTENSIONS)})$")


def expected_names() -> str:
    """A description of the names the importer reads, for error messages."""
    prefixes = ", ".join(sorted(prefix_domains())) or "none registered"
    return (f"<prefix>_real.<ext> or <prefix>_imaginary_<level>.<ext> with <prefix> one of {prefixes}, "
            f"<level> one of {', '.join(ORIGINAL_LEVELS)} and <ext> one of {', '.join(EXTENSIONS)}; "
            "or the release's Parquet")


@dataclass(frozen=True)
class Target:
    """The dataset an original file becomes (all but the namespace of its id)."""

    domain: str
    level: str
    source: str  # real or imaginary, as in a dataset id

    @property
    def layout(self) -> OriginalLayout:
        return get_domain(self.domain).original

    @property
    def state_dim(self) -> int:
        """The state numbers at the start of each stored observation of the original file."""
        return self.layout.state_dim

    def dataset_id(self, namespace: str) -> DatasetId:
        return DatasetId.parse(f"{namespace}/{self.domain}-{self.level}-{self.source}-v0")


def target_of(file_name: str) -> Target | None:
    """The target of an original file name, or None when the name is not a dataset file
    (its prefix is no registered domain's)."""
    domains = prefix_domains()
    match = name_pattern(tuple(domains)).match(file_name) if domains else None
    if match is None:
        return None
    domain = domains[match["prefix"]].name
    if match["real"]:
        return Target(domain, "train", "real")
    return Target(domain, match["level"], "imaginary")


@dataclass
class Discovered:
    """Files found under a folder of original files, sorted by kind.

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
