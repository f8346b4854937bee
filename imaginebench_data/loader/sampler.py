"""Mixed batches from several datasets at fixed ratios: ``Sampler({ds: ratio}, ...)``.

Every dataset gets the whole part of its share of each batch (``floor(ratio * batch_size)``
rows); the rows left over, when the shares are not whole, go one each to datasets drawn with
probability their fractional share (systematic sampling), so every dataset gets exactly
``ratio * batch_size`` rows on average, even in batches of one. Rows are drawn uniformly with
replacement among the dataset's transitions that pass ``filters``. Instruction embeddings are
not stored per step: the sampler keeps one table of the unique instructions of all datasets,
encodes it once, and joins rows into the batch by index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.devices import torch_device
from .encoders import DEFAULT_ENCODER, Encoder, cached_encode, get_encoder
from .filters import FILTERS, PRESETS, kept_rows, resolve_filters
from .transitions import Transitions, default_cache_dir, load

__all__ = ["Sampler", "leftover_rows", "FILTERS", "PRESETS"]

_LARGE_BATCH = 256 << 20  # bytes of a batch past which the memory available is checked
_MEMORY_SHARE = 0.8  # of the memory available, the most a batch may take (the process needs the rest)


def leftover_rows(ratios: Sequence[float], total: int, rng: np.random.Generator) -> np.ndarray:
    """Split ``total`` into integers whose mean over draws is exactly ``ratios`` (normalised) times
    ``total``: each part gets ``floor(share)``, and the ``L`` rows left over go to parts chosen by
    systematic sampling (one uniform number ``u``; the points ``u, u + 1, ..., u + L - 1`` fall on
    the fractional remainders laid end to end, each shorter than 1, so part k gets one extra row
    with probability exactly its remainder). Draws from ``rng`` only when ``L > 0``. Found
    2026-12-06: largest-remainder rounding gave a 1:1 Sampler's batches of one row always from
    its first dataset."""
    weights = np.asarray(ratios, dtype=np.float64)
    shares = weights / weights.sum() * total
    counts = np.floor(shares).astype(np.int64)
    left = total - int(counts.sum())
    if left > 0:
        remainders = np.cumsum(shares - counts)
        points = rng.random() * remainders[-1] / left + remainders[-1] / left * np.arange(left)
        counts += np.bincount(np.searchsorted(remainders, points, side="right"), minlength=len(counts))
    return counts


class Sampler:
    """Batches mixing ``datasets`` at fixed ratios.

    Args:
        datasets: ``{Transitions or dataset id: ratio}``; ratios are non-negative and normalised.
            Ids are loaded with ``load(id, cache_dir=cache_dir)``. Source ``k`` is the k-th key.
        encoder: ``"minilm"``, a local model directory, an encoder object, or ``None`` for no
            ``instruction_embeddings`` in batches.
        filters: flags from ``FILTERS`` or presets from ``PRESETS`` (``"clean"``: legal and goal
            consistent); a transition is kept when all its flags are True. The default, none,
            keeps every transition, illegal and goal-inconsistent imagined ones included (see
            ``loader/filters.py``; the cards give their shares).
        seed: seed of the sampler's random generator.
        cache_dir: the loader's cache folder (default ``default_cache_dir()``): the transitions
            of datasets given by id, and a Hugging Face encoder's embeddings of the instructions
            (see ``encoders.cached_encode``), so that a later start loads no model.

    Attributes:
        names: ``dataset_id`` of each dataset (suffixed ``#k`` when repeated).
        ratios: ``(S,)`` normalised ratios.
        counts: ``{name: transitions left after filters}``; ``sizes`` the same before filters.
        instructions: the unique instructions of all datasets, sorted (the embedding table rows).
        embeddings: ``(U, E)`` float32 table, row u embeds ``instructions[u]`` (None without encoder).
    """

    def __init__(self, datasets: Mapping[Transitions | str, float], encoder: Any = DEFAULT_ENCODER,
                 filters: Sequence[str] = (), seed: int = 0, cache_dir: str | None = None):
        if not isinstance(datasets, Mapping):
            raise TypeError(f"Sampler takes a dict of datasets (ids or Transitions) to their ratios, e.g. "
                            f"{{'imaginebench/clevr-train-real-v0': 1.0}}; got a {type(datasets).__name__}")
        if not datasets:
            raise ValueError("Sampler needs at least one dataset")
        ratios = []
        for name, ratio in datasets.items():
            if isinstance(ratio, bool) or not isinstance(ratio, (int, float, np.integer, np.floating)):
                raise TypeError(f"the ratio of {getattr(name, 'dataset_id', name)!r} must be a number, "
                                f"got {ratio!r}")
            ratios.append(float(ratio))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.filters = resolve_filters(filters)
        self.datasets = [s if isinstance(s, Transitions) else load(s, cache_dir=cache_dir) for s in datasets]
        ratios = np.asarray(ratios, dtype=np.float64)
        if np.any(~np.isfinite(ratios)) or np.any(ratios < 0) or ratios.sum() <= 0:
            raise ValueError(f"ratios must be finite, non-negative and not all zero, got {ratios.tolist()}")
        self.ratios = ratios / ratios.sum()
        self.names = _unique_names([t.dataset_id for t in self.datasets])
        self._check_compatible()
        self.valid = [self._filtered(name, t, ratio)
                      for name, t, ratio in zip(self.names, self.datasets, self.ratios)]
        self.sizes = {name: len(t) for name, t in zip(self.names, self.datasets)}
        self.counts = {name: len(v) for name, v in zip(self.names, self.valid)}
        self.instructions = sorted(set().union(*(t.instructions for t in self.datasets)))
        position = {text: u for u, text in enumerate(self.instructions)}
        # Per dataset: local instruction id -> row of the shared table.
        self._to_table = [np.asarray([position[s] for s in t.instructions], dtype=np.int64)
                          for t in self.datasets]
        self.encoder: Encoder | None = get_encoder(encoder)
        self.embeddings = None
        if self.encoder is not None:
            table = cached_encode(self.encoder, self.instructions, cache_dir or default_cache_dir())
            self.embeddings = np.asarray(table, dtype=np.float32)
        self.discrete = np.issubdtype(self.datasets[0].actions.dtype, np.integer)
        self.rng = np.random.default_rng(seed)
        self._every = [len(v) == len(t) for v, t in zip(self.valid, self.datasets)]  # no row filtered out
        self._source_ids = np.arange(len(self.datasets), dtype=np.int64)
        self._split_cache: dict[int, np.ndarray] = {}
        self._devices: dict[Any, Any] = {}
        self._numpy_columns = [{key: getattr(t, key) for key in _BATCH_KEYS} for t in self.datasets]
        self._torch_ready: list[dict[str, np.ndarray]] | None = None
        # bytes of one batch row, at most (float32 flags in torch batches; dataset and index ids)
        first_row = [column[0] for column in self._numpy_columns[0].values()]
        self._row_bytes = (sum(max(value.nbytes, value.size * 4) for value in first_row) + 16
                           + (0 if self.embeddings is None else self.embeddings[0].nbytes))

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}: {r:.3g} ({self.counts[n]})" for n, r in zip(self.names, self.ratios))
        return f"Sampler({parts}; filters={self.filters})"

    def _check_compatible(self) -> None:
        first = self.datasets[0]
        for name, t in zip(self.names[1:], self.datasets[1:]):
            if t.observations.shape[1:] != first.observations.shape[1:]:
                raise ValueError(f"dataset {name!r} has states of shape {t.observations.shape[1:]}, "
                                 f"{self.names[0]!r} has {first.observations.shape[1:]}")
            same_kind = np.issubdtype(t.actions.dtype, np.integer) == np.issubdtype(first.actions.dtype,
                                                                                      np.integer)
            if not same_kind or t.actions.shape[1:] != first.actions.shape[1:]:
                raise ValueError(f"dataset {name!r} has actions {t.actions.dtype}{t.actions.shape[1:]}, "
                                 f"{self.names[0]!r} has {first.actions.dtype}{first.actions.shape[1:]}")

    def _filtered(self, name: str, transitions: Transitions, ratio: float) -> np.ndarray:
        """``(n_k,)`` int64 row indices of ``transitions`` that pass every filter (a dataset of
        ratio 0 is never drawn from, so filters may leave it empty)."""
        if len(transitions) == 0:
            raise ValueError(f"dataset {name!r} has no transitions")
        return kept_rows(transitions, self.filters, name, allow_empty=ratio == 0)

    def split(self, batch_size: int) -> dict[str, float]:
        """How many rows of a batch of ``batch_size`` come from each dataset: ``ratio *
        batch_size``, an int when whole (every batch), else the mean over batches (a batch
        gives its floor or one more, see ``leftover_rows``)."""
        _check_batch_size(batch_size)
        whole = self._whole_shares(batch_size)
        shares = (self.ratios * batch_size).tolist() if whole is None else whole.tolist()
        return dict(zip(self.names, shares))

    def sample(self, batch_size: int, device: Any = None, as_numpy: bool = False,
               with_index: bool = False) -> dict[str, Any]:
        """One batch of ``batch_size`` (B) transitions, rows grouped by dataset in dataset order.

        Keys (row b of every array describes the same transition):
        ``observations``/``next_observations`` (B, D), ``actions`` (B,) or (B, A), ``rewards``,
        ``terminals``, ``timeouts`` (B,), ``instruction_embeddings`` (B, E) (only with an
        encoder), ``dataset`` (B,) index into ``names``, and with ``with_index`` also ``index`` (B,),
        the row of each transition in its dataset's ``Transitions``. With ``as_numpy`` the arrays keep their
        dtypes (float32 states and rewards, bool flags, int64 discrete actions and dataset);
        otherwise they are torch tensors on ``device``: float32, except ``actions`` (long when
        discrete) and ``dataset`` (long).
        """
        _check_batch_size(batch_size)
        _check_fits(batch_size, self._row_bytes)
        picks = self._picks(batch_size)
        # The same draws as valid[rng.integers(len(valid), n)]; without filters valid is 0..n-1.
        chosen = []
        for valid, n, every in zip(self.valid, picks, self._every):
            rows = self.rng.integers(len(valid), size=n)
            chosen.append(rows if every else valid[rows])
        columns = self._numpy_columns if as_numpy else self._torch_columns()
        # ndarray.take: a fresh array, and half the time of fancy indexing for a batch of a few
        # hundred rows; the method, not np.take, whose wrapper costs ~2 us a call (six a batch)
        if len(chosen) == 1:  # one dataset: gather straight into the batch
            rows = chosen[0]
            batch = {key: column.take(rows, axis=0) for key, column in columns[0].items()}
        else:
            batch = {key: _gather_parts([source[key] for source in columns], chosen) for key in _BATCH_KEYS}
        if self.embeddings is not None:
            table_rows = [m[t.instruction_ids[rows]]
                          for t, m, rows in zip(self.datasets, self._to_table, chosen)]
            table_rows = table_rows[0] if len(table_rows) == 1 else np.concatenate(table_rows)
            batch["instruction_embeddings"] = self.embeddings.take(table_rows, axis=0)
        batch["dataset"] = (np.zeros(batch_size, np.int64) if len(picks) == 1
                            else np.repeat(self._source_ids, picks))
        if with_index:
            batch["index"] = np.concatenate(chosen).astype(np.int64, copy=False)
        if as_numpy:
            return batch
        # Every array is freshly gathered in its tensor's dtype, so torch takes it without a copy.
        from_numpy = _torch().from_numpy
        if device is None:
            return {key: from_numpy(value) for key, value in batch.items()}
        if device not in self._devices:  # checked once per device named
            self._devices[device] = torch_device(device)
        device = self._devices[device]
        return {key: from_numpy(value).to(device) for key, value in batch.items()}

    def _picks(self, batch_size: int) -> np.ndarray:
        """Rows per dataset for one batch: the same each batch when every share is whole (kept
        per batch size, no draw), else ``leftover_rows``'s draw."""
        picks = self._split_cache.get(batch_size)
        if picks is None:
            picks = self._whole_shares(batch_size)
            if picks is None:
                return leftover_rows(self.ratios, batch_size, self.rng)
            self._split_cache[batch_size] = picks
        return picks

    def _whole_shares(self, batch_size: int) -> np.ndarray | None:
        """``(S,)`` int64 rows per dataset when every ``ratio * batch_size`` is whole (to 1e-9),
        else None."""
        shares = self.ratios * batch_size
        rounded = np.round(shares)
        return rounded.astype(np.int64) if np.allclose(shares, rounded, rtol=0, atol=1e-9) else None

    def _torch_columns(self) -> list[dict[str, np.ndarray]]:
        """Per dataset, the batch arrays in their tensors' dtypes (float32, int64 discrete
        actions), converted once on the first torch batch (the flags take 4 bytes a row)."""
        if self._torch_ready is None:
            def dtype(key: str) -> type:
                return np.int64 if key == "actions" and self.discrete else np.float32

            self._torch_ready = [{key: column.astype(dtype(key), copy=False)
                                  for key, column in source.items()} for source in self._numpy_columns]
        return self._torch_ready


def _check_batch_size(batch_size: int) -> None:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 0:
        raise ValueError(f"batch_size must be a non-negative integer, got {batch_size!r}")


def _check_fits(batch_size: int, row_bytes: int) -> None:
    """Refuse, in one line, a batch past ``_MEMORY_SHARE`` of the memory available (checked only
    past ``_LARGE_BATCH``: the check reads the system's figures, slow beside a usual batch).
    Found 2026-12-06: ``sample(10**7)`` on Meta-World's training set, 21.5 GiB of 22 available,
    was killed by the kernel with the process's own memory on top."""
    needed = batch_size * row_bytes
    if needed > _LARGE_BATCH:
        import psutil

        available = psutil.virtual_memory().available
        if needed > _MEMORY_SHARE * available:
            raise MemoryError(f"a batch of {batch_size:,} rows takes about {needed / 2**30:.1f} GiB "
                              f"({row_bytes:,} bytes a row), more than {_MEMORY_SHARE:.0%} of the "
                              f"{available / 2**30:.1f} GiB of memory available: sample smaller batches")


def _gather_parts(columns: list[np.ndarray], rows: list[np.ndarray]) -> np.ndarray:
    """``concatenate([take(column, r) for ...])`` gathered straight into one array: each dataset
    fills its slice of the batch, one copy instead of two. Columns of different dtypes (numpy
    batches of datasets stored differently) are concatenated, promoting as numpy does."""
    first = columns[0]
    if any(column.dtype != first.dtype for column in columns[1:]):
        return np.concatenate([column.take(r, axis=0) for column, r in zip(columns, rows)])
    out = np.empty((sum(len(r) for r in rows),) + first.shape[1:], dtype=first.dtype)
    start = 0
    for column, r in zip(columns, rows):
        # mode="clip": every row is in range (drawn below each dataset's length), and "raise"
        # would gather through a temporary buffer
        column.take(r, axis=0, out=out[start:start + len(r)], mode="clip")
        start += len(r)
    return out


def _torch():
    import torch  # on the first torch batch: a numpy-only user never imports it

    return torch


_BATCH_KEYS = ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts")


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name] - 1}")
    return out
