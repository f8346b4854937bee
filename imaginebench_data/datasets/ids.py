"""Dataset ids ``imaginebench/<domain>-<level>-<source>-v<N>`` and where they live on disk."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

NAMESPACE = "imaginebench"
ID_PATTERN = re.compile(
    r"^(?P<namespace>[\w-]{2,})/(?P<domain>[a-z0-9]+)-(?P<level>train|rephrase|easy|hard)"
    r"-(?P<source>real|imaginary)-v(?P<version>\d+)$"
)


@dataclass(frozen=True)
class DatasetId:
    namespace: str
    domain: str
    level: str
    source: str
    version: int

    @property
    def name(self) -> str:
        """The file-name part, e.g. ``clevr-train-real-v0``."""
        return f"{self.domain}-{self.level}-{self.source}-v{self.version}"

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def parse_id(dataset_id: str) -> DatasetId:
    match = ID_PATTERN.match(dataset_id)
    if match is None:
        raise ValueError(
            f"malformed dataset id {dataset_id!r}: expected "
            f"'{NAMESPACE}/<domain>-<train|rephrase|easy|hard>-<real|imaginary>-v<N>', "
            f"e.g. '{NAMESPACE}/clevr-train-real-v0'"
        )
    fields = match.groupdict()
    return DatasetId(fields["namespace"], fields["domain"], fields["level"], fields["source"],
                     int(fields["version"]))


def datasets_root() -> Path:
    """Minari's local root: ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets`` (read each call)."""
    return Path(os.environ.get("MINARI_DATASETS_PATH") or Path.home() / ".minari" / "datasets")


def dataset_dir(dataset_id: str) -> Path:
    return datasets_root() / str(parse_id(dataset_id))
