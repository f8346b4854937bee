"""``import_dir``: the original release's files in a folder -> checked, carded Minari datasets.

Two phases, so that one broken file leaves nothing written:

1. every selected file is read, checked (keys, shapes, masks, finiteness) and, for the
   domains we have, converted to episodes on which the checkers run and the writer's
   validation passes; files of domains we do not have yet are read and checked only;
2. only then, if no target version exists (or ``force``), each dataset is written and
   carded exactly as ``build.pipeline.build`` does, with provenance naming its source
   file(s), their format and sha256, and the rows read and kept.

The episodes of all files are held in memory between the phases.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..build.pipeline import default_cards_dir
from ..build.publish import publish
from ..core.domain import Domain, Simulator
from ..datasets.ids import dataset_dir, parse_id
from ..datasets.writer import DatasetExistsError
from ..domains import DOMAINS, get_domain
from .convert import UNMATCHED_RULES, Conversion, convert
from .hdf5 import read_hdf5
from .names import Target, discover, target_of
from .parquet import read_parquet_release
from .pickled import read_pickled
from .source import SourceFile, SourceFileError, check_source, sha256

DEFAULT_NAMESPACE = "imaginebench-original"
SCALE = "original"
IMPORT_NOTES = {
    "import": "Imported from the original ImagineBench release (file, format and sha256 in the provenance). "
    "States are the first D numbers of each stored observation (the 768-d instruction encoding is "
    "stripped). The final state is next_observations[L-1] where the file has them, else the last "
    "observation, the last action being dropped (provenance: final_state). Terminated when the "
    "task's predicate holds on the last transition, else truncated (the original marks every "
    "episode terminated). The instruction is the trajectory's first "
    "instruction string (typographic punctuation normalised); phrasing_id -1 marks the original's "
    "own wording. Seed = the trajectory's row in the original file.",
    "rewards": "as stored in the original file (the original benchmark's reward), not recomputed.",
}


@dataclass
class ImportResult:
    """What became of one original file. ``status``: written, checked, or why it was not written;
    ``episodes`` kept, or None when the file's domain is not available (nothing converted)."""

    file_name: str
    format: str
    dataset_id: str
    rows_read: int
    status: str
    episodes: int | None = None
    card: dict[str, Any] | None = None
    card_files: list[Path] = field(default_factory=list)


@dataclass
class _Checked:
    source: SourceFile
    domain: Domain | None
    conversion: Conversion | None


def read_sources(src_dir: Path, only: list[str] | None = None, progress: bool = True) -> list[SourceFile]:
    """Read and check every original file under ``src_dir`` (those named in ``only``: name or stem)."""
    found = discover(src_dir)

    def wanted(name: str) -> bool:
        return not only or name in only or Path(name).stem in only

    sources = [read_hdf5(path, side, target_of(path.name), progress)
               for path, side in found.hdf5 if wanted(path.name)]
    sources += [read_pickled(path, target_of(path.name)) for path in found.pickled if wanted(path.name)]
    names = [path.name for path, _ in found.hdf5] + [path.name for path in found.pickled]
    if found.parquet:
        released, release_names = read_parquet_release(found.parquet, wanted, progress)
        sources += released
        names += [name for name in release_names if target_of(name) is not None]
    unknown = [name for name in only or () if name not in names and name not in {Path(n).stem for n in names}]
    if unknown or not names:
        problem = f"no files named {unknown}" if unknown else "no original ImagineBench files"
        raise SourceFileError(f"{src_dir}: {problem}; found {sorted(names) or 'none'} (expected names "
                              "such as ball_real.hdf5, babyai_imaginary_easy.npy, or the release's Parquet)")
    for source in sources:
        check_source(source)
    return sorted(sources, key=lambda source: (source.name, source.format))


def _refuse_duplicates(sources: list[SourceFile], namespace: str) -> None:
    seen: dict[str, SourceFile] = {}
    for source in sources:
        dataset_id = source.target.dataset_id(namespace)
        if dataset_id in seen:
            first = seen[dataset_id]
            raise SourceFileError(
                f"{first.name} ({first.format}) and {source.name} ({source.format}) both become "
                f"{dataset_id}; import one of them (--only NAME, or move the other out of the folder)")
        seen[dataset_id] = source


def _check_all(sources: list[SourceFile], unmatched: str, progress: bool) -> list[_Checked]:
    simulators: dict[str, Simulator] = {}
    checked = []
    for source in sources:
        name = source.target.domain
        if name not in DOMAINS:
            checked.append(_Checked(source, None, None))
            continue
        domain = get_domain(name)
        if name not in simulators:
            simulators[name] = domain.simulator()
        checked.append(_Checked(source, domain, convert(source, domain, simulators[name], unmatched=unmatched,
                                                         progress=progress)))
    return checked


def _provenance(item: _Checked, src_dir: Path, started: float) -> dict[str, Any]:
    source, conversion = item.source, item.conversion
    return {
        "generator": "original ImagineBench release",
        "checkpoint_hash": None,
        "original_file": source.name,
        "format": source.format,
        "sha256": {str(p.relative_to(src_dir)) if p.is_relative_to(src_dir) else str(p): sha256(p)
                   for p in source.paths},
        "stored_observation_width": source.stored_width,
        "rows_read": source.rows,
        "rows_kept": len(conversion.episodes),
        "rows_too_short": len(conversion.too_short),
        "rows_unresolved_dropped": len(conversion.unresolved),
        "final_state": conversion.final_state,
        "import_seconds": round(time.perf_counter() - started, 1),
    }


def _write(item: _Checked, namespace: str, force: bool, cards_dir: Path, src_dir: Path,
           progress: bool) -> ImportResult:
    source, conversion = item.source, item.conversion
    dataset_id = source.target.dataset_id(namespace)
    started = time.perf_counter()
    published = publish(
        dataset_id, conversion.episodes, item.domain, scale=SCALE,
        provenance=lambda: _provenance(item, src_dir, started), notes=IMPORT_NOTES,
        description=f"{source.name} of the original ImagineBench release, imported: "
        f"{len(conversion.episodes)} of its {source.rows} trajectories.",
        cards_dir=cards_dir, total=len(conversion.episodes), force=force, progress=progress)
    return ImportResult(source.name, source.format, dataset_id, source.rows, "written",
                        len(conversion.episodes), published.card, published.card_files)


def import_dir(src_dir: Path | str, *, namespace: str = DEFAULT_NAMESPACE, force: bool = False,
               cards_dir: Path | None = None, only: list[str] | None = None, unmatched: str = "error",
               check_only: bool = False, progress: bool = True) -> list[ImportResult]:
    """Import the original files under ``src_dir`` as ``<namespace>/<domain>-<level>-<source>-v0``.

    ``only`` keeps the files of these names (or stems); ``unmatched`` is "error" or "skip"
    for trajectories whose task cannot be resolved (see ``convert``); ``check_only`` reads
    and checks without writing. Cards go to ``cards_dir`` (default ``cards/<namespace>/``
    of this checkout, so that they never overwrite the built datasets' cards). Raises
    ``SourceFileError`` (naming file and key) or ``DatasetExistsError`` before anything is
    written. Files of domains not available yet are checked and reported, not written.
    """
    if unmatched not in UNMATCHED_RULES:
        raise ValueError(f"unmatched must be one of {UNMATCHED_RULES}, got {unmatched!r}")
    src_dir = Path(src_dir)
    try:
        parse_id(Target("clevr", "train", "real").dataset_id(namespace))
    except ValueError as error:
        raise ValueError(f"malformed namespace {namespace!r}: expected 2 or more letters, digits, '_' or '-'"
                         ) from error
    sources = read_sources(src_dir, only, progress)
    _refuse_duplicates(sources, namespace)
    checked = _check_all(sources, unmatched, progress)
    writable = [item for item in checked if item.conversion is not None]
    existing = [item.source.target.dataset_id(namespace) for item in writable
                if dataset_dir(item.source.target.dataset_id(namespace)).exists()]
    if existing and not force and not check_only:
        raise DatasetExistsError(f"dataset(s) {', '.join(existing)} already exist; pass --force (force=True) "
                                 "to replace them")
    results = []
    for item in checked:
        source = item.source
        if item.conversion is not None and not check_only:
            target = cards_dir or default_cards_dir(source.target.dataset_id(namespace))
            results.append(_write(item, namespace, force, target, src_dir, progress))
        elif item.conversion is not None:
            results.append(ImportResult(source.name, source.format, source.target.dataset_id(namespace),
                                        source.rows, "checked", len(item.conversion.episodes)))
        else:
            results.append(ImportResult(
                source.name, source.format, source.target.dataset_id(namespace), source.rows,
                f"not written: domain {source.target.domain!r} not available yet"))
    return results
