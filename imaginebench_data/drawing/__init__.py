"""Pictures of stored episodes, real or imagined: ``draw_episode(id, n)`` writes episode ``n``
of a local dataset as a PNG strip of a few states or as a GIF of them (``imaginebench render``
and the cards' ``<name>-episode.png``). See ``frames.py`` for how a state becomes an image."""

from __future__ import annotations

from pathlib import Path

from ..core.folders import check_writable
from .frames import drawing_simulator, episode_frames, frame_steps
from .images import strip_image, write_gif, write_strip


def draw_episode(dataset_id: str, episode: int, path: Path | None = None, *, every: int | None = None,
                 gif: bool = False, most: int = 8) -> Path:
    """Write episode ``episode`` (0-based, in Minari's order) of local dataset ``dataset_id``.

    A PNG strip of its states 0, k, 2k, ... and the last (k = ``every``; without it, ``most``
    states spread evenly from the first to the last), or with ``gif`` a GIF of them (k =
    ``every`` or 1). ``path`` defaults to ``<name>-episode<n>.png`` (``.gif``) in the working
    folder, and to that name in ``path`` where it is a folder or a name without a suffix; a file
    name must end in .png, or .gif with ``gif``. Folders missing are made when the picture is
    written. Returns the path. An episode out of range is a ValueError naming the range."""
    from ..datasets.ids import DatasetId
    from ..datasets.read import open_dataset, stored_episodes
    from ..domains import get_domain

    suffix = ".gif" if gif else ".png"
    path = Path(path or ".")
    if path.is_dir() or not path.suffix:  # a folder, made (with its parents) when the picture is written
        path = path / f"{DatasetId.parse(dataset_id).name}-episode{episode}{suffix}"
    elif path.suffix.lower() != suffix:
        raise ValueError(f"{path}: expected a file name ending in {suffix} (a {suffix[1:].upper()} is written"
                         f"{'' if gif else '; --gif, or a .gif name, writes a GIF'}), or a folder")
    check_writable(path.parent, "--out", "the picture")  # before the drawing
    dataset, card = open_dataset(dataset_id)
    count = dataset.total_episodes
    if not 0 <= episode < count:
        raise ValueError(f"episode {episode} is out of range: {dataset_id} has {count} episodes "
                         f"(0 to {count - 1})")
    domain = get_domain(card.domain)
    sim = drawing_simulator(domain)  # before reading: a domain without renderer fails first
    stored = next(stored_episodes(dataset, domain, positions=[episode]))
    steps = frame_steps(len(stored), 1 if gif and every is None else every, most)
    frames = episode_frames(domain, stored, steps, sim)
    labels = [f"t={t}" for t in steps]
    path.parent.mkdir(parents=True, exist_ok=True)
    if gif:
        return write_gif(frames, labels, path)
    success = stored.infos.get("success")
    outcome = "" if success is None else ", goal reached" if success[-1] else ", goal not reached"
    title = (f"{dataset_id} episode {episode} ({stored.source}, {len(stored)} steps{outcome}): "
             f"{stored.instruction}")
    return write_strip(frames, labels, title, path)


__all__ = ["draw_episode", "drawing_simulator", "episode_frames", "frame_steps", "strip_image",
           "write_gif", "write_strip"]
