"""Whether a folder can take the files a command is about to write, asked before the work."""

from __future__ import annotations

import os
from pathlib import Path


def check_writable(folder: Path, what: str, holds: str) -> None:
    """A clear error where ``folder`` (``what``, e.g. "cards folder") cannot hold ``holds``: a
    file there or above it, or a folder that cannot be written (its permissions, or a read-only
    file system, which ``os.access`` reports even to root); makes nothing."""
    folder = Path(folder)
    existing = next(p for p in (folder.absolute(), *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{what} {folder}: expected a folder for {holds}, found a file at "
                         f"{existing}; nothing was written")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(f"{what} {folder}: {existing} cannot be written to; nothing was written")
