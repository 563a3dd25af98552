"""Re-execute notebooks in place, each in a fresh kernel, and store their outputs.

Usage: python -m upkeep.execute [notebooks/NN-name.ipynb ...]  (default: all)

Widget state is not stored: the book shows each figure's kernel-free fallback, and a
stored state would make the book load the ipywidgets JavaScript from a CDN. Nor are the
cells' execution timestamps. Consecutive prints of a cell are stored as one output, and a
widget view gets an id derived from its cell, not a random one: otherwise a re-run changes
how the outputs are split and every view's id, and a one-word edit gives a long diff.
Each run's time goes to book/assets/measurements/run-times.json with a digest of the
code it ran, and into the line under the chapter's title (see upkeep/sync.py).
"""

import datetime
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from measure import stored
from upkeep.cells import ROOT, code_digest, run_notebook
from upkeep.sync import RUN_TIME


def execute(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    seconds = run_notebook(notebook, path.parent, timeout=900, store_widget_state=False)
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = stable_outputs(cell)
    load = os.getloadavg()[0]  # over the last minute of the run: other work beside it
    record_run_time(path, notebook, seconds, f"make execute, load {load:.1f}")
    for cell in notebook.cells:  # the line under the title states the new time
        if RUN_TIME in cell.metadata.get("tags", []):
            cell.source = stored.run_time_line(path.stem)
    nbformat.write(notebook, path)
    return seconds


def record_run_time(path, notebook, seconds, how):
    """A chapter's run time into run-times.json, with the digest of the code it ran
    (tests/test_course_plan.py holds the two together) and how and when it was run."""
    data = json.loads(stored.RUN_TIMES.read_text(encoding="utf-8"))
    chapter = Path(path).stem
    data["seconds"][chapter] = round(seconds)
    data["code"][chapter] = code_digest(notebook)
    data["runs"][chapter] = f"{how}, {datetime.date.today()}"
    stored.RUN_TIMES.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


WIDGET = "application/vnd.jupyter.widget-view+json"


def stable_outputs(cell):
    """The cell's outputs with consecutive prints to one stream merged, and widget view
    ids derived from the cell's id (no widget state is stored for them to point to)."""
    outputs = []
    for output in cell.outputs:
        last = outputs[-1] if outputs else None
        if (
            output.output_type == "stream"
            and last is not None
            and last.output_type == "stream"
            and last.name == output.name
        ):
            last.text += output.text
            continue
        if WIDGET in output.get("data", {}):
            key = f"{cell.get('id', '')}-{len(outputs)}".encode()
            output.data[WIDGET]["model_id"] = hashlib.sha256(key).hexdigest()[:32]
        outputs.append(output)
    return outputs


def main(paths):
    paths = [Path(p).resolve() for p in paths] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    if any("load_mnist(" in path.read_text() for path in paths):
        # only the chapters that train on MNIST need it (fetched once, then a no-op)
        subprocess.run(
            [sys.executable, "-m", "upkeep.fetch_mnist"], check=True, cwd=ROOT
        )
    for path in paths:
        print(f"executing {path.name} ...", flush=True)
        print(f"  done in {execute(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
