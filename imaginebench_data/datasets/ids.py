"""Dataset ids ``<namespace>/<domain>-<level>-<source>-v<N>``, parsed once, strictly, and where
they live on disk."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.episode import SOURCES
from ..core.task import LEVELS

NAMESPACE = "imaginebench"
_ID = re.compile(
    rf"(?P<namespace>[A-Za-z0-9_-]{{2,}})/(?P<domain>[a-z][a-z0-9]*)-(?P<level>{'|'.join(LEVELS)})"
    rf"-(?P<source>{'|'.join(SOURCES)})-v(?P<version>0|[1-9][0-9]*)",
    re.ASCII,
)


class GivenText:
    """A mixin of the errors that carry what the user gave (``given``, for a "did you mean"),
    pickled whole, ``given`` too: a worker's error crosses processes."""

    def __init__(self, message: str, given: object = None) -> None:
        super().__init__(message)
        self.given = given

    def __reduce__(self):
        return type(self), (self.args[0], self.given)

    def __str__(self) -> str:  # the message as given (a KeyError would quote it)
        return str(self.args[0])


class DatasetIdError(GivenText, ValueError):
    """A string that is not a dataset id; the message shows what was given and what is expected
    (``given``: the text)."""


@dataclass(frozen=True, order=True)
class DatasetId:
    """A parsed dataset id, e.g. ``DatasetId.parse("imaginebench/clevr-train-real-v0")``."""

    namespace: str
    domain: str
    level: str
    source: str
    version: int

    @classmethod
    def parse(cls, text: str | DatasetId) -> DatasetId:
        """Parse ``text`` strictly: ASCII only, no surrounding white space, version digits
        without leading zeros. A ``DatasetId`` is returned as it is."""
        if isinstance(text, DatasetId):
            return text
        if not isinstance(text, str):
            raise DatasetIdError(f"a dataset id is a string such as '{NAMESPACE}/clevr-train-real-v0'; got "
                                 f"{type(text).__name__} {text!r}", given=text)
        match = _ID.fullmatch(text)
        if match is None:
            raise DatasetIdError(
                f"malformed dataset id {text!r}: expected '<namespace>/<domain>-<level>-<source>-v<N>' "
                f"with level one of {'|'.join(LEVELS)}, source one of {'|'.join(SOURCES)} and N a "
                f"version number without leading zeros, e.g. '{NAMESPACE}/clevr-train-real-v0'", given=text)
        fields = match.groupdict()
        return cls(fields["namespace"], fields["domain"], fields["level"], fields["source"],
                   int(fields["version"]))

    @property
    def name(self) -> str:
        """The file-name part, e.g. ``clevr-train-real-v0``."""
        return f"{self.domain}-{self.level}-{self.source}-v{self.version}"

    def with_(self, **changes) -> DatasetId:
        """This id with some parts changed (checked again), e.g. ``with_(source="imaginary")``."""
        parts = {"namespace": self.namespace, "domain": self.domain, "level": self.level,
                 "source": self.source, "version": self.version, **changes}
        return DatasetId.parse(f"{parts['namespace']}/{parts['domain']}-{parts['level']}-{parts['source']}"
                               f"-v{parts['version']}")

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def datasets_root() -> Path:
    """Minari's local root: ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets`` (read each call).

    A root that is a file, or lies under one, is refused here in one line naming the file (Minari
    itself says only "[Errno 17] File exists")."""
    named = os.environ.get("MINARI_DATASETS_PATH")
    if named is not None and not named.strip():  # Minari would take it as the path '' (no such file)
        raise NotADirectoryError(f"MINARI_DATASETS_PATH is set but empty ({named!r}): expected a folder; "
                                 "unset it for Minari's default, ~/.minari/datasets")
    root = Path(named or Path.home() / ".minari" / "datasets")
    for place in (root, *root.parents):
        if place.exists():
            if not place.is_dir():
                variable = "MINARI_DATASETS_PATH" if named else "Minari's root"
                raise NotADirectoryError(f"{variable} is {str(root)!r}: expected a folder (or a path one can "
                                         f"be made at), but {str(place)!r} is a file")
            break
    return root


def dataset_dir(dataset_id: str | DatasetId) -> Path:
    return datasets_root() / str(DatasetId.parse(dataset_id))
