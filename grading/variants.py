"""A course's own version of every coding exercise: other task parameters, other seeds.

Usage (after `make book`; `make variants SEED=...` runs it):
  python -m grading.variants SEED [CHAPTER ...]
      writes _build/variants/SEED/source/<chapter>/<chapter>.ipynb, an nbgrader source
      (as `make student` writes _build/nbgrader-source/) in which
      - every coding exercise is one variant from the chapter's bank (grading/bank/):
        other shapes, another variant of the layer asked for, another planted bug,
        with its own Task, model answers, tests and mark schemes, drawn from SEED;
      - every seed of a random generator in the hidden tests (`default_rng(4101)`,
        `manual_seed(...)`, `random.seed(...)`) is drawn from SEED and the cell's grade id,
        so the hidden tests run on inputs that the public book does not show;
      its hand-out in _build/variants/SEED/student/<chapter>/ (as `make student`
      makes them), and _build/variants/SEED/chosen/<chapter>.md, the variant each
      exercise got.
  python -m grading.variants check CHAPTER [EXERCISE]
      grades every variant in the chapter's bank (for a bank author).

Use the variants as the source/ notebooks of your nbgrader course: they are graded by
the same tools (grading/grade.py). Keep them, and SEED, private: they are not part of
the site. Each chapter is checked before it is written: its model answers must get
every autograded point, and the book's public model answers must lose points on every
exercise that has variants (a student who copies the book's answer does not pass). A
chapter that fails is reported, not written, and the exit status is 1.
"""

import hashlib
import re
import sys
import tempfile
from pathlib import Path

import nbformat

from book._ext.reader_copies import HIDDEN, TARGETS
from grading.bank import apply, bank
from grading.grade import grade_in_process
from grading.handouts import load_targets, nbgrader_source, student_version
from upkeep.cells import ROOT, cells_needed, grading, run_notebook

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HEADING = re.compile(r"^#+ Exercise \d+\.\d+", re.M)
SEEDED = re.compile(r"\b(default_rng|manual_seed|random\.seed)\((\d+)\)")
OUT = ROOT / "_build" / "variants"
TIMEOUT = 120.0


def private_seed(seed, name, k):
    digest = hashlib.sha256(f"{seed}:{name}:{k}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def reseeded(notebook, seed):
    """A copy whose hidden tests' seeds are drawn from `seed` (the visible tests, which
    students see with their expected values, stay)."""
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


def book_notebook(chapter):
    path = ROOT / "notebooks" / f"{chapter}.ipynb"
    if not path.is_file():
        raise SystemExit(f"variants: no chapter {chapter!r} (no {path})")
    return nbformat.read(path, as_version=4)


def choose(chapter, seed):
    """{exercise: variant} for a course's SEED: one of each exercise's bank."""
    return {
        exercise: options[private_seed(seed, exercise, "task") % len(options)]
        for exercise, options in bank(chapter).items()
    }


def source_with(chapter, chosen, targets):
    """The chapter's nbgrader source with the `chosen` {exercise: variant} applied."""
    notebook = book_notebook(chapter)
    for exercise, variant in chosen.items():
        apply(notebook, exercise, variant)
    return nbgrader_source(notebook, targets, f"notebooks/{chapter}")


def exercise_of(grade_id):
    """The exercise a grade id belongs to ("04-ex1-dx": "04-ex1"), or None."""
    return "-".join(grade_id.split("-")[:2]) if grade_id else None


def points_by_exercise(report):
    """{exercise: (points, max)} from a grading report's cells."""
    totals = {}
    for grade_id, cell in report["cells"].items():
        got, most = totals.get(exercise_of(grade_id), (0, 0))
        totals[exercise_of(grade_id)] = (got + cell["points"], most + cell["max"])
    return totals


def run_as_student(notebook, exercises, folder):
    """Run what a student runs of `exercises` in a fresh kernel: every code cell from
    an exercise's heading to its last cell (model answers and their demonstrations,
    read-only cells, tests), after the lecture cells those need. Returns a problem or
    None. (The grader runs only what the grade cells need.)"""
    from nbclient.exceptions import CellExecutionError

    cells, span = notebook.cells, set()
    for exercise in exercises:
        own = [
            k
            for k, c in enumerate(cells)
            if exercise_of(grading(c).get("grade_id")) == exercise
        ]
        # from the exercise's heading: read-only cells may carry other grade ids
        first = max(
            (
                k
                for k in range(own[0])
                if cells[k].cell_type == "markdown" and HEADING.search(cells[k].source)
            ),
            default=0,
        )
        span |= {k for k in range(first, own[-1] + 1) if cells[k].cell_type == "code"}
    sources = [c.source for c in cells]
    needed = set().union(*(cells_needed(cells, sources, "scan", k) for k in span))
    run = nbformat.from_dict(notebook)
    run.cells = [run.cells[k] for k in sorted(span | needed)]
    folder.mkdir(parents=True, exist_ok=True)
    try:
        run_notebook(run, folder, timeout=600)
    except CellExecutionError as error:
        text = ANSI.sub("", str(error))  # the traceback's colours
        return f"a cell of {', '.join(exercises)} fails: {text[-1200:]}"
    return None


def problems_of(chapter, notebook, public, varied, folder):
    """Grade `notebook`'s model answers (every point expected) and the book's `public`
    answers against it (points lost on every exercise in `varied` expected), and run
    the varied exercises as a student would."""
    folder.mkdir(parents=True, exist_ok=True)
    mine, book = folder / "variant.ipynb", folder / "book.ipynb"
    nbformat.write(notebook, mine)
    nbformat.write(public, book)
    # The model answers are the instructor's and the book's code: no sandbox.
    model = grade_in_process(mine, mine, TIMEOUT, sandboxed=False)
    copied = grade_in_process(mine, book, TIMEOUT, sandboxed=False)
    # Any note on the model answers is a problem: a solution cell or a lecture cell
    # that failed.
    problems = [f"{chapter}: {note}" for note in model["notes"]]
    for grade_id, cell in model["cells"].items():
        if cell["points"] != cell["max"]:
            problems.append(
                f"{chapter}: the model answer gets {cell['points']:g} of "
                f"{cell['max']:g} in {grade_id}: {(cell.get('error') or '')[:300]}"
            )
    failure = run_as_student(notebook, varied, folder / "run")
    if failure:
        problems.append(f"{chapter}: {failure}")
    copied_points = points_by_exercise(copied)
    for exercise in varied:
        got, most = copied_points.get(exercise, (0, 0))
        if most == 0 or got >= most:
            problems.append(
                f"{chapter}: the book's answer to {exercise} still gets {got:g} of "
                f"{most:g} in {varied[exercise].name!r}"
            )
    return problems, copied_points


def write_variant(chapter, seed, out=OUT, targets=None):
    """Write and check one chapter's variant; return the problems (none: written)."""
    targets = targets or load_targets(ROOT / "_build" / TARGETS)
    chosen = choose(chapter, seed)
    public = nbgrader_source(book_notebook(chapter), targets, f"notebooks/{chapter}")
    notebook = reseeded(source_with(chapter, chosen, targets), seed)
    if not hidden_seeds(notebook):
        return [f"{chapter}: its hidden tests hold no seed to vary"]
    out = Path(out) / str(seed)
    written = {
        "source": out / "source" / chapter / f"{chapter}.ipynb",
        "student": out / "student" / chapter / f"{chapter}.ipynb",
        "chosen": out / "chosen" / f"{chapter}.md",
    }
    with tempfile.TemporaryDirectory(prefix="variants-") as folder:
        problems, _ = problems_of(chapter, notebook, public, chosen, Path(folder))
    for path in written.values():
        if problems:
            path.unlink(missing_ok=True)  # an earlier run's, from another bank
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
    if problems:
        return problems
    nbformat.write(notebook, written["source"])
    nbformat.write(student_version(notebook), written["student"])
    # Not beside the source: nbgrader would release it with the notebook.
    written["chosen"].write_text(
        "".join(f"- {e}: {v.name}: {v.summary}\n" for e, v in chosen.items()),
        encoding="utf-8",
    )
    print(f"{chapter}: variant {seed} written ({len(chosen)} exercises varied)")
    return []


def check(chapter, only=None, targets=None):
    """Grade every variant of the chapter's bank (entry k of every exercise together);
    print what each got and return the problems."""
    targets = targets or load_targets(ROOT / "_build" / TARGETS)
    options = {e: v for e, v in bank(chapter).items() if only is None or e == only}
    if not options:
        return [f"{chapter}: no variants in grading/bank/ch{chapter[:2]}.py"]
    public = nbgrader_source(book_notebook(chapter), targets, f"notebooks/{chapter}")
    problems = []
    for k in range(max(map(len, options.values()))):
        chosen = {e: v[k] for e, v in options.items() if k < len(v)}
        # Hidden tests on other inputs than the book's: a variant holds for any seed.
        notebook = reseeded(source_with(chapter, chosen, targets), 1000 + k)
        with tempfile.TemporaryDirectory(prefix="variants-") as folder:
            found, copied = problems_of(chapter, notebook, public, chosen, Path(folder))
        for exercise, variant in chosen.items():
            got, most = copied.get(exercise, (0, 0))
            print(f"{exercise} {variant.name}: the book's answer gets {got:g}/{most:g}")
        problems += found
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["check"] and len(argv) in (2, 3):
        problems = check(argv[1], argv[2] if len(argv) == 3 else None)
    elif argv and argv[0].isdigit():
        seed, chapters = int(argv[0]), argv[1:]
        chapters = chapters or sorted(
            p.stem for p in (ROOT / "notebooks").glob("*.ipynb")
        )
        problems = [p for chapter in chapters for p in write_variant(chapter, seed)]
    else:
        raise SystemExit(__doc__)
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
