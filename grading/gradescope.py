"""Gradescope: an autograder zip that runs the book's own grader, for one chapter.

  python -m grading.gradescope zip CHAPTER [OUT [SOURCES]]   (make gradescope
      ASSIGNMENT=... [SEED=...]) after `make student`: writes OUT (default
      _build/gradescope/CHAPTER.zip), to upload as the programming assignment's
      autograder (base image: Ubuntu 24.04, Python 3.12), for the nbgrader source in
      SOURCES (default _build/nbgrader-source; a course's variants:
      _build/variants/SEED/source)
  python -m grading.gradescope results SOURCE SUBMISSION_DIR RESULTS [--student-uid N]
      what the zip's run_autograder runs for each submission: grades the one notebook
      in SUBMISSION_DIR against SOURCE with grading/grade.py and writes Gradescope's
      results.json: one test per grade cell (grade id, points, the failure message)

Why Gradescope and not Otter-Grader: Gradescope runs any program, in a fresh container
per submission, and reads back a results file (its autograder specification: setup.sh,
run_autograder, /autograder/results/results.json), so the book's grader runs there
unchanged, its checks in another process than the student's code. Otter-Grader has a
test format of its own and runs the tests in the kernel of the student's notebook, where
the student's code can read and patch them: what grading/grade.py exists to prevent.

In the container the grader runs as root without its bubblewrap sandbox (containers
rarely allow one): the container, fresh for each submission, is the sandbox, and the
student's code runs as user 65534, which cannot enter /root, where setup.sh moves the
instructor notebook (model answers, hidden tests), as in the repository's Dockerfile.
The written answers are not in results.json: add them in Gradescope as questions graded
by hand, with the mark schemes of the nbgrader source.
"""

import json
import sys
import zipfile
from pathlib import Path

import nbformat

from grading.grade import grade_in_process
from upkeep.cells import ROOT, grading

PACKAGES = ("grading", "upkeep", "normbook")
SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
apt-get install -y python3 python3-venv
python3 -m venv /opt/book/venv
/opt/book/venv/bin/pip install --no-cache-dir -r /autograder/source/requirements.txt
cp -r {packages} /opt/book/
mkdir -p /root/course
mv /autograder/source/{name} /root/course/
chmod 0700 /root
"""
RUN = """#!/usr/bin/env bash
# Gradescope runs this, as root, for each submission.
cd /opt/book
OMP_NUM_THREADS=1 MPLCONFIGDIR=/tmp/matplotlib /opt/book/venv/bin/python \\
    -m grading.gradescope results /root/course/{name} /autograder/submission \\
    /autograder/results/results.json --student-uid 65534
"""


def make_zip(chapter, out=None, sources=ROOT / "_build" / "nbgrader-source"):
    source = Path(sources) / chapter / f"{chapter}.ipynb"
    if not source.is_file():
        raise SystemExit(f"gradescope: no {source}; run `make student` first")
    out = Path(out or ROOT / "_build" / "gradescope" / f"{chapter}.zip")
    out.parent.mkdir(parents=True, exist_ok=True)
    packages = " ".join(f"/autograder/source/{p}" for p in PACKAGES)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (
            ("setup.sh", SETUP.format(packages=packages, name=source.name)),
            ("run_autograder", RUN.format(name=source.name)),
        ):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16  # executable
            archive.writestr(info, text)
        archive.write(source, source.name)
        archive.write(ROOT / "requirements.txt", "requirements.txt")
        for package in PACKAGES:
            for path in sorted((ROOT / package).rglob("*.py")):
                if path.parent.name != "bank":  # the exercise variants: not needed
                    archive.write(path, path.relative_to(ROOT).as_posix())
    print(f"gradescope: {out}")
    return out


def results(source, report):
    """Gradescope's results.json for a grader's report on one submission."""
    points = {
        grading(c)["grade_id"]: grading(c)["points"]
        for c in nbformat.read(source, as_version=4).cells
        if grading(c).get("grade") and c.cell_type == "code"
    }
    tests = []
    for grade_id, maximum in points.items():
        cell = report.get("cells", {}).get(grade_id, {})
        tests.append(
            {
                "name": grade_id,
                "score": cell.get("points", 0),
                "max_score": maximum,
                "output": cell.get("error") or ("all tests passed" if cell else ""),
            }
        )
    notes = report.get("notes", []) + [f"flagged: {f}" for f in report.get("flags", [])]
    return {"tests": tests, "output": "\n".join(notes)}


def grade_submission(source, folder, out, uid=None):
    notebooks = sorted(Path(folder).rglob("*.ipynb"))
    if len(notebooks) != 1:
        found = ", ".join(p.name for p in notebooks) or "none"
        report = {"notes": [f"hand in exactly one notebook (.ipynb); found {found}"]}
    else:
        report = grade_in_process(source, notebooks[0], 120.0, False, uid)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(results(source, report), indent=1))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["zip"] and len(argv) in (2, 3, 4):
        make_zip(*argv[1:])
        return 0
    if argv[:1] == ["results"] and len(argv) in (4, 6):
        uid = int(argv[5]) if len(argv) == 6 and argv[4] == "--student-uid" else None
        return grade_submission(*argv[1:4], uid)
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
