"""``python -m imaginebench_data``: the ``imaginebench`` command, run by this interpreter."""

from .cli import app

app(prog_name="imaginebench")
