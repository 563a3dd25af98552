"""Write student versions of every chapter into _build/student/, plus a zip for an LMS.

The instructor notebooks in notebooks/ are the single source. nbgrader's own preprocessors do
the work, so the result is what `nbgrader generate_assignment` would hand out: solutions become
`# YOUR CODE HERE` + `raise NotImplementedError()`, written answers become "YOUR ANSWER HERE",
hidden tests are removed, and outputs are cleared. nbgrader metadata stays, so submissions can
be autograded.
"""
import os
import sys
import zipfile
from pathlib import Path

import nbformat
from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests, ClearOutput, ClearSolutions

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "_build" / "student"
ZIP_NAME = "normalization-book-student.zip"


def student_version(notebook):
    resources = {}
    for step in (CheckCellMetadata(), ClearSolutions(), ClearHiddenTests(), ClearOutput()):
        notebook, resources = step.preprocess(notebook, resources)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.execution_count = None
    notebook.metadata.pop("widgets", None)
    return notebook


def main(out=OUT):
    out.mkdir(parents=True, exist_ok=True)
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        nbformat.write(student_version(nbformat.read(path, as_version=4)), out / path.name)
    with zipfile.ZipFile(out / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            archive.write(out / path.name, arcname=f"normalization-book/{path.name}")
    print(f"{len(paths)} student notebooks and {ZIP_NAME} written to {os.path.relpath(out)}/")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else OUT)
