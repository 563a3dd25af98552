"""Write the shared chapter code of normbook/ into the notebooks (one way only).

A notebook must run alone (as Colab opens it), so each chapter carries copies of the
code it shares with others; normbook/ is their single source. A code cell tagged
`sync:MODULE` is the whole of normbook/MODULE.py (the grading harness, `sync:grading`,
is one such cell per chapter); one tagged `sync:MODULE:NAME` (one tag per definition;
tags cannot hold commas) holds those top-level definitions, in the order of its tags,
each with the comment lines just above it.

`python -m upkeep.sync` rewrites the copies (then re-run `make execute`);
`--check` only reports the chapters that differ and exits 1 if any does.
"""

import ast
import re
import sys
from pathlib import Path

from upkeep.cells import check_or_update

SOURCES = Path(__file__).resolve().parent.parent / "normbook"
TAG = re.compile(r"^sync:(\w+)(?::(\w+))?$")


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


def synced_source(cell):
    """What the cell must hold, or None if it is no copy."""
    parts = []
    for tag in cell.get("metadata", {}).get("tags", []):
        match = TAG.match(tag)
        if match:
            module, name = match.groups()
            parts.append(definition(module, name) if name else module_source(module))
    return "\n\n\n".join(parts) if parts else None


def sync(notebook, _path):
    changed = False
    for cell in notebook.cells:
        source = synced_source(cell)
        if source is not None and cell.source != source:
            cell.source, changed = source, True
    return changed


if __name__ == "__main__":
    sys.exit(
        check_or_update(
            sync,
            sys.argv[1:],
            "{name}: shared code differs from normbook/; run `make sync`",
            "updated {name} (run `make execute NB=notebooks/{name}`)",
        )
    )
