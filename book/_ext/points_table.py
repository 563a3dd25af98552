"""The `points-table` directive: exercises and points per chapter, read from the notebooks.

The table on the instructors' page is generated at build time from the chapters' nbgrader
metadata, so it cannot fall out of date.
"""

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

EXERCISE = re.compile(r"^#{2,4} Exercise ", re.M)


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
        group = nodes.tgroup(cols=len(header))
        group += [nodes.colspec(colwidth=1) for _ in header]
        group += nodes.thead("", _row(header))
        body = nodes.tbody()
        body += [_row(r, bold=r is rows[-1]) for r in rows]
        group += body
        return [nodes.table("", group)]


def setup(app):
    app.add_directive("points-table", PointsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
