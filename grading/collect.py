"""Put an LMS download into an nbgrader course: COURSE/submitted/STUDENT/ASSIGNMENT/NB.

Usage: python -m grading.collect COURSE DOWNLOAD [--roster CSV] [--student-pattern REGEX]
(or `make collect COURSE=... DOWNLOAD=... [ROSTER=...]`). DOWNLOAD is the folder or zip
file that the learning-management system gives you. Students rename files ("ch03 final
(2).ipynb"), and LMSs rename them again, so a notebook is recognised by what it holds,
not by its name: it belongs to the assignment of COURSE/source/ whose notebook shares the
most nbgrader cell ids with it.

Who: the LMS's id of the student is the first match of --student-pattern in the file's
path inside DOWNLOAD (default: Canvas's `name_12345_...` or `name_LATE_12345_...` and
Moodle's `Name_12345_assignsubmission_...` give `12345`; else the first folder name).
LMSs name files by their own user ids, not by the students' numbers, so with --roster
(a CSV with the columns `id` and `lms_id`; nbgrader's `db student import` reads the same
file and ignores `lms_id`) the student is the roster's `id` whose `lms_id` it is.
When: the submission time is the time the download gives the file (a zip entry's time, a
folder's file's modification time), and the submission is late if the LMS put `LATE` (in
any case) into its name. Both are kept beside the notebook: the time in nbgrader's
`timestamp.txt`, both in `collected.json` (with the LMS id and the file's name), for
grading/export.py's late policy.

Nothing is dropped silently: a file that is no notebook, matches no assignment, no
student or no one on the roster, or would overwrite another submission is listed, and
the exit status is 1.
"""

import argparse
import csv
import datetime
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

DEFAULT_STUDENT = r"(?:^|/)[^/_]+_(?:LATE_)?(\d+)_|^([^/]+)/"
LATE = re.compile(r"(?:^|[/_])LATE_", re.I)
TIME_FORMAT = "%Y-%m-%d %H:%M:%S UTC"  # nbgrader's timestamp.txt reads it


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


def read_roster(path):
    """{LMS id: student id} from a CSV with the columns `id` and `lms_id`."""
    with open(path, newline="", encoding="utf-8-sig") as stream:
        rows = list(csv.DictReader(stream))
    if not rows or not {"id", "lms_id"} <= set(rows[0]):
        raise SystemExit(f"collect: {path} needs the columns id and lms_id")
    return {row["lms_id"].strip(): row["id"].strip() for row in rows}


def collect(course, download, student_pattern=DEFAULT_STUDENT, roster=None, times=None):
    """Copy every notebook of `download` (a folder) into place; return the problems.
    `roster`: {LMS id: student id}; `times`: {relative path: UTC datetime} (else the
    files' modification times)."""
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
        match = re.search(student_pattern, relative, re.I)
        lms_id = match and next((g for g in match.groups() if g), None)
        if not lms_id:
            problems.append(f"{relative}: no student id in the path, not collected")
            continue
        student = roster.get(lms_id) if roster is not None else lms_id
        if not student:
            problems.append(f"{relative}: LMS id {lms_id} is not on the roster")
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
        when = (times or {}).get(relative) or datetime.datetime.fromtimestamp(
            path.stat().st_mtime, datetime.timezone.utc
        )
        late = bool(LATE.search(relative))
        (target.parent / "timestamp.txt").write_text(when.strftime(TIME_FORMAT))
        record = {
            "lms_id": lms_id,
            "file": relative,
            "submitted_at": when.strftime(TIME_FORMAT),
            "late": late,
        }
        (target.parent / "collected.json").write_text(json.dumps(record, indent=1))
        flag = ", LATE" if late else ""
        print(f"{relative} -> submitted/{student}/{assignment}/{name}{flag}")
    return problems


def zip_times(archive):
    """{path: UTC datetime} of a zip's entries (zip times carry no zone: read as UTC)."""
    return {
        info.filename: datetime.datetime(*info.date_time, tzinfo=datetime.timezone.utc)
        for info in archive.infolist()
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("course", type=Path)
    parser.add_argument("download", type=Path)
    parser.add_argument("--roster", type=Path, help="CSV with the columns id, lms_id")
    parser.add_argument("--student-pattern", default=DEFAULT_STUDENT)
    args = parser.parse_args(argv)
    roster = read_roster(args.roster) if args.roster else None
    with tempfile.TemporaryDirectory() as folder:
        download, times = args.download, None
        if zipfile.is_zipfile(download):
            with zipfile.ZipFile(download) as archive:
                archive.extractall(folder)
                times = zip_times(archive)
            download = Path(folder)
        problems = collect(args.course, download, args.student_pattern, roster, times)
    for problem in problems:
        print(f"NOT COLLECTED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
