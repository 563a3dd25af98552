"""The instructor pipeline: exercise metadata, student versions, and a real nbgrader round."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook

sys.path.insert(0, str(ROOT / "scripts"))
from make_student import ZIP_NAME, main as make_student  # noqa: E402

ASSIGNMENT = "normbook"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")


def grader(cell):
    return cell.metadata.get("nbgrader", {})


def exercises(notebook):
    """Solution cells (code and written) and autograded test cells, in order."""
    return [c for c in notebook.cells if grader(c).get("solution") or grader(c).get("grade")]


def points(notebook):
    """(exercise count, autograded points, manually graded points) of a chapter."""
    cells = exercises(notebook)
    solutions = [c for c in cells if grader(c).get("solution")]
    auto = sum(grader(c)["points"] for c in cells if grader(c).get("grade") and c.cell_type == "code")
    manual = sum(grader(c)["points"] for c in cells if grader(c).get("grade") and c.cell_type == "markdown")
    return len(solutions), auto, manual


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_metadata(path):
    notebook = read_notebook(path)
    cells = notebook.cells
    count, auto, _ = points(notebook)
    assert count >= 3, "a chapter needs at least 3 exercises"
    assert auto > 0, "a chapter needs at least one autograded coding exercise"
    ids = [grader(c)["grade_id"] for c in cells if grader(c)]
    assert len(ids) == len(set(ids)), "grade_ids must be unique within a notebook"
    for i, cell in enumerate(cells):
        meta = grader(cell)
        if not meta:
            continue
        assert meta["schema_version"] == 3
        if meta.get("solution") and cell.cell_type == "code":
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
            following = next(c for c in cells[i + 1:] if c.cell_type == "code")
            assert grader(following).get("grade") and grader(following).get("locked"), \
                f"solution {meta['grade_id']} is not followed by a locked grade cell"
            assert "hide-input" in cell.metadata.get("tags", []), "solutions are collapsed in the book"
        if meta.get("solution") and cell.cell_type == "markdown":
            assert cell.source.startswith("<details><summary>Answer</summary>"), \
                "written answers are collapsed (<details>) in the book and in JupyterLab"
        if meta.get("grade"):
            assert meta["points"] > 0


def test_points_table_in_instructors_page():
    page = (ROOT / "book" / "instructors.md").read_text()
    for path in NOTEBOOKS:
        count, auto, manual = points(read_notebook(path))
        row = f"| `{path.stem}` | {count} | {auto} | {manual} | {auto + manual} |"
        assert row in page, f"book/instructors.md lacks the up-to-date row:\n{row}"


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    make_student(out)
    return out


def test_student_versions_hold_no_solutions(student_dir):
    assert (student_dir / ZIP_NAME).stat().st_size > 0
    for path in NOTEBOOKS:
        instructor, student = read_notebook(path), read_notebook(student_dir / path.name)
        text = "\n".join(c.source for c in student.cells)
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "<summary>Answer</summary>"):
            assert marker not in text, f"{path.name}: {marker!r} in the student version"
        # A line of a solution or hidden test leaks if the student sees it although the lecture
        # (everything outside those blocks) does not contain it.
        hidden = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1", re.S)
        public = "\n".join(hidden.sub("", c.source) for c in instructor.cells if not grader(c).get("solution")
                           or c.cell_type == "code")
        for cell in instructor.cells:
            for block in hidden.findall(cell.source):
                for line in block[1].splitlines():
                    if len(line.strip()) > 25 and line.strip() not in public:
                        assert line.strip() not in text, f"{path.name}: solution or hidden test leaked: {line}"
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")


def nbgrader(course, *args):
    # nbgrader runs `alembic` from PATH, so the environment's scripts must be on it.
    env = dict(os.environ, PATH=str(Path(NBGRADER).parent) + os.pathsep + os.environ.get("PATH", ""))
    result = subprocess.run(
        [NBGRADER, *args, f"--CourseDirectory.root={course}",
         f"--CourseDirectory.db_url=sqlite:///{course}/gradebook.db"], capture_output=True, text=True,
        cwd=course, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_nbgrader_generate_and_autograde(tmp_path, student_dir):
    """Full marks for the instructor version, zero for an untouched student version, and the
    student version fails only in grade cells (NotImplementedError), never in lecture cells."""
    course = tmp_path / "course"
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    for path in NOTEBOOKS:
        shutil.copy(path, source / path.name)
    nbgrader(course, "db", "assignment", "add", ASSIGNMENT)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    assert sorted(p.name for p in (course / "release" / ASSIGNMENT).glob("*.ipynb")) == [p.name for p in NOTEBOOKS]

    for student, folder in (("instructor_copy", source), ("untouched", student_dir)):
        submitted = course / "submitted" / student / ASSIGNMENT
        submitted.mkdir(parents=True)
        for path in NOTEBOOKS:
            shutil.copy(folder / path.name, submitted / path.name)
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force", "--Execute.timeout=1200")

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        for path in NOTEBOOKS:
            full = gradebook.find_submission_notebook(path.stem, ASSIGNMENT, "instructor_copy")
            empty = gradebook.find_submission_notebook(path.stem, ASSIGNMENT, "untouched")
            assert full.max_code_score > 0
            assert full.code_score == full.max_code_score, f"{path.name}: instructor version lost points"
            assert empty.code_score == 0, f"{path.name}: an untouched student version scored points"

    for path in NOTEBOOKS:
        graded = nbformat.read(course / "autograded" / "untouched" / ASSIGNMENT / path.name, as_version=4)
        for cell in graded.cells:
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    assert grader(cell).get("grade"), \
                        f"{path.name}: the student version fails outside a grade cell:\n{cell.source[:300]}"
                    assert output.ename == "NotImplementedError", f"{path.name}: {output.ename} in a grade cell"
