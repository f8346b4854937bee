"""Frames to files: a labelled PNG strip (frames side by side) or an animated GIF, with Pillow."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BAND = 16  # pixels of text above each frame and above the strip
GAP = 4  # white pixels between frames
BACKGROUND = (255, 255, 255)
TEXT = (0, 0, 0)


def _labelled(frame: np.ndarray, label: str):
    """One frame under a white band holding ``label``."""
    from PIL import Image, ImageDraw

    height, width = frame.shape[:2]
    image = Image.new("RGB", (width, height + BAND), BACKGROUND)
    image.paste(Image.fromarray(frame), (0, BAND))
    ImageDraw.Draw(image).text((3, 2), label, fill=TEXT)
    return image


def strip_image(frames: list[np.ndarray], labels: list[str], title: str):
    """A Pillow image: ``title`` on top, then the frames left to right, each under its label.
    Its size is ``(W * n + GAP * (n - 1), H + 2 * BAND)`` for n frames of ``(H, W, 3)``."""
    from PIL import Image, ImageDraw

    height, width = frames[0].shape[:2]
    strip = Image.new("RGB", (width * len(frames) + GAP * (len(frames) - 1), height + 2 * BAND), BACKGROUND)
    ImageDraw.Draw(strip).text((3, 2), title, fill=TEXT)
    for k, (frame, label) in enumerate(zip(frames, labels)):
        strip.paste(_labelled(frame, label), (k * (width + GAP), BAND))
    return strip


def write_strip(frames: list[np.ndarray], labels: list[str], title: str, path: Path) -> Path:
    """Write ``strip_image`` as a PNG to ``path``; returns it."""
    strip_image(frames, labels, title).save(path, format="PNG")
    return path


def write_gif(frames: list[np.ndarray], labels: list[str], path: Path, fps: float = 5.0) -> Path:
    """Write the frames, each under its label, as a looping GIF of ``fps`` frames a second."""
    images = [_labelled(frame, label) for frame, label in zip(frames, labels)]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:],
                   duration=int(1000 / fps), loop=0)
    return path
