"""Write the shared chapter code of normbook/ into the notebooks (one way only).

A notebook must run alone (as Colab opens it), so each chapter carries copies of the
code it shares with others; normbook/ is their single source. Two kinds of copy:

- a code cell tagged `sync:MODULE` is the whole of normbook/MODULE.py; one tagged
  `sync:MODULE:NAME,NAME,...` holds those top-level definitions of the module, in that
  order, each with the comment lines just above it;
- a grade cell holds normbook/grading.py between the lines `# BEGIN GRADING HARNESS`
  and `# END GRADING HARNESS`.

`python scripts/sync.py` rewrites the copies (then re-run `make execute`);
`--check` only reports the chapters that differ and exits 1 if any does.
"""

import ast
import re
import sys
from pathlib import Path

from notebook_code import check_or_update

SOURCES = Path(__file__).resolve().parent.parent / "normbook"
TAG = re.compile(r"^sync:(\w+)(?::([\w,]+))?$")
HARNESS = re.compile(
    r"(^# BEGIN GRADING HARNESS\n).*?(^# END GRADING HARNESS$)", re.S | re.M
)


def module_source(module):
    path = SOURCES / f"{module}.py"
    if not path.exists():
        raise SystemExit(f"sync: no shared module {path.name} in normbook/")
    return path.read_text(encoding="utf-8").rstrip("\n")


def definitions(module, names):
    """The named top-level definitions of a module, each with its comment lines."""
    source = module_source(module)
    lines = source.split("\n")
    found = {}
    for node in ast.parse(source).body:
        targets = getattr(node, "targets", [getattr(node, "target", None)])
        for name in [getattr(node, "name", None)] + [
            getattr(t, "id", None) for t in targets
        ]:
            if name in names:
                start = node.lineno - 1
                while start > 0 and lines[start - 1].startswith("#"):
                    start -= 1
                found[name] = "\n".join(lines[start : node.end_lineno])
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit(f"sync: normbook/{module}.py defines no {', '.join(missing)}")
    return "\n\n\n".join(found[n] for n in names)


def synced_source(cell):
    """What the cell must hold, or None if it is no copy."""
    for tag in cell.get("metadata", {}).get("tags", []):
        match = TAG.match(tag)
        if match:
            module, names = match.groups()
            return (
                definitions(module, names.split(","))
                if names
                else module_source(module)
            )
    if cell.cell_type == "code" and HARNESS.search(cell.source):
        harness = module_source("grading")
        return HARNESS.sub(
            lambda m: m.group(1) + harness + "\n" + m.group(2), cell.source
        )
    return None


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
            "--check" in sys.argv,
            "{name}: shared code differs from normbook/; run `make sync`",
            "updated {name} (run `make execute NB=notebooks/{name}`)",
        )
    )
