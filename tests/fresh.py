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
