"""``python -m imaginebench_data.cli``: the ``imaginebench`` command (as ``accelerate launch -m`` runs it)."""

from . import app

app(prog_name="imaginebench")
