"""Import the original ImagineBench release (HDF5, pickled .npy, or the Parquet re-release).

    results = import_dir("~/imaginebench-files")   # -> imaginebench-original/<domain>-<level>-<source>-v0

One concept per file: ``names`` (file name -> domain, level, source), ``original`` (an
original file once read, and the checks every layout shares), ``hdf5`` / ``pickled`` /
``parquet`` (the three layouts; ``unpickle`` reads pickles without running them),
``resolve`` (trajectory -> our task), ``convert`` (trajectories -> checked episodes, in the
domain's state layout), ``limits`` (the memory one file may take: 4 GiB of arrays, or
``IMAGINEBENCH_IMPORT_MAX_BYTES``; no declared size is trusted before the bytes behind it are
counted) and ``importer`` (all files validated first, then written and carded).
"""

from __future__ import annotations

from .importer import DEFAULT_NAMESPACE, ImportResult, import_dir, read_originals
from .original import OriginalFileError
from .unpickle import UnsafePickleError

__all__ = ["import_dir", "read_originals", "ImportResult", "OriginalFileError", "UnsafePickleError",
           "DEFAULT_NAMESPACE"]
