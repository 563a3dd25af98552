"""One assignment's grades as a CSV for the learning-management system, late penalty applied.

Usage: python -m grading.export COURSE ASSIGNMENT [--due TIME] [--penalty PERCENT]
[--roster CSV] [--out FILE] (or `make export COURSE=... ASSIGNMENT=... [DUE=...]`), after
grading (grading/grade.py) and the hand-grading in formgrader. Written to FILE (default
COURSE/grades-ASSIGNMENT.csv), one row per student of the gradebook (your roster and
everyone graded), with the columns

  id, lms_id, first_name, last_name, email   who (lms_id from --roster or collect.py)
  submitted_at, late, days_late              when, as grading/collect.py kept it
  Exercise N.M ...                           points per exercise (autograded + by hand)
  points, max_points, to_grade_by_hand       the sum; written answers not graded yet
  late_penalty, score                        points - late_penalty: the grade to import

The late policy: a submission handed in after TIME (--due, e.g. "2026-03-02 23:59 UTC")
loses PERCENT (--penalty, default 10) % of its points for every started day (24 h) it is
late, at most all of them. One the LMS marked LATE but whose time is not after TIME, or
any LATE one when no TIME is given, counts one day late. A student with no submission
gets empty exercise columns and a score of 0.
"""

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

EXERCISE = re.compile(r"^(\d+)-ex(\d+)-")


def exercise(grade_id):
    match = EXERCISE.match(grade_id)
    if not match:
        raise SystemExit(
            f"export: grade id {grade_id!r} names no exercise (NN-exM-...)"
        )
    return f"Exercise {int(match[1])}.{int(match[2])}"


def days_late(submitted_at, late, due):
    """Started days after `due`; 1 for an LMS-flagged late one otherwise."""
    if due is not None and submitted_at is not None and submitted_at > due:
        return math.ceil((submitted_at - due).total_seconds() / 86400)
    return 1 if late else 0


def rows(course, assignment, due=None, penalty=10.0, roster=None):
    if not (Path(course) / "gradebook.db").is_file():
        raise SystemExit(f"export: no gradebook.db in {course}; grade first")
    with Gradebook(f"sqlite:///{Path(course) / 'gradebook.db'}") as gradebook:
        columns = {}
        for notebook in gradebook.find_assignment(assignment).notebooks:
            for cell in notebook.grade_cells:
                name = exercise(cell.name)
                columns[name] = columns.get(name, 0) + cell.max_score
        out = []
        for student in sorted(gradebook.students, key=lambda s: s.id):
            folder = Path(course) / "submitted" / student.id / assignment
            kept = folder / "collected.json"
            kept = json.loads(kept.read_text()) if kept.exists() else {}
            row = {
                "id": student.id,
                "lms_id": (roster or {}).get(student.id, kept.get("lms_id", "")),
                "first_name": student.first_name or "",
                "last_name": student.last_name or "",
                "email": student.email or "",
            }
            try:
                submission = gradebook.find_submission(assignment, student.id)
            except MissingEntry:
                submission = None
            if submission is None:
                row.update(dict.fromkeys(columns, ""))
                row.update(submitted_at="", late="", days_late="", points=0.0)
                row.update(max_points=sum(columns.values()), to_grade_by_hand=0)
                row.update(late_penalty=0.0, score=0.0)
                out.append(row)
                continue
            when = submission.timestamp
            late = bool(kept.get("late"))
            days = days_late(when, late, due)
            points = dict.fromkeys(columns, 0.0)
            by_hand = 0
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    points[exercise(grade.name)] += grade.score
                    by_hand += grade.needs_manual_grade
            total = sum(points.values())
            cut = min(total, total * penalty / 100 * days)
            row.update({k: round(v, 2) for k, v in points.items()})
            row.update(
                submitted_at=kept.get("submitted_at", when or ""),
                late="yes" if late or days else "no",
                days_late=days,
                points=round(total, 2),
                max_points=sum(columns.values()),
                to_grade_by_hand=by_hand,
                late_penalty=round(cut, 2),
                score=round(total - cut, 2),
            )
            out.append(row)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("course", type=Path)
    parser.add_argument("assignment")
    parser.add_argument("--due", help='e.g. "2026-03-02 23:59 UTC"')
    parser.add_argument("--penalty", type=float, default=10.0)
    parser.add_argument("--roster", type=Path, help="CSV with the columns id, lms_id")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not 0 <= args.penalty <= 100:
        parser.error("--penalty is a percentage, 0 to 100")
    due = parse_utc(args.due) if args.due else None
    roster = None
    if args.roster:
        with open(args.roster, newline="", encoding="utf-8-sig") as stream:
            roster = {r["id"]: r.get("lms_id", "") for r in csv.DictReader(stream)}
    table = rows(args.course, args.assignment, due, args.penalty, roster)
    out = args.out or args.course / f"grades-{args.assignment}.csv"
    with open(out, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(table[0]) if table else ["id"])
        writer.writeheader()
        writer.writerows(table)
    ungraded = sum(bool(r["to_grade_by_hand"]) for r in table)
    print(f"export: {len(table)} students into {out}", end="")
    print(f"; {ungraded} with written answers not graded yet" if ungraded else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
