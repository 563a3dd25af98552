"""Feedback for the students, without the model answers and mark schemes.

Usage: python -m grading.feedback COURSE ASSIGNMENT (or `make feedback COURSE=...
ASSIGNMENT=...`), after grading/grade.py and the hand-grading in formgrader.

grading/grade.py puts the model answer and mark scheme under each written answer of the
graded notebooks (COURSE/autograded/), where formgrader shows them; nbgrader's own
`generate_feedback` would send them to every student. This runs nbgrader's
generate_feedback with one more step, which drops those cells (grade.py tags them), and
then checks that no page in COURSE/feedback/*/ASSIGNMENT/ holds one: each student gets
their notebook with the test results, the scores and the comments, as nbgrader makes it.
"""

import os
import sys
from pathlib import Path

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor
from nbgrader.apps import GenerateFeedbackApp
from nbgrader.preprocessors import GetGrades
from traitlets import Bool

from grading.grade import GRADER_NOTE

HEADING = "For the grader: model answer and mark scheme"


class WithoutGraderNotes(Preprocessor):
    enabled = Bool(True)  # nbconvert runs a preprocessor only if enabled

    def preprocess(self, nb, resources):
        nb.cells = [
            c for c in nb.cells if GRADER_NOTE not in c.metadata.get("tags", [])
        ]
        return nb, resources


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        raise SystemExit(__doc__)
    course, assignment = Path(argv[0]).resolve(), argv[1]
    os.chdir(course)  # nbgrader reads the course's nbgrader_config.py from here
    app = GenerateFeedbackApp()
    app.initialize([assignment, "--force", f"--CourseDirectory.root={course}"])
    app.config.GenerateFeedback.preprocessors = [
        GetGrades,
        WithoutGraderNotes,
        CSSHTMLHeaderPreprocessor,
    ]
    app.start()
    pages = sorted((course / "feedback").glob(f"*/{assignment}/*.html"))
    leaked = [p for p in pages if HEADING in p.read_text(encoding="utf-8")]
    if leaked:
        raise SystemExit(f"feedback: mark schemes left in {leaked}")
    print(f"feedback: {len(pages)} pages in feedback/*/{assignment}/, no mark scheme")
    return 0


if __name__ == "__main__":
    sys.exit(main())
