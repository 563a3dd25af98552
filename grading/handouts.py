"""Student hand-outs and nbgrader sources for every chapter, one assignment per chapter.

Writes into _build/:
- student/<chapter>/<chapter>.ipynb and student/normalization-book-student.zip: hand-outs,
  made by nbgrader's own preprocessors, as `nbgrader generate_assignment` makes them:
  solutions become `# YOUR CODE HERE` + `raise NotImplementedError()`, written answers
  "YOUR ANSWER HERE", hidden tests are removed, grade and read-only cells are locked and
  checksummed, outputs are cleared;
- nbgrader-source/<chapter>/<chapter>.ipynb: the instructor notebooks to put into an
  nbgrader course's source/ folder.
Both drop the "Open in Colab" badge: it links to the public instructor notebook, which
holds the solutions and hidden tests.
"""

import os
import sys
import zipfile
from pathlib import Path

import nbformat
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
BADGE_TAG = "colab-badge"


def without_badge(notebook):
    notebook.cells = [
        c for c in notebook.cells if BADGE_TAG not in c.metadata.get("tags", [])
    ]
    notebook.metadata.pop("widgets", None)
    return notebook


def student_version(notebook):
    notebook, resources = without_badge(notebook), {}
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


def main(out=OUT):
    students, sources = out / "student", out / "nbgrader-source"
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        for folder, make in ((students, student_version), (sources, without_badge)):
            (folder / path.stem).mkdir(parents=True, exist_ok=True)
            notebook = make(nbformat.read(path, as_version=4))
            nbformat.write(notebook, folder / path.stem / path.name)
    with zipfile.ZipFile(students / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            archive.write(
                students / path.stem / path.name,
                arcname=f"normalization-book/{path.name}",
            )
    print(
        f"{len(paths)} student notebooks and {ZIP_NAME} in {os.path.relpath(students)}/, "
        f"nbgrader sources in {os.path.relpath(sources)}/"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else OUT)
