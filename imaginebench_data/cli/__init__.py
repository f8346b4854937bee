"""The ``imaginebench`` command: each of its commands calls the library; ``app`` answers a user's
mistake in one line."""

from . import build, datasets, evaluate, ground, imports  # noqa: F401  (each registers its commands)
from .app import app

COMMANDS = ("list", "build", "card", "render", "verify", "inspect", "ground", "numerics", "evaluate",
            "import")  # the order --help lists them in
app.registered_commands.sort(key=lambda command: COMMANDS.index(command.name or command.callback.__name__))

__all__ = ["app"]
