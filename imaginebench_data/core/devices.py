"""The torch device a caller names, checked before anything is placed on it."""

from __future__ import annotations

from typing import Any


def torch_device(device: Any):
    """``device`` (a string such as ``"cpu"``, ``"cuda:1"``, or a ``torch.device``) as a
    ``torch.device`` this process can use. A name torch does not know, or an accelerator this
    torch build or machine lacks, raises one ``ValueError`` line naming it and what there is,
    instead of torch's own (``AssertionError: Torch not compiled with CUDA enabled``)."""
    import torch

    try:
        checked = device if isinstance(device, torch.device) else torch.device(device)
    except (RuntimeError, TypeError) as error:
        found = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"device {device!r}: expected a torch device such as 'cpu', 'cuda' or "
                         f"'cuda:0' ({found})") from None
    if checked.type == "cuda":
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else "no GPU visible"
            raise ValueError(f"device {device!r}: this torch ({torch.__version__}, {build}) has "
                             "no CUDA device; use 'cpu'")
        count = torch.cuda.device_count()
        if checked.index is not None and checked.index >= count:
            raise ValueError(f"device {device!r}: only {count} CUDA device(s) here "
                             f"(cuda:0{f' to cuda:{count - 1}' if count > 1 else ''})")
    elif checked.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device {device!r}: MPS is not available here; use 'cpu'")
    return checked
