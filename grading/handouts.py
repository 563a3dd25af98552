"""Student hand-outs, nbgrader sources and per-chapter zips, one assignment per chapter.

Run after the site build (`make student` builds it first): every notebook written here
has its Markdown converted by the site's own reader-copy conversion
(book/_ext/reader_copies.py: links instead of roles, no labels, Task boxes as block
quotes with their math), from the names the build wrote into _build/reader-targets.json.
Writes into _build/:
- nbgrader-source/<chapter>/<chapter>.ipynb: the instructor notebooks, converted, for an
  nbgrader course's source/ folder (so `nbgrader generate_assignment` releases clean
  notebooks and formgrader shows clean mark schemes);
- student/<chapter>/<chapter>.ipynb: hand-outs made from them by nbgrader's own
  preprocessors, as `nbgrader generate_assignment` makes them: solutions become
  `# YOUR CODE HERE` + `raise NotImplementedError()`, written answers "YOUR ANSWER
  HERE", hidden tests are removed, grade and read-only cells are locked and
  checksummed, outputs are cleared;
- student/<chapter>.zip: one chapter's hand-out with the one-page HOW-TO-SUBMIT.md
  (grading/how-to-submit.md), and student/normalization-book-student.zip: all of them.
Both drop the "Open in Colab" badge: it links to the public instructor notebook, which
holds the solutions and hidden tests.
"""

import os
import sys
import zipfile
from pathlib import Path

import nbformat
from book._ext.reader_copies import TARGETS, Targets, converted_markdown
from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ClearSolutions,
    ComputeChecksums,
    LockCells,
)

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "_build"
ZIP_NAME = "normalization-book-student.zip"
SHEET = ROOT / "grading" / "how-to-submit.md"
BADGE_TAG = "colab-badge"


def load_targets(path):
    if not Path(path).is_file():
        raise SystemExit(f"handouts: no {path}; build the site first (make book)")
    try:
        return Targets.from_json(Path(path).read_text(encoding="utf-8"))
    except KeyError as missing:
        raise SystemExit(
            f"handouts: {path} lacks {missing}: an older build wrote it (make book)"
        ) from None


def nbgrader_source(notebook, targets, docname):
    """The instructor notebook with its Markdown converted and without the badge."""
    notebook = converted_markdown(notebook, targets, docname)
    notebook = nbformat.from_dict(notebook)
    notebook.cells = [
        c for c in notebook.cells if BADGE_TAG not in c.metadata.get("tags", [])
    ]
    notebook.metadata.pop("widgets", None)
    return notebook


def student_version(source):
    """The hand-out of an nbgrader source notebook."""
    notebook, resources = nbformat.from_dict(source), {}
    steps = (
        CheckCellMetadata(),
        ClearSolutions(),
        ClearHiddenTests(),
        ClearMarkScheme(),
        LockCells(),
        ComputeChecksums(),
        ClearOutput(),
    )
    for step in steps:
        notebook, resources = step.preprocess(notebook, resources)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.execution_count = None
    return notebook


def main(out=OUT, targets_path=OUT / TARGETS):
    targets = load_targets(targets_path)
    students, sources = out / "student", out / "nbgrader-source"
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    sheet = SHEET.read_text(encoding="utf-8")
    for path in paths:
        docname = f"notebooks/{path.stem}"
        source = nbgrader_source(nbformat.read(path, as_version=4), targets, docname)
        for folder, notebook in (
            (sources, source),
            (students, student_version(source)),
        ):
            (folder / path.stem).mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, folder / path.stem / path.name)
        with zipfile.ZipFile(
            students / f"{path.stem}.zip", "w", zipfile.ZIP_DEFLATED
        ) as archive:
            archive.write(students / path.stem / path.name, f"{path.stem}/{path.name}")
            archive.writestr(f"{path.stem}/HOW-TO-SUBMIT.md", sheet)
    with zipfile.ZipFile(students / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            archive.write(
                students / path.stem / path.name,
                arcname=f"normalization-book/{path.name}",
            )
        archive.writestr("normalization-book/HOW-TO-SUBMIT.md", sheet)
    print(
        f"{len(paths)} student notebooks, one zip per chapter and {ZIP_NAME} in "
        f"{os.path.relpath(students)}/, nbgrader sources in {os.path.relpath(sources)}/"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else OUT)
