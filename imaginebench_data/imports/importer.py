"""``import_dir``: the original release's files in a folder -> checked, carded Minari datasets.

Two phases, so that one broken file leaves nothing written:

1. every selected file is read, checked (keys, shapes, masks, finiteness) and converted to
   episodes on which the checkers run and the writer's validation passes (every file name
   the importer reads has a registered domain's prefix, see ``names``), each trajectory's
   task resolved by the ladder of ``resolve`` (with the original's encoding files, if given);
2. only then, if no target version exists (or ``force``), each dataset is written and
   carded exactly as ``pipeline.build.build`` does, with provenance naming its original
   file(s), their format and sha256, and the rows read and kept.

The episodes of all files are held in memory between the phases. Reading one file takes at
most ``limits.max_bytes()`` of arrays (4 GiB, or ``IMAGINEBENCH_IMPORT_MAX_BYTES``); every
size a file declares is checked against the bytes it holds before anything of that size is
allocated (see ``limits``, ``hdf5``, ``parquet``, ``unpickle``). A malformed file is answered
with one ``OriginalFileError`` naming file, key, what was expected and what was found; an
error no check foresaw is still reported that way, marked "unexpected".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..cards.card import Card
from ..core.domain import Domain, Simulator
from ..datasets.ids import NAMESPACE, DatasetId, DatasetIdError
from ..datasets.writer import DatasetExistsError, check_datasets_folder, existing_versions
from ..domains import get_domain
from ..pipeline.build import default_cards_dir
from ..pipeline.publish import check_cards_dir, publish
from .convert import UNMATCHED_RULES, Conversion, convert
from .encodings import EncodingTable
from .hdf5 import read_hdf5
from .limits import max_bytes
from .names import discover, expected_names, target_of
from .original import OriginalFile, OriginalFileError, check_original, one_line, sha256
from .parquet import read_parquet_release
from .pickled import read_pickled

DEFAULT_NAMESPACE = "imaginebench-original"
SCALE = "original"
IMPORT_NOTES = {
    "import": "Imported from the original ImagineBench release (file, format and sha256 in the provenance). "
    "States are the first numbers of each stored observation, as many as the domain's original state "
    "has (the 768-d instruction encoding is stripped), turned into this dataset's state layout where "
    "the domain's differs from the original's (see the state note). The final state is "
    "next_observations[L-1] where the file has them, else the last "
    "observation, the last action being dropped; a one-step trajectory (L = 1) of a domain whose "
    "dataset state is its whole simulator state keeps its step, its final state simulated from o_0 "
    "with a_0 (provenance: final_state, rows_final_state_simulated). Terminated when the "
    "task's predicate holds on the last transition, else truncated (the original marks every "
    "episode terminated). The instruction is the trajectory's first "
    "instruction string (typographic punctuation normalised), else its task_str, else the text its "
    "encoding names in the original's encoding files; phrasing_id -1 marks the original's "
    "own wording. Seed = the trajectory's row in the original file.",
    "resolution": "each trajectory's task was resolved by the first rung that decides: its goal vector "
    "(goal), its text equal to one of our phrasings (phrasing) or to the original's documented templates "
    "(template) up to case, white space and trailing punctuation, the same for the text its stored "
    "encoding names in the original's encoding files (encoding+phrasing, encoding+template), else the "
    "nearest task by sentence embedding above a similarity and margin (embedding); the rung is in each "
    "episode's metadata (resolved_by) and counted in the card's resolution. Trajectories no rung "
    "resolves are kept with task id 'unresolved' (unless --unmatched skip) and left out of goal "
    "consistency.",
    "rewards": "as stored in the original file (the original benchmark's reward), not recomputed.",
}


@dataclass
class ImportResult:
    """What became of one original file. ``status``: "written", or "checked" (``check_only``);
    ``episodes``: the trajectories kept; ``card``: the written dataset's card."""

    file_name: str
    format: str
    dataset_id: DatasetId
    rows_read: int
    status: str
    episodes: int
    card: Card | None = None
    card_files: list[Path] = field(default_factory=list)
    resolution: dict[str, int] = field(default_factory=dict)  # trajectories per rung, "unresolved" too
    unresolved_kept: bool = True
    illegal_states: float | None = None  # share of the kept states the checkers flag illegal

    @property
    def suspect(self) -> str | None:
        """Why this file's states may not be read in its domain's layout: real data whose
        every state the checkers flag illegal (an expert's rollouts are legal), else None."""
        if self.dataset_id.source == "real" and self.episodes and self.illegal_states == 1.0:
            return (f"{self.file_name}: every state of its {self.episodes} real trajectories is illegal by "
                    f"{self.dataset_id.domain}'s checkers: expected an expert's legal states; the file's "
                    "state columns may not be this domain's layout (see the card's illegal-state kinds)")
        return None


@dataclass
class _Checked:
    original: OriginalFile
    domain: Domain
    conversion: Conversion
    encodings: list[Path] = field(default_factory=list)  # the encoding files given

    def dataset_id(self, namespace: str) -> DatasetId:
        return self.original.target.dataset_id(namespace)

    def illegal_states(self) -> float | None:
        flags = [episode.infos["legal"] for episode in self.conversion.episodes if "legal" in episode.infos]
        total = sum(len(legal) for legal in flags)
        if not total:
            return None
        return float(sum(np.count_nonzero(~np.asarray(legal, bool)) for legal in flags) / total)


def read_originals(src_dir: Path, only: list[str] | None = None, progress: bool = True) -> list[OriginalFile]:
    """Read and check every original file under ``src_dir`` (those named in ``only``: name or stem)."""
    found = discover(src_dir)

    def wanted(name: str) -> bool:
        return not only or name in only or Path(name).stem in only

    max_bytes()  # a malformed IMAGINEBENCH_IMPORT_MAX_BYTES is refused before anything is read
    originals = [_reading(path.name, read_hdf5, path, side, target_of(path.name), progress)
                 for path, side in found.hdf5 if wanted(path.name)]
    originals += [_reading(path.name, read_pickled, path, target_of(path.name))
                  for path in found.pickled if wanted(path.name)]
    names = [path.name for path, _ in found.hdf5] + [path.name for path in found.pickled]
    if found.parquet:
        released, release_names = _reading(", ".join(p.name for p in found.parquet), read_parquet_release,
                                           found.parquet, wanted, progress)
        originals += released
        names += [name for name in release_names if target_of(name) is not None]
    unknown = [name for name in only or () if name not in names and name not in {Path(n).stem for n in names}]
    if unknown or not names:
        problem = f"no files named {unknown}" if unknown else "no original ImagineBench files"
        raise OriginalFileError(f"{src_dir}: {problem}; found {sorted(names) or 'none'} "
                                f"(expected names {expected_names()})")
    for original in originals:
        _reading(original.name, check_original, original, doing="checked")
    return sorted(originals, key=lambda original: (original.name, original.format))


def _reading(name: str, read: Any, *args: Any, doing: str = "read", **kwargs: Any) -> Any:
    """``read(*args, **kwargs)``, any error but a clear one (or a lack of memory) turned into one line
    on the file(s) ``name``."""
    try:
        return read(*args, **kwargs)
    except (OriginalFileError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as error:  # noqa: BLE001 - a malformed file must never end in a traceback
        raise OriginalFileError(f"{name}: could not be {doing}: an unexpected {type(error).__name__} "
                                f"({one_line(error)}); expected a file in the original release's "
                                "layout") from error


def _refuse_duplicates(originals: list[OriginalFile], namespace: str) -> None:
    seen: dict[DatasetId, OriginalFile] = {}
    for original in originals:
        dataset_id = original.target.dataset_id(namespace)
        if dataset_id in seen:
            first = seen[dataset_id]
            raise OriginalFileError(
                f"{first.name} ({first.format}) and {original.name} ({original.format}) both become "
                f"{dataset_id}; import one of them (--only NAME, or move the other out of the folder)")
        seen[dataset_id] = original


def _check_all(originals: list[OriginalFile], unmatched: str, encodings: EncodingTable, encoder: object,
               progress: bool) -> list[_Checked]:
    simulators: dict[str, Simulator] = {}
    checked = []
    for original in originals:
        domain = get_domain(original.target.domain)
        if domain.name not in simulators:
            simulators[domain.name] = domain.simulator()
        conversion = _reading(original.name, convert, original, domain, simulators[domain.name],
                              unmatched=unmatched, encodings=encodings, encoder=encoder, progress=progress,
                              doing="checked")
        checked.append(_Checked(original, domain, conversion, encodings.paths))
    return checked


def _provenance(item: _Checked, src_dir: Path, started: float) -> dict[str, Any]:
    original, conversion = item.original, item.conversion
    return {
        "generator": "original ImagineBench release",
        "checkpoint_hash": None,
        "original_file": original.name,
        "format": original.format,
        "sha256": {str(p.relative_to(src_dir)) if p.is_relative_to(src_dir) else str(p): sha256(p)
                   for p in original.paths},
        "stored_observation_width": original.stored_width,
        "rows_read": original.rows,
        "rows_kept": len(conversion.episodes),
        "rows_too_short": len(conversion.too_short),
        "rows_unresolved_kept": len(conversion.unresolved) if conversion.unresolved_kept else 0,
        "rows_unresolved_dropped": 0 if conversion.unresolved_kept else len(conversion.unresolved),
        "resolution": conversion.resolution,
        "encoding_files": [p.name for p in item.encodings],
        "rows_final_state_simulated": len(conversion.simulated),
        "final_state": conversion.final_state,
        "import_seconds": round(time.perf_counter() - started, 1),
    }


def _write(item: _Checked, namespace: str, force: bool, cards_dir: Path, src_dir: Path,
           progress: bool) -> ImportResult:
    original, conversion = item.original, item.conversion
    dataset_id = item.dataset_id(namespace)
    started = time.perf_counter()
    published = publish(
        dataset_id, conversion.episodes, item.domain, scale=SCALE,
        provenance=lambda: _provenance(item, src_dir, started), notes=IMPORT_NOTES,
        description=f"{original.name} of the original ImagineBench release, imported: "
        f"{len(conversion.episodes)} of its {original.rows} trajectories.",
        cards_dir=cards_dir, total=len(conversion.episodes), force=force, progress=progress)
    return ImportResult(original.name, original.format, dataset_id, original.rows, "written",
                        len(conversion.episodes), published.card, published.card_files,
                        conversion.resolution, conversion.unresolved_kept, item.illegal_states())


def _check_namespace(namespace: str) -> None:
    if namespace == NAMESPACE:  # found 2026-12-06: its cards would have gone over the committed ones
        raise ValueError(f"namespace {namespace!r} holds the datasets this package builds (and cards/ their "
                         f"cards); import into another, e.g. the default {DEFAULT_NAMESPACE!r}")
    try:
        DatasetId.parse(f"{namespace}/any-train-real-v0")
    except DatasetIdError as error:
        raise ValueError(f"malformed namespace {namespace!r}: expected 2 or more letters, digits, '_' or '-'"
                         ) from error


def import_dir(src_dir: Path | str, *, namespace: str = DEFAULT_NAMESPACE, force: bool = False,
               cards_dir: Path | None = None, only: list[str] | None = None, unmatched: str = "keep",
               encodings: list[Path | str] | None = None, encoder: object = "minilm",
               check_only: bool = False, progress: bool = True) -> list[ImportResult]:
    """Import the original files under ``src_dir`` as ``<namespace>/<domain>-<level>-<source>-v0``.

    ``only`` keeps the files of these names (or stems); ``unmatched`` is "keep", "skip" or
    "error" for trajectories whose task no rung resolves (see ``convert``); ``encodings``
    are the original's encoding files (``*_encode.npy``) that turn stored encodings back into
    text; ``encoder`` is the embedding rung's sentence encoder (None leaves the rung out);
    ``check_only`` reads and checks without writing. Cards go to ``cards_dir`` (default ``cards/<namespace>/``
    of this checkout, so that they never overwrite the built datasets' cards). Raises
    ``OriginalFileError`` (naming file and key) or ``DatasetExistsError`` before anything is
    written.
    """
    if unmatched not in UNMATCHED_RULES:
        raise ValueError(f"unmatched must be one of {UNMATCHED_RULES}, got {unmatched!r}")
    src_dir = Path(src_dir)
    _check_namespace(namespace)
    if not check_only:  # before the reading and checking, which can take minutes
        check_datasets_folder()
        if cards_dir is not None:
            check_cards_dir(Path(cards_dir))
    table = _reading(", ".join(str(p) for p in encodings or ()) or "encodings", EncodingTable,
                     [Path(p).expanduser() for p in encodings or ()])
    originals = read_originals(src_dir, only, progress)
    _refuse_duplicates(originals, namespace)
    checked = _check_all(originals, unmatched, table, encoder, progress)
    if check_only:
        return [ImportResult(item.original.name, item.original.format, item.dataset_id(namespace),
                             item.original.rows, "checked", len(item.conversion.episodes),
                             resolution=item.conversion.resolution,
                             unresolved_kept=item.conversion.unresolved_kept,
                             illegal_states=item.illegal_states())
                for item in checked]
    existing = existing_versions(item.dataset_id(namespace) for item in checked)
    if existing and not force:
        raise DatasetExistsError(f"dataset(s) {', '.join(existing)} already exist; pass --force "
                                 "(force=True in Python) to replace them")
    return [_write(item, namespace, force, cards_dir or default_cards_dir(item.dataset_id(namespace)),
                   src_dir, progress) for item in checked]
