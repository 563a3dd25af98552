"""Write the shared chapter code of normbook/ into the notebooks (one way only).

A notebook must run alone (as Colab opens it), so each chapter carries copies of the
code it shares with others; normbook/ is their single source. A code cell tagged
`sync:MODULE` is the whole of normbook/MODULE.py (the grading harness, `sync:grading`,
is one such cell per chapter); one tagged `sync:MODULE:NAME` (one tag per definition;
tags cannot hold commas) holds those top-level definitions, in the order of its tags,
each with the comment lines just above it.

Stored measurements are shared the same way: a cell tagged `sync:data:NAME` (one tag
per file, in order; NAME is a file of book/assets/measurements/ without .json, e.g.
`sync:data:gpu-h200`) is written from those files by the formatter that
measure/stored.py lists for them, the one place that says how a chapter shows them.
The Markdown cell tagged `sync:run-time` under each chapter's title states its measured
run time, from book/assets/measurements/run-times.json: `make execute` measures it and
writes the line; after `make bench` or `python -m upkeep.variant run-times`, `make sync`
writes it.

`python -m upkeep.sync` rewrites the copies (then re-run `make execute`);
`--check` only reports the chapters that differ and exits 1 if any does.
"""

import ast
import re
import sys
from pathlib import Path

from measure import stored
from upkeep.cells import check_or_update

SOURCES = Path(__file__).resolve().parent.parent / "normbook"
TAG = re.compile(r"^sync:(\w+)(?::(\w+))?$")
DATA_TAG = re.compile(r"^sync:data:([\w.-]+)$")
RUN_TIME = "sync:run-time"  # a Markdown cell: the chapter's measured run time


def module_source(module):
    path = SOURCES / f"{module}.py"
    if not path.exists():
        raise SystemExit(f"sync: no shared module {path.name} in normbook/")
    return path.read_text(encoding="utf-8").rstrip("\n")


def definition(module, name):
    """A top-level definition of a module, with its decorators and the comment lines
    just above it."""
    source = module_source(module)
    lines = source.split("\n")
    for node in ast.parse(source).body:
        targets = getattr(node, "targets", [getattr(node, "target", None)])
        names = [getattr(node, "name", None)] + [
            getattr(t, "id", None) for t in targets
        ]
        if name in names:
            decorators = [d.lineno for d in getattr(node, "decorator_list", [])]
            start = min([node.lineno, *decorators]) - 1
            while start > 0 and lines[start - 1].startswith("#"):
                start -= 1
            return "\n".join(lines[start : node.end_lineno])
    raise SystemExit(f"sync: normbook/{module}.py defines no {name}")


def synced_source(cell, chapter):
    """What the cell must hold, or None if it is no copy."""
    tags = cell.get("metadata", {}).get("tags", [])
    if RUN_TIME in tags:
        return stored.run_time_line(chapter)
    data = [m.group(1) for m in map(DATA_TAG.match, tags) if m]
    parts = []
    for tag in tags:
        match = TAG.match(tag)
        if match and not DATA_TAG.match(tag):
            module, name = match.groups()
            parts.append(definition(module, name) if name else module_source(module))
    if data and parts:
        raise SystemExit(
            f"sync: a cell tagged sync:data:{data[0]} holds shared code too"
        )
    if data:
        return stored.cell_source(data)
    return "\n\n\n".join(parts) if parts else None


def sync(notebook, path):
    changed = False
    for cell in notebook.cells:
        source = synced_source(cell, Path(path).stem)
        if source is not None and cell.source != source:
            cell.source, changed = source, True
    return changed


if __name__ == "__main__":
    sys.exit(
        check_or_update(
            sync,
            sys.argv[1:],
            "{name}: shared code or data differs from its source; run `make sync`",
            "updated {name} (if a code cell changed: `make execute NB=notebooks/{name}`)",
        )
    )
