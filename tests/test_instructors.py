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


def points(notebook):
    """(exercise count, autograded points, manually graded points) of a chapter."""
    count = sum(
        bool(re.search(r"^#{2,4} Exercise ", c.source, re.M))
        for c in notebook.cells
        if c.cell_type == "markdown"
    )
    graded = [c for c in notebook.cells if grader(c).get("grade")]
    auto = sum(grader(c)["points"] for c in graded if c.cell_type == "code")
    manual = sum(grader(c)["points"] for c in graded if c.cell_type == "markdown")
    return count, auto, manual


MARK_SCHEME = re.compile(r"\*\*Mark scheme \((\d+) points?\)")


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
            assert (
                "### BEGIN SOLUTION" in cell.source
                and "### END SOLUTION" in cell.source
            )
            following = next(c for c in cells[i + 1 :] if c.cell_type == "code")
            assert grader(following).get("grade") and grader(following).get("locked"), (
                f"solution {meta['grade_id']} is not followed by a locked grade cell"
            )
        if meta.get("solution") and cell.cell_type == "markdown":
            assert cell.source.lstrip().startswith(":::{dropdown}"), (
                f"{meta['grade_id']}: written answers are a folded 'Solution' block"
            )
            scheme = MARK_SCHEME.search(cell.source)
            assert scheme, f"{meta['grade_id']}: no '**Mark scheme (N points)**'"
            assert int(scheme.group(1)) == meta.get("points"), (
                f"{meta['grade_id']}: mark scheme and cell points differ"
            )
        if meta.get("grade"):
            assert meta["points"] > 0
        if meta.get("grade") and cell.cell_type == "code":
            assert "assert" in cell.source or "AssertionError" in cell.source, (
                f"{meta['grade_id']}: a grade cell asserts"
            )
            for trusting in (
                "np.allclose",
                "torch.allclose",
                "np.isclose",
                "np.testing",
            ):
                assert trusting not in cell.source, (
                    f"{meta['grade_id']}: {trusting} can be monkeypatched by a solution cell"
                )


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("handouts")
    make_student(out)
    return out


def test_student_versions_hold_no_solutions(build_dir):
    student_dir = build_dir / "student"
    assert (student_dir / ZIP_NAME).stat().st_size > 0
    hidden = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1", re.S)
    for path in NOTEBOOKS:
        instructor = read_notebook(path)
        student = read_notebook(student_dir / path.stem / path.name)
        text = "\n".join(c.source for c in student.cells)
        for marker in (
            "BEGIN SOLUTION",
            "END SOLUTION",
            "BEGIN HIDDEN TESTS",
            "Mark scheme",
            "colab.research.google.com",
        ):
            assert marker not in text, f"{path.name}: {marker!r} in the student version"
        # A line of a solution or hidden test leaks if the student sees it although the
        # lecture (everything outside those blocks) does not contain it.
        public = "\n".join(
            hidden.sub("", c.source)
            for c in instructor.cells
            if not grader(c).get("solution") or c.cell_type == "code"
        )
        for cell in instructor.cells:
            for block in hidden.findall(cell.source):
                for line in block[1].splitlines():
                    if len(line.strip()) > 25 and line.strip() not in public:
                        assert line.strip() not in text, f"{path.name}: leaked: {line}"
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
        for cell in student.cells:
            if grader(cell).get("locked"):
                assert cell.metadata.get("editable") is False, "locked cells are locked"
            if grader(cell).get("grade"):
                assert grader(cell).get("checksum"), "grade cells carry a checksum"
    for path in NOTEBOOKS:
        source = read_notebook(build_dir / "nbgrader-source" / path.stem / path.name)
        assert not [
            c for c in source.cells if "colab-badge" in c.metadata.get("tags", [])
        ]


def nbgrader(course, *args):
    # nbgrader runs `alembic` from PATH, so the environment's scripts must be on it.
    env = dict(
        os.environ, PATH=str(Path(NBGRADER).parent) + os.pathsep + os.environ["PATH"]
    )
    result = subprocess.run(
        [
            NBGRADER,
            *args,
            f"--CourseDirectory.root={course}",
            f"--CourseDirectory.db_url=sqlite:///{course}/gradebook.db",
        ],
        capture_output=True,
        text=True,
        cwd=course,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def submissions(path):
    """The chapter's adversarial submissions (tests/submissions/cNN.py) as
    {student: (replacements, expected)}: one SUBMISSION with its EXPECTED scores, or, for
    a chapter with a single coding exercise, one per attack in SUBMISSIONS."""
    module = ROOT / "tests" / "submissions" / f"c{path.name[:2]}.py"
    assert module.exists(), f"{module.name} is missing: every chapter has one"
    namespace = {}
    exec(module.read_text(), namespace)
    if "SUBMISSIONS" in namespace:
        expected = namespace["EXPECTED_BY_SUBMISSION"]
        return {
            f"adversary_{name}": (replacements, expected[name])
            for name, replacements in namespace["SUBMISSIONS"].items()
        }
    return {"adversary": (namespace["SUBMISSION"], namespace["EXPECTED"])}


def adversary(released, replacements):
    notebook = nbformat.read(released, as_version=4)
    for cell in notebook.cells:
        grade_id = grader(cell).get("grade_id")
        if grader(cell).get("solution") and grade_id in replacements:
            cell.source = replacements[grade_id]
    return notebook


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_real_nbgrader_round(tmp_path, build_dir, path):
    """A real nbgrader course, one assignment per chapter. The instructor version gets full
    marks; the chapter's adversarial submission (hard-coded answers, forbidden references,
    monkeypatched comparisons, untouched and half-right exercises) gets exactly the points
    tests/submissions/ expects, fails only in grade cells, and check_submissions flags
    its monkeypatch and an edited grade cell."""
    assignment, course = path.stem, tmp_path / "course"
    source = course / "source" / assignment
    source.mkdir(parents=True)
    shutil.copy(
        build_dir / "nbgrader-source" / path.stem / path.name, source / path.name
    )
    nbgrader(course, "db", "assignment", "add", assignment)
    nbgrader(course, "generate_assignment", assignment, "--force")
    released = course / "release" / assignment / path.name

    attacks = submissions(path)
    students = {"instructor_copy": read_notebook(source / path.name)}
    for student, (replacements, _) in attacks.items():
        students[student] = adversary(released, replacements)
    for student, notebook in students.items():
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / path.name)
    nbgrader(
        course, "autograde", assignment, "--create", "--force"
    )  # default 30 s/cell

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        full = gradebook.find_submission_notebook(
            path.stem, assignment, "instructor_copy"
        )
        assert full.code_score == full.max_code_score > 0, (
            "instructor version lost points"
        )
        graded_ids = {
            g.name
            for g in gradebook.find_notebook(path.stem, assignment).grade_cells
            if g.cell_type == "code"
        }
        for student, (_, expected) in attacks.items():
            scores = {}
            for grade_id in expected:
                grade = gradebook.find_grade(grade_id, path.stem, assignment, student)
                scores[grade_id] = grade.auto_score
            assert scores == expected, f"{student}: got {scores}"
            assert set(expected) == graded_ids, (
                "EXPECTED must name every autograded cell"
            )

    for student in attacks:
        graded = nbformat.read(
            course / "autograded" / student / assignment / path.name, as_version=4
        )
        for cell in graded.cells:
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    assert grader(cell).get("grade"), (
                        f"{path.name}: a lecture cell fails in {student} with "
                        f"{output.ename}: {output.evalue}\n{cell.source[:300]}"
                    )

    # The checker flags the monkeypatch, and an edited grade cell.
    for student, (replacements, _) in attacks.items():
        tampered = adversary(released, replacements)
        grade_cell = next(
            c
            for c in tampered.cells
            if grader(c).get("grade") and c.cell_type == "code"
        )
        grade_cell.source += "\nassert True"
        nbformat.write(tampered, tmp_path / path.name)
        result = subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "check_submissions.py"),
                str(released),
                str(tmp_path / path.name),
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 1, student
        if any("np.allclose =" in source for source in replacements.values()):
            assert "rebinds np.allclose" in result.stdout, result.stdout
        edited = f"locked cell {grader(grade_cell)['grade_id']} was edited"
        assert edited in result.stdout, result.stdout
