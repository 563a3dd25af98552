"""Tables read from the notebooks at build time, so that they cannot fall out of date.

- `points-table` (the instructors' page): exercises and points per chapter, from the
  chapters' nbgrader metadata;
- `course-plan-table` (the course plan): hours per chapter for reading, running and the
  exercises and the marking time, from the chapters' words and points, the planning
  rates below and the measured run times in book/assets/measurements/run-times.json;
  with content lines `Week 1: 01 02`, a plan: each week's chapters and hours;
- `exercise-notebooks` (the course plan): links to the chapters' self-study copies, which
  reader_copies.py writes after the build.
"""

import json
import posixpath
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from reader_copies import EXERCISES

EXERCISE = re.compile(r"^#{2,4} Exercise ", re.M)
# Planning rates (the course plan states them): words read per minute in text with
# derivations; a student's minutes per exercise point; a grader's minutes per written
# point per submission (an instructor marking chapter 03's 10 written points took 2 to
# 4 minutes per submission: 0.3 min per point).
READING_WPM = 100
MINUTES_PER_POINT = 10
MARKING_MINUTES_PER_POINT = 0.3
RUN_TIMES = Path(__file__).resolve().parents[1] / "assets/measurements/run-times.json"


def chapter_points(path):
    """(exercises, autograded points, written points) of a chapter notebook."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    text = [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
    ]
    count = sum(
        bool(EXERCISE.search(t))
        for c, t in zip(cells, text)
        if c["cell_type"] == "markdown"
    )
    auto = manual = 0
    for cell in cells:
        grading = cell.get("metadata", {}).get("nbgrader", {})
        if grading.get("grade"):
            if cell["cell_type"] == "code":
                auto += grading["points"]
            else:
                manual += grading["points"]
    return count, auto, manual


def chapter_words(path):
    """Words of the text a reader reads: Markdown cells, model answers left out."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return sum(
        len("".join(c["source"]).split())
        for c in cells
        if c["cell_type"] == "markdown"
        and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
    )


def chapter_plan(path, run_seconds):
    """Hours for reading, running and the exercises, and the written points to mark."""
    count, auto, manual = chapter_points(path)
    return {
        "reading": chapter_words(path) / READING_WPM / 60,
        "running": run_seconds[Path(path).stem] / 3600,
        "exercises": (auto + manual) * MINUTES_PER_POINT / 60,
        "written": manual,
        "marking": manual * MARKING_MINUTES_PER_POINT,  # minutes per submission
    }


def _row(cells, bold=False):
    row = nodes.row()
    for value in cells:
        text = nodes.strong(text=str(value)) if bold else nodes.Text(str(value))
        row += nodes.entry("", nodes.paragraph("", "", text))
    return row


class PointsTable(Directive):
    def run(self):
        env = self.state.document.settings.env
        chapters = sorted((Path(env.srcdir) / "notebooks").glob("*.ipynb"))
        header = [
            "Chapter",
            "Exercises",
            "Autograded points",
            "Written points",
            "Total",
        ]
        rows, totals = [], [0, 0, 0]
        for path in chapters:
            env.note_dependency(str(path))
            count, auto, manual = chapter_points(path)
            totals = [totals[0] + count, totals[1] + auto, totals[2] + manual]
            rows.append([path.stem, count, auto, manual, auto + manual])
        rows.append(["All chapters", *totals, totals[1] + totals[2]])
        return [_table(header, rows)]


def _table(header, rows):
    group = nodes.tgroup(cols=len(header))
    group += [nodes.colspec(colwidth=1) for _ in header]
    group += nodes.thead("", _row(header))
    body = nodes.tbody()
    body += [_row(r, bold=r is rows[-1]) for r in rows]
    group += body
    return nodes.table("", group)


class CoursePlanTable(Directive):
    has_content = True

    def run(self):
        env = self.state.document.settings.env
        env.note_dependency(str(RUN_TIMES))
        run_seconds = json.loads(RUN_TIMES.read_text(encoding="utf-8"))["seconds"]
        plans = {}
        for path in sorted((Path(env.srcdir) / "notebooks").glob("*.ipynb")):
            env.note_dependency(str(path))
            plans[path.stem[:2]] = chapter_plan(path, run_seconds)
        if self.content:
            return [self.weeks(plans)]
        header = [
            "Chapter",
            "Reading (h)",
            "Running (min)",
            "Exercises (h)",
            "Written points",
            "Marking (min per student)",
            "Marking 200 students (h)",
        ]
        rows = [self.cells(number, plan) for number, plan in plans.items()]
        total = {
            k: sum(p[k] for p in plans.values()) for k in next(iter(plans.values()))
        }
        rows.append(self.cells("All chapters", total))
        return [_table(header, rows)]

    @staticmethod
    def cells(name, plan):
        return [
            name,
            f"{plan['reading']:.1f}",
            f"{plan['running'] * 60:.1f}",
            f"{plan['exercises']:.1f}",
            plan["written"],
            f"{plan['marking']:.1f}",
            f"{plan['marking'] * 200 / 60:.0f}",
        ]

    def weeks(self, plans):
        header = ["Week", "Chapters", "Student hours", "Marking 200 students (h)"]
        rows, seen = [], []
        for line in self.content:
            week, _, chapters = line.partition(":")
            chapters = chapters.split()
            unknown = [c for c in chapters if c not in plans]
            if unknown:
                raise self.error(f"course-plan-table: no chapter {unknown}")
            seen += chapters
            hours = sum(
                plans[c]["reading"] + plans[c]["running"] + plans[c]["exercises"]
                for c in chapters
            )
            marking = sum(plans[c]["marking"] for c in chapters) * 200 / 60
            rows.append(
                [week.strip(), ", ".join(chapters), f"{hours:.0f}", f"{marking:.0f}"]
            )
        if sorted(seen) != sorted(plans):
            raise self.error("course-plan-table: a plan takes every chapter once")
        hours = sum(
            p["reading"] + p["running"] + p["exercises"] for p in plans.values()
        )
        marking = sum(p["marking"] for p in plans.values()) * 200 / 60
        rows.append(["All", "", f"{hours:.0f}", f"{marking:.0f}"])
        return _table(header, rows)


class ExerciseNotebooks(Directive):
    """A list of links to the chapters' self-study copies (written after the build)."""

    def run(self):
        env = self.state.document.settings.env
        here = posixpath.dirname(env.docname)
        items = nodes.bullet_list()
        for docname in sorted(d for d in env.found_docs if d.startswith("notebooks/")):
            name = posixpath.basename(docname)
            uri = posixpath.relpath(f"{EXERCISES}/{name}.ipynb", here or ".")
            link = nodes.reference("", f"{name}.ipynb", refuri=uri)
            items += nodes.list_item("", nodes.paragraph("", "", link))
        return [items]


def setup(app):
    app.add_directive("points-table", PointsTable)
    app.add_directive("course-plan-table", CoursePlanTable)
    app.add_directive("exercise-notebooks", ExerciseNotebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
