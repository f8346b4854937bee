"""What the datasets in a Minari folder cost: build time (from the card), size on disk, and how
long loading takes, cold and cached, each in a fresh process (as a user's script would).

- cold: ``ib.load`` with an empty cache folder: Minari's read, flattening, the card's checksum
  recomputed, the cache written;
- cached: ``ib.load`` again in another fresh process, reading that cache (its hash checked);
- ``minari.load_dataset``: opening the dataset as Minari's users do (metadata, no episodes).

Usage: MINARI_DATASETS_PATH=DIR python benchmarks/built_datasets.py [IDS...] [--markdown]
Without ids, every imaginebench dataset in the folder. Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from imaginebench_data.datasets.read import data_path, local_ids, read_card

TIMED = """
import json, time
{imports}
start = time.perf_counter()
{statement}
print(json.dumps(time.perf_counter() - start))
"""
LOAD = ("import imaginebench_data as ib", "ib.load({id!r}, cache_dir={cache!r})")
OPEN = ("import minari", "minari.load_dataset({id!r})")


def timed(imports: str, statement: str) -> float:
    """Seconds of ``statement`` in a fresh Python, after its ``imports``."""
    script = TIMED.format(imports=imports, statement=statement)
    result = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure(dataset_id: str, workdir: Path) -> dict:
    card = read_card(dataset_id)
    cache = str(workdir / dataset_id.replace("/", "_"))
    load = (LOAD[0], LOAD[1].format(id=dataset_id, cache=cache))
    return {
        "id": dataset_id, "scale": card.scale, "episodes": card.episodes, "steps": card.steps,
        "build_seconds": card.provenance.get("build_seconds"),
        "megabytes": folder_bytes(data_path(dataset_id).parent) / 1e6,
        "cold_load_s": timed(*load),  # an empty cache folder
        "cached_load_s": timed(*load),  # the cache the cold load wrote
        "minari_open_s": timed(OPEN[0], OPEN[1].format(id=dataset_id)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (default: aligned text)")
    args = parser.parse_args()
    ids = args.ids or sorted(local_ids())
    header = ("id", "scale", "episodes", "steps", "build (s)", "size (MB)", "cold load (s)",
              "cached load (s)", "minari.load_dataset (s)")
    if args.markdown:
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for dataset_id in ids:
            m = measure(dataset_id, Path(tmp))
            cells = (m["id"], m["scale"], m["episodes"], m["steps"], m["build_seconds"],
                     f"{m['megabytes']:.1f}", f"{m['cold_load_s']:.2f}", f"{m['cached_load_s']:.2f}",
                     f"{m['minari_open_s']:.2f}")
            print("| " + " | ".join(map(str, cells)) + " |" if args.markdown
                  else "  ".join(map(str, cells)), flush=True)


if __name__ == "__main__":
    main()
