"""A course's own hidden-test inputs: every chapter's grade cells with private seeds.

Usage: python -m grading.variants SEED [CHAPTER ...] (or `make variants SEED=...`), after
`make student`. Writes _build/variants/SEED/<chapter>/<chapter>.ipynb: the chapter's
nbgrader source (_build/nbgrader-source/) with every seed of a random generator in the
hidden tests of its grade cells (`default_rng(1211)`, `manual_seed(...)`,
`random.seed(...)`) replaced by one drawn from SEED and the cell's grade id. The hidden
tests then run on inputs that the public book does not show; the visible tests, which
students see with their expected values, stay. Use the variants as the source/ notebooks of your nbgrader course: they are graded by
the same tools (grading/grade.py), and their model answers and mark schemes are the
book's. Keep them, and SEED, private: they are not part of the site.

Each variant is checked before it is written: its model answers must get every
autograded point from grading/grade.py; a chapter whose variant fails, or whose hidden
tests hold no seed, is reported, not written, and the exit status is 1. Other task parameters (shapes, the variant of the
layer asked for, the planted bug of a bug hunt) are the book's: not varied here.
"""

import hashlib
import re
import sys
from pathlib import Path

import nbformat

from book._ext.reader_copies import HIDDEN
from grading.grade import grade_in_process, score
from upkeep.cells import ROOT, grading

SEEDED = re.compile(r"\b(default_rng|manual_seed|random\.seed)\((\d+)\)")
SOURCES = ROOT / "_build" / "nbgrader-source"


def private_seed(seed, grade_id, k):
    digest = hashlib.sha256(f"{seed}:{grade_id}:{k}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def variant(notebook, seed):
    """A copy of an nbgrader source whose hidden tests' seeds are drawn from `seed`
    (the visible tests, which students see with their expected values, stay)."""
    notebook = nbformat.from_dict(notebook)
    for cell in notebook.cells:
        meta = grading(cell)
        if cell.cell_type != "code" or not meta.get("grade"):
            continue
        count = iter(range(10**6))

        def reseed(match):
            return f"{match[1]}({private_seed(seed, meta['grade_id'], next(count))})"

        cell.source = HIDDEN.sub(lambda h: SEEDED.sub(reseed, h[0]), cell.source)
    return notebook


def hidden_seeds(notebook):
    return [
        found
        for cell in notebook.cells
        if cell.cell_type == "code" and grading(cell).get("grade")
        for region in HIDDEN.findall(cell.source)
        for found in SEEDED.findall(region)
    ]


def write_variant(chapter, seed, sources=SOURCES, out=None):
    """Write and check one chapter's variant; return the problems (none: written)."""
    source = Path(sources) / chapter / f"{chapter}.ipynb"
    if not source.is_file():
        raise SystemExit(f"variants: no {source}; run `make student` first")
    out = Path(out or ROOT / "_build" / "variants" / str(seed))
    target = out / chapter / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    public = nbformat.read(source, as_version=4)
    if not hidden_seeds(public):
        return [f"{chapter}: its hidden tests hold no seed to vary"]
    notebook = variant(public, seed)
    nbformat.write(notebook, target)
    # The model answers are the instructor's own code: graded without the sandbox.
    report = grade_in_process(target, target, 120.0, sandboxed=False)
    got = score(report)[0]
    maximum = sum(
        grading(c)["points"]
        for c in notebook.cells
        if grading(c).get("grade") and c.cell_type == "code"
    )
    if got != maximum:
        target.unlink()
        failed = {
            k: c.get("error") for k, c in report["cells"].items() if c.get("error")
        }
        return [f"{chapter}: the model answers get {got} of {maximum}: {failed}"]
    print(f"{chapter}: variant {seed} written, model answers {got}/{maximum}")
    return []


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or not argv[0].isdigit():
        raise SystemExit(__doc__)
    seed, chapters = int(argv[0]), argv[1:]
    chapters = chapters or sorted(p.name for p in SOURCES.iterdir() if p.is_dir())
    problems = [p for chapter in chapters for p in write_variant(chapter, seed)]
    for problem in problems:
        print(f"NOT WRITTEN: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
