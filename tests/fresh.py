"""Running code in a fresh Python process, the way a user reads a dataset (no import of ours)."""

import os
import subprocess
import sys
import textwrap


def run_fresh(code: str, minari_root) -> str:
    """stdout of ``code`` (dedented) run by a new interpreter with ``MINARI_DATASETS_PATH`` set."""
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari_root)}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=env, cwd="/")
    assert result.returncode == 0, result.stderr
    return result.stdout


def unpinned_environ(**cpu: str) -> dict[str, str]:
    """This process's environment without portable numerics' pins, naming the kernels ``cpu``
    instead (another CPU's choice): for a fresh process that picks its own."""
    from imaginebench_data.imagine.numerics import PORTABLE_ENV

    return {**{k: v for k, v in os.environ.items() if k not in PORTABLE_ENV}, **cpu}
