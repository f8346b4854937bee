"""Errors raised by the loader."""

from __future__ import annotations


class DatasetNotFoundError(KeyError):
    """A dataset id that is not in the local Minari folder.

    The message names the id, the folder searched and the imaginebench ids found there.
    """

    def __init__(self, dataset_id: str, folder: str, available: list[str]):
        self.dataset_id = dataset_id
        self.folder = folder
        self.available = list(available)
        listed = ", ".join(self.available) if self.available else "none"
        self.message = (
            f"dataset {dataset_id!r} was not found in {folder} (set MINARI_DATASETS_PATH to "
            f"search elsewhere); imaginebench datasets available there: {listed}"
        )
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would otherwise print the message quoted
        return self.message
