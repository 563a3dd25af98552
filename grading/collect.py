"""Put an LMS download into an nbgrader course: COURSE/submitted/STUDENT/ASSIGNMENT/NB.

Usage: python -m grading.collect COURSE DOWNLOAD [--student-pattern REGEX]
(or `make collect COURSE=... DOWNLOAD=...`). DOWNLOAD is the folder or zip file that the
learning-management system gives you. Students rename files ("ch03 final (2).ipynb"), and
LMSs rename them again, so a notebook is recognised by what it holds, not by its name: it
belongs to the assignment of COURSE/source/ whose notebook shares the most nbgrader cell
ids with it. The student is the first match of --student-pattern in the file's path
inside DOWNLOAD (default: Canvas's `name_12345_...` or `name_LATE_12345_...` and Moodle's
`Name_12345_assignsub...` give `12345`; else the first folder name). Nothing is dropped silently: a file that is no
notebook, matches no assignment or no student, or would overwrite another submission is
listed, and the exit status is 1.
"""

import argparse
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

DEFAULT_STUDENT = r"(?:^|/)[^/_]+_(?:LATE_)?(\d+)_|^([^/]+)/"


def cell_ids(path):
    """The nbgrader cell ids of a notebook, or None if the file is no notebook."""
    try:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    ids = set()
    for cell in cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id:
            ids.add(grade_id)
    return ids


def sources(course):
    """{(assignment, notebook file name): its cell ids} of COURSE/source/."""
    found = {}
    for path in sorted((Path(course) / "source").glob("*/*.ipynb")):
        found[path.parent.name, path.name] = cell_ids(path) or set()
    if not found:
        raise SystemExit(f"collect: no notebooks under {Path(course) / 'source'}")
    return found


def collect(course, download, student_pattern=DEFAULT_STUDENT):
    """Copy every notebook of `download` (a folder) into place; return the problems."""
    known, problems, placed = sources(course), [], {}
    for path in sorted(Path(download).rglob("*")):
        if not path.is_file() or "__MACOSX" in path.parts:
            continue
        relative = PurePosixPath(path.relative_to(download)).as_posix()
        ids = cell_ids(path) if path.suffix == ".ipynb" else None
        if ids is None:
            problems.append(f"{relative}: not a notebook, not collected")
            continue
        best = max(known, key=lambda key: len(known[key] & ids))
        if not known[best] & ids:
            problems.append(f"{relative}: matches no assignment, not collected")
            continue
        match = re.search(student_pattern, relative)
        student = match and next((g for g in match.groups() if g), None)
        if not student:
            problems.append(f"{relative}: no student id in the path, not collected")
            continue
        assignment, name = best
        target = Path(course) / "submitted" / student / assignment / name
        if target in placed:
            problems.append(
                f"{relative}: {student} already has {assignment}/{name} from "
                f"{placed[target]}; kept that one, check by hand"
            )
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        placed[target] = relative
        print(f"{relative} -> submitted/{student}/{assignment}/{name}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("course", type=Path)
    parser.add_argument("download", type=Path)
    parser.add_argument("--student-pattern", default=DEFAULT_STUDENT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        download = args.download
        if zipfile.is_zipfile(download):
            with zipfile.ZipFile(download) as archive:
                archive.extractall(folder)
            download = Path(folder)
        problems = collect(args.course, download, args.student_pattern)
    for problem in problems:
        print(f"NOT COLLECTED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
