"""The instructor pipeline: exercise metadata, student versions, and a real nbgrader round."""

import ast
import builtins
import contextlib
import csv
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import (
    NOTEBOOKS,
    ROOT,
    chapters,
    has_triton,
    needs_triton,
    read_notebook,
    require,
)

from grading import scan
from grading.handouts import ZIP_NAME, main as make_student
from reader_copies import MYST_SYNTAX, TARGETS
from upkeep.cells import grading, names_of, without_magics

ASSIGNMENT = "normbook"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")


def points(notebook):
    """(exercise count, autograded points, manually graded points) of a chapter."""
    count = sum(
        bool(re.search(r"^#{2,4} Exercise ", c.source, re.M))
        for c in notebook.cells
        if c.cell_type == "markdown"
    )
    graded = [c for c in notebook.cells if grading(c).get("grade")]
    auto = sum(grading(c)["points"] for c in graded if c.cell_type == "code")
    manual = sum(grading(c)["points"] for c in graded if c.cell_type == "markdown")
    return count, auto, manual


MARK_SCHEME = re.compile(r"\*\*Mark scheme \((\d+) points?\)")


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_metadata(path):
    notebook = read_notebook(path)
    cells = notebook.cells
    count, auto, _ = points(notebook)
    assert count >= 3, "a chapter needs at least 3 exercises"
    assert auto > 0, "a chapter needs at least one autograded coding exercise"
    ids = [grading(c)["grade_id"] for c in cells if grading(c)]
    assert len(ids) == len(set(ids)), "grade_ids must be unique within a notebook"
    for i, cell in enumerate(cells):
        meta = grading(cell)
        if not meta:
            continue
        assert meta["schema_version"] == 3
        if meta.get("solution") and cell.cell_type == "code":
            assert (
                "### BEGIN SOLUTION" in cell.source
                and "### END SOLUTION" in cell.source
            )
            following = next(c for c in cells[i + 1 :] if c.cell_type == "code")
            assert grading(following).get("grade") and grading(following).get(
                "locked"
            ), f"solution {meta['grade_id']} is not followed by a locked grade cell"
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
        if meta.get("solution") and cell.cell_type == "code":
            checkers = {"_compare"}  # the harness's; an exercise's grade cells add more
        if meta.get("grade") and cell.cell_type == "code":
            tree = ast.parse(without_magics(cell.source))
            checkers |= {
                f.name
                for f in tree.body
                if isinstance(f, ast.FunctionDef)
                and re.search(r"\bassert\b|AssertionError|_compare\(", ast.unparse(f))
            }
            called = {
                n.func.id
                for n in ast.walk(tree)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
            asserts = any(
                isinstance(n, (ast.Assert, ast.Raise)) for n in ast.walk(tree)
            )
            assert asserts or called & checkers, (
                f"{meta['grade_id']}: a grade cell asserts, or calls a checker that does"
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
def build_dir(tmp_path_factory, built_book):
    """`make student` into a folder of its own, from the site's build."""
    out = tmp_path_factory.mktemp("handouts")
    make_student(out, built_book.parent / TARGETS)
    return out


def test_handouts_have_no_myst(build_dir):
    """Every notebook a student or an instructor opens (hand-out, nbgrader source and
    so the release, the zips' copies) is as clean as the reader copies: no roles, no
    labels, no directives; each Task box a block quote, not a code block."""
    sheet = (ROOT / "grading" / "how-to-submit.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        for kind in ("student", "nbgrader-source"):
            notebook = read_notebook(build_dir / kind / path.stem / path.name)
            for cell in notebook.cells:
                if cell.cell_type == "markdown":
                    found = MYST_SYNTAX.search(cell.source)
                    assert not found, (
                        f"{kind}/{path.name}: {found[0]!r} in {cell.source}"
                    )
            boxes = [
                sum(c.source.count(box) for c in nb.cells if c.cell_type == "markdown")
                for nb, box in (
                    (read_notebook(path), "{admonition} Task"),
                    (notebook, "> **Task**"),
                )
            ]
            assert boxes[0] == boxes[1], f"{kind}/{path.name}: Task boxes {boxes}"
        with zipfile.ZipFile(build_dir / "student" / f"{path.stem}.zip") as archive:
            assert archive.read(f"{path.stem}/HOW-TO-SUBMIT.md").decode() == sheet
            handed = json.loads(archive.read(f"{path.stem}/{path.name}"))
        assert handed == json.loads(
            (build_dir / "student" / path.stem / path.name).read_text()
        )


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
            if not grading(c).get("solution") or c.cell_type == "code"
        )
        for cell in instructor.cells:
            for block in hidden.findall(cell.source):
                for line in block[1].splitlines():
                    if len(line.strip()) > 25 and line.strip() not in public:
                        assert line.strip() not in text, f"{path.name}: leaked: {line}"
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
        for cell in student.cells:
            if grading(cell).get("locked"):
                assert cell.metadata.get("editable") is False, "locked cells are locked"
            if grading(cell).get("grade"):
                assert grading(cell).get("checksum"), "grade cells carry a checksum"
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


def honest_rewrites(path):
    """HONEST in tests/submissions/cNN.py: solutions written unlike the model answers."""
    namespace = {}
    exec(
        (ROOT / "tests" / "submissions" / f"c{path.name[:2]}.py").read_text(), namespace
    )
    return namespace.get("HONEST", {})


def adversary(released, replacements):
    notebook = nbformat.read(released, as_version=4)
    for cell in notebook.cells:
        grade_id = grading(cell).get("grade_id")
        if grading(cell).get("solution") and grade_id in replacements:
            cell.source = replacements[grade_id]
    return notebook


def coding_exercises(notebook):
    """[(solution cell, [its grade cells])] in order."""
    exercises = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        if grading(cell).get("solution"):
            exercises.append((cell, []))
        elif grading(cell).get("grade") and exercises:
            exercises[-1][1].append(cell)
    return exercises


def defined_functions(source):
    tree = ast.parse(source)
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]


def forbidden_names(grade_cells):
    """The names an exercise's grade cells make unavailable (`_FORBIDDEN`)."""
    names = set()
    for cell in grade_cells:
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "_FORBIDDEN" for t in node.targets
            ):
                names |= set(ast.literal_eval(node.value))
    return sorted(names)


# Attacks that defeat checks running in the student's own kernel (the grader runs the
# checks in another process). Each replaces a solution cell; {name} is its function.
FRAME_ORACLE = """\
import sys


def {name}(*args, **kwargs):
    # Read the expected result off the caller's frames.
    frame = sys._getframe(1)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for key in ("_ref", "_reference", "_expected", "_want", "_r"):
                if key in scope:
                    return scope[key]
        frame = frame.f_back
    raise RuntimeError("no oracle found")
"""
LYING_ARRAY = """\
import sys

_np = sys.modules["numpy"]


class _Liar(_np.ndarray):
    # Equal to anything, and every difference is zero.
    def __eq__(self, other):
        return _np.ones(_np.shape(other), bool)

    def __sub__(self, other):
        return _np.zeros(_np.shape(other))


_np.ndarray = _Liar


def {name}(*args, **kwargs):
    out = _np.zeros(_np.shape(args[0])).view(_Liar)
    return (out, out, out)
"""
CAPTURED_REFERENCE = """\
def {name}(*args, _impl={forbidden}, **kwargs):
    return _impl(*args, **kwargs)
"""
CAPTURED_AUTOGRAD = "from torch.autograd import grad as _grad  # kept for later\n\n"
# Added cells (not solution cells): they run in the student's kernel only.
AST_TRANSFORMER = """\
import ast

from IPython import get_ipython


class _Forgive(ast.NodeTransformer):
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])
        body = [ast.Try(body=node.body, handlers=[handler], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


get_ipython().ast_transformers.append(_Forgive())
"""
REBOUND_FLOAT = "__builtins__.float = lambda *args: 0.0\n"


def generic_attacks(released, instructor, chapter):
    """A hand-out in which every coding exercise holds one of the attacks above (the
    kind rotates with the chapter, so the chapters together try each), behind two added
    cells that tamper with the kernel. Every grade cell must score 0."""
    notebook = nbformat.read(released, as_version=4)
    models = {
        grading(cell)["grade_id"]: (cell.source, forbidden_names(grade_cells))
        for cell, grade_cells in coding_exercises(instructor)
    }
    kinds = ["frame", "liar", "reference", "autograd"]
    for k, (cell, grade_cells) in enumerate(coding_exercises(notebook)):
        model, forbidden = models[grading(cell)["grade_id"]]
        name, kind = defined_functions(model)[0], kinds[(k + chapter) % len(kinds)]
        if kind == "reference" and forbidden:
            cell.source = CAPTURED_REFERENCE.format(name=name, forbidden=forbidden[0])
        elif kind == "autograd" and any(
            "_call_without" in c.source for c in grade_cells
        ):
            cell.source = CAPTURED_AUTOGRAD + model
        elif kind == "liar":
            cell.source = LYING_ARRAY.format(name=name)
        else:
            cell.source = FRAME_ORACLE.format(name=name)
    for added in (REBOUND_FLOAT, AST_TRANSFORMER):
        notebook.cells.insert(2, nbformat.v4.new_code_cell(added))
    return notebook


ESCAPES = {}
exec((ROOT / "tests" / "submissions" / "escapes.py").read_text(), ESCAPES)


def escape_attempts(released, instructor, token):
    """A hand-out in which every coding exercise holds the review's cheat
    (tests/submissions/escapes.py's COURSE_READER): it looks for the course through the
    grader's process, to read the model answer from source/ and import it from a
    module it writes into site-packages. Without the sandbox it scores full marks."""
    notebook = nbformat.read(released, as_version=4)
    models = {grading(c)["grade_id"]: c.source for c, _ in coding_exercises(instructor)}
    for cell, _ in coding_exercises(notebook):
        grade_id = grading(cell)["grade_id"]
        names = defined_functions(models[grade_id])
        reads = sorted(names_of(models[grade_id])[2] - set(dir(builtins)))
        cell.source = ESCAPES["course_reader"](grade_id, names, token, reads)
    return notebook


def honest_variant(notebook):
    """The model solutions as a student would hand them in: typed written answers, an
    added cell that tries things out, a module-level name of the student's own."""
    for cell in notebook.cells:
        meta = grading(cell)
        if meta.get("solution") and cell.cell_type == "code":
            cell.source = "my_check = 1  # a quick self-test of my own\n" + cell.source
        if meta.get("solution") and cell.cell_type == "markdown":
            cell.source = "My answer: see the derivation above."
    notebook.cells.insert(3, nbformat.v4.new_code_cell('print("trying things out")'))
    return notebook


def grade_course(course, assignment):
    result = subprocess.run(
        [sys.executable, "-m", "grading.grade", "--course", str(course)]
        + [assignment, "--json", str(course / "reports.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads((course / "reports.json").read_text())


@pytest.mark.grading
@pytest.mark.parametrize("path", chapters())
def test_grading_round(tmp_path, build_dir, path, artifacts, sandbox):
    """A real nbgrader course, one assignment per chapter, graded by grading/grade.py
    (the checks in another process than the student's code). The model solutions,
    handed in as a student would (typed answers, an added cell, a name of their own),
    and honest rewrites (tests/submissions/cNN.py's HONEST: einsum, explicit
    Jacobians, renamed variables) get full marks; the chapter's adversarial submission
    (hard-coded answers, forbidden references, monkeypatched comparisons, untouched and
    half-right exercises) gets exactly the points tests/submissions/ expects; the
    generic attacks (frame oracles, lying arrays, captured references and autograd,
    kernel hooks in added cells) get 0 and are flagged; the review's cheat, which
    reads the course's source/ and writes into site-packages, gets 0 and leaves
    nothing there (tests/test_sandbox.py shows that it works without the sandbox);
    check_submissions flags the monkeypatch and an edited grade cell."""
    if needs_triton(path):
        require(has_triton(), "no triton here (`make test-triton` grades this chapter)")
    assignment, course = path.stem, tmp_path / "course"
    source = course / "source" / assignment
    source.mkdir(parents=True)
    shutil.copy(
        build_dir / "nbgrader-source" / path.stem / path.name, source / path.name
    )
    nbgrader(course, "generate_assignment", assignment, "--force")  # adds it to the db
    released = course / "release" / assignment / path.name
    instructor = read_notebook(source / path.name)

    attacks = submissions(path)
    token = f"zz{secrets.token_hex(6)}"
    students = {
        "honest_variant": honest_variant(read_notebook(source / path.name)),
        "generic_attacks": generic_attacks(released, instructor, int(path.name[:2])),
        "escape_attempts": escape_attempts(released, instructor, token),
    }
    for student, (replacements, _) in attacks.items():
        students[student] = adversary(released, replacements)
    rewrites = honest_rewrites(path)
    if rewrites:  # the model solutions, with some rewritten in the student's own way
        students["honest_rewrite"] = adversary(source / path.name, rewrites)
    for student, notebook in students.items():
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / path.name)
    purelib = Path(sysconfig.get_paths()["purelib"])
    try:
        reports = grade_course(course, assignment)
    finally:
        written = sorted(purelib.glob(f"zz_answers_{token}_*.py"))
        for path in written:
            path.unlink()
    assert not written, f"a submission wrote into site-packages: {written}"
    (artifacts / "grading").mkdir(exist_ok=True)  # scores, flags and times, to read
    (artifacts / "grading" / f"{path.stem}.json").write_text(json.dumps(reports))

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        graded_ids = {
            g.name
            for g in gradebook.find_notebook(path.stem, assignment).grade_cells
            if g.cell_type == "code"
        }

        def scores(student):
            return {
                grade_id: gradebook.find_grade(
                    grade_id, path.stem, assignment, student
                ).auto_score
                for grade_id in graded_ids
            }

        full = gradebook.find_submission_notebook(
            path.stem, assignment, "honest_variant"
        )
        honest = reports[f"honest_variant/{path.name}"]
        assert full.code_score == full.max_code_score > 0, f"lost points: {honest}"
        assert not honest["flags"], honest["flags"]
        if rewrites:
            rewrite = reports[f"honest_rewrite/{path.name}"]
            full = gradebook.find_submission_notebook(
                path.stem, assignment, "honest_rewrite"
            )
            assert full.code_score == full.max_code_score, f"lost points: {rewrite}"
            assert not rewrite["flags"], rewrite["flags"]
        attacked = reports[f"generic_attacks/{path.name}"]
        assert set(scores("generic_attacks").values()) == {0}, attacked
        assert attacked["flags"], "the attacks' solution cells must be flagged"
        escaped = reports[f"escape_attempts/{path.name}"]
        assert set(scores("escape_attempts").values()) == {0}, escaped
        for student, (_, expected) in attacks.items():
            assert set(expected) == graded_ids, (
                "EXPECTED must name every autograded cell"
            )
            assert scores(student) == expected, reports[f"{student}/{path.name}"]

    graded = nbformat.read(
        course / "autograded" / "honest_variant" / assignment / path.name,
        as_version=4,
    )
    answers = [
        c
        for c in graded.cells
        if grading(c).get("solution") and c.cell_type == "markdown"
    ]
    schemes = [c for c in graded.cells if c.source.startswith("**For the grader")]
    assert len(schemes) == len(answers), "formgrader's copy shows every mark scheme"

    # The checker flags the monkeypatch, and an edited grade cell.
    for student, (replacements, _) in attacks.items():
        tampered = adversary(released, replacements)
        grade_cell = next(
            c
            for c in tampered.cells
            if grading(c).get("grade") and c.cell_type == "code"
        )
        grade_cell.source += "\nassert True"
        nbformat.write(tampered, tmp_path / path.name)
        out = io.StringIO()  # `python -m grading.scan RELEASED SUBMITTED`, run here
        with contextlib.redirect_stdout(out):
            status = scan.main([str(released), str(tmp_path / path.name)])
        assert status == 1, student
        if any("np.allclose =" in source for source in replacements.values()):
            assert "rebinds np.allclose" in out.getvalue(), out.getvalue()
        edited = f"locked cell {grading(grade_cell)['grade_id']} was edited"
        assert edited in out.getvalue(), out.getvalue()


WORKFLOW_CHAPTER = "03-layernorm-backward"
DUE = "2026-03-02 23:59 UTC"
ROSTER = """id,first_name,last_name,email,lms_id
s1001,Ada,Honest,ada@example.edu,48213
s1002,Ben,Late,ben@example.edu,48215
s1003,Cy,Moodle,cy@example.edu,777
s1004,Dee,Absent,dee@example.edu,48299
"""


def documented_steps():
    """The commands of book/instructors.md's course block, in order: nbgrader's
    subcommands, the book's make targets, and `jupyter lab` (the formgrader)."""
    text = (ROOT / "book" / "instructors.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\nbook=.*?```", text, re.S)[0]
    steps = []
    for line in block.splitlines():
        if found := re.match(r"nbgrader (db \w+ \w+|\w+)", line):
            steps.append(f"nbgrader {found[1]}")
        elif found := re.match(r"make -C \$book ([\w-]+)", line):
            steps.append(f"make {found[1]}")
        elif line.startswith("jupyter lab"):
            steps.append("jupyter lab")
    config = re.search(r"```python\n(c = get_config\(\).*?)```", text, re.S)[1]
    return steps, config


def run_module(module, *args):
    """`make -C $book TARGET`: the module run from the book's root, with the
    environment's scripts on PATH, as the instructors' page sets it."""
    env = dict(
        os.environ, PATH=f"{Path(NBGRADER).parent}{os.pathsep}{os.environ['PATH']}"
    )
    result = subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.grading
def test_course_workflow(tmp_path, build_dir, sandbox):
    """book/instructors.md's course block, step by step, on chapter 03: the course and
    its roster, the assignment released, a Canvas-style zip (one file renamed, one
    LATE) and a Moodle-style zip collected through the roster's LMS ids, graded, the
    written answers in formgrader's list with the mark schemes beside them, graded by
    hand as formgrader does, feedback without model answers or mark schemes, and the
    grades CSV with points per exercise and the late penalty."""
    steps, config = documented_steps()
    assert steps == [
        "nbgrader db assignment add",
        "nbgrader db student import",
        "nbgrader generate_assignment",
        "make collect",
        "make grade",
        "make check-submissions",
        "jupyter lab",
        "make feedback",
        "make export",
    ], "the test runs the documented steps in this order"
    ch, course = WORKFLOW_CHAPTER, tmp_path / "course"
    (course / "source" / ch).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(config)
    (course / "students.csv").write_text(ROSTER)
    shutil.copy(
        build_dir / "nbgrader-source" / ch / f"{ch}.ipynb", course / "source" / ch
    )
    env = dict(
        os.environ, PATH=f"{Path(NBGRADER).parent}{os.pathsep}{os.environ['PATH']}"
    )
    for args in (
        ["db", "assignment", "add", ch, f"--duedate={DUE}"],
        ["db", "student", "import", "students.csv"],
        ["generate_assignment", ch],
    ):
        done = subprocess.run(
            [NBGRADER, *args], cwd=course, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    released = course / "release" / ch / f"{ch}.ipynb"
    source = read_notebook(course / "source" / ch / f"{ch}.ipynb")

    # The downloads: Ada on time and Ben late (Canvas: user ids, LATE in the name),
    # Cy in Moodle's folders; Dee hands in nothing.
    answers = honest_variant(read_notebook(course / "source" / ch / f"{ch}.ipynb"))
    model = nbformat.writes(
        adversary(
            released,
            {grading(c)["grade_id"]: c.source for c in answers.cells if grading(c)},
        )
    )
    ben = read_notebook(released)
    answer = next(
        c for c in ben.cells if c.cell_type == "markdown" and grading(c).get("solution")
    )
    answer.source = "Ben's own words on the derivation."
    downloads = {
        "canvas.zip": [
            ("honestada_48213_901_ch03 final (2).ipynb", model, (2026, 3, 2, 20, 0, 0)),
            (
                "lateben_LATE_48215_902_backward.ipynb",
                nbformat.writes(ben),
                (2026, 3, 4, 5, 59, 0),
            ),
            ("lateben_48215_903_notes.txt", "not a notebook", (2026, 3, 2, 10, 0, 0)),
        ],
        "moodle.zip": [
            (
                "Cy Moodle_777_assignsubmission_file_/mine.ipynb",
                model,
                (2026, 3, 2, 23, 0, 0),
            ),
        ],
    }
    for name, files in downloads.items():
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            for path, text, when in files:
                archive.writestr(zipfile.ZipInfo(path, when), text)
    status, out = run_module(
        "grading.collect",
        course,
        tmp_path / "canvas.zip",
        "--roster",
        course / "students.csv",
    )
    assert status == 1 and "lateben_48215_903_notes.txt: not a notebook" in out, out
    status, out = run_module(
        "grading.collect",
        course,
        tmp_path / "moodle.zip",
        "--roster",
        course / "students.csv",
    )
    assert status == 0, out
    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["s1001", "s1002", "s1003"]
    kept = json.loads((submitted / "s1002" / ch / "collected.json").read_text())
    assert kept == {
        "lms_id": "48215",
        "file": "lateben_LATE_48215_902_backward.ipynb",
        "submitted_at": "2026-03-04 05:59:00 UTC",
        "late": True,
    }

    status, out = run_module("grading.grade", "--course", course, ch, "--jobs", "2")
    assert status == 0, out
    status, out = run_module(
        "grading.scan",
        "--source",
        course / "source" / ch / f"{ch}.ipynb",
        released,
        *sorted(submitted.glob(f"*/{ch}/{ch}.ipynb")),
    )
    assert status == 0, out

    # Formgrader (JupyterLab > Nbgrader > Formgrader) lists the submissions through
    # nbgrader's API, the written answers waiting, the mark schemes beside them.
    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    api = NbGraderAPI(CourseDirectory(root=str(course)))
    listed = {s["student"]: s for s in api.get_notebook_submissions(ch, ch)}
    assert set(listed) == {"s1001", "s1002", "s1003"}
    assert all(s["needs_manual_grade"] for s in listed.values())
    graded = read_notebook(course / "autograded" / "s1002" / ch / f"{ch}.ipynb")
    notes = [c for c in graded.cells if "for-the-grader" in c.metadata.get("tags", [])]
    written = [
        c
        for c in source.cells
        if c.cell_type == "markdown" and grading(c).get("solution")
    ]
    assert len(notes) == len(written) > 0
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        for student in ("s1001", "s1002", "s1003"):
            grades = gradebook.find_submission(ch, student).notebooks[0].grades
            waiting = {g.name for g in grades if g.needs_manual_grade}
            assert waiting == {grading(c)["grade_id"] for c in written}, student
            for grade in grades:
                if grade.needs_manual_grade:  # what formgrader's points box does
                    grade.manual_score = grade.max_score if student != "s1002" else 1
                    grade.needs_manual_grade = False
        gradebook.db.commit()

    status, out = run_module("grading.feedback", course, ch)
    assert status == 0, out
    page = (course / "feedback" / "s1002" / ch / f"{ch}.html").read_text()
    assert "Ben&#39;s own words" in page or "Ben's own words" in page
    # The graded notebook holds the mark schemes (formgrader's copy); no page does.
    assert all(MARK_SCHEME.search(c.source) for c in notes)
    for page in (course / "feedback").glob(f"*/{ch}/{ch}.html"):
        text = page.read_text()
        for leak in ("For the grader", "Mark scheme (", "Solution and mark scheme"):
            assert leak not in text, f"{page.parent.parent.name}'s feedback: {leak}"

    status, out = run_module(
        "grading.export", course, ch, "--due", DUE, "--roster", course / "students.csv"
    )
    assert status == 0, out
    with open(course / f"grades-{ch}.csv", newline="") as stream:
        rows = {r["id"]: r for r in csv.DictReader(stream)}
    assert set(rows) == {"s1001", "s1002", "s1003", "s1004"}, "the roster, no one else"
    exercises = [k for k in rows["s1001"] if k.startswith("Exercise ")]
    assert exercises == [f"Exercise 3.{k}" for k in range(1, len(exercises) + 1)]
    _, auto, manual = points(read_notebook(ROOT / "notebooks" / f"{ch}.ipynb"))
    total = auto + manual
    ada, ben, cy, dee = (rows[k] for k in ("s1001", "s1002", "s1003", "s1004"))
    assert float(ada["points"]) == float(ada["max_points"]) == total
    assert (ada["late"], ada["late_penalty"], ada["score"]) == (
        "no",
        "0.0",
        ada["points"],
    )
    assert float(cy["score"]) == total and cy["lms_id"] == "777"
    assert ben["submitted_at"] == "2026-03-04 05:59:00 UTC"
    assert (ben["late"], ben["days_late"]) == ("yes", "2")  # 30 h after the due time
    ben_points = float(ben["points"])
    assert ben_points == sum(float(ben[e]) for e in exercises) > 0
    assert float(ben["late_penalty"]) == pytest.approx(0.2 * ben_points, abs=0.01)
    assert (dee["points"], dee["score"], dee["submitted_at"]) == ("0.0", "0.0", "")
    assert all(r["to_grade_by_hand"] == "0" for r in rows.values())


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_make_grade_runs_each_chapter_where_it_runs(path):
    """`make grade` grades a chapter whose code imports triton with .venv-triton's
    Python (where `make test-triton` runs its grading round), every other with .venv's."""
    result = subprocess.run(
        ["make", "-n", "grade", f"ASSIGNMENT={path.stem}", "COURSE=/course"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    venv = ".venv-triton" if needs_triton(path) else ".venv"
    assert f"{venv}/bin/python -m grading.grade --course /course" in result.stdout


@pytest.mark.grading
def test_gradescope_autograder(tmp_path, build_dir):
    """The Gradescope zip holds setup.sh and run_autograder (executable), the
    instructor notebook and the grader; its `results` step grades the model answers
    to full autograded marks and reports a missing notebook, in Gradescope's format."""
    from grading import gradescope

    ch = WORKFLOW_CHAPTER
    archive = gradescope.make_zip(
        ch, tmp_path / "ag.zip", build_dir / "nbgrader-source"
    )
    with zipfile.ZipFile(archive) as zipped:
        names = set(zipped.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in zipped.infolist()}
        setup = zipped.read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", f"{ch}.ipynb", "requirements.txt"} <= names
    assert {"grading/grade.py", "grading/runner.py", "normbook/grading.py"} <= names
    assert modes["setup.sh"] & modes["run_autograder"] & 0o111
    assert f"mv /autograder/source/{ch}.ipynb /root/course/" in setup

    source = build_dir / "nbgrader-source" / ch / f"{ch}.ipynb"
    (tmp_path / "course" / "source" / ch).mkdir(parents=True)
    shutil.copy(source, tmp_path / "course" / "source" / ch)
    nbgrader(tmp_path / "course", "generate_assignment", ch, "--force")
    released = tmp_path / "course" / "release" / ch / f"{ch}.ipynb"
    answers = read_notebook(source)
    model = adversary(
        released,
        {grading(c)["grade_id"]: c.source for c in answers.cells if grading(c)},
    )
    (tmp_path / "submission").mkdir()
    nbformat.write(model, tmp_path / "submission" / "mine (1).ipynb")
    out = tmp_path / "results" / "results.json"
    assert (
        gradescope.main(
            ["results", str(source), str(tmp_path / "submission"), str(out)]
        )
        == 0
    )
    results = json.loads(out.read_text())
    _, auto, _ = points(read_notebook(ROOT / "notebooks" / f"{ch}.ipynb"))
    assert sum(t["max_score"] for t in results["tests"]) == auto
    assert [t["score"] for t in results["tests"]] == [
        t["max_score"] for t in results["tests"]
    ]
    assert all(t["output"] == "all tests passed" for t in results["tests"])

    (tmp_path / "empty").mkdir()
    gradescope.main(["results", str(source), str(tmp_path / "empty"), str(out)])
    results = json.loads(out.read_text())
    assert "exactly one notebook" in results["output"]
    assert sum(t["score"] for t in results["tests"]) == 0


@pytest.mark.grading
def test_variants_have_private_tasks_and_seeds_and_are_checked(
    tmp_path, built_book, monkeypatch
):
    """`make variants SEED=...`: every coding exercise becomes one variant of its
    bank, drawn from SEED (each variant reachable), every hidden-test seed is drawn
    from SEED too, the same SEED gives the same notebook; a variant is written only
    when its model answers get every point and the book's public answers lose
    points; otherwise it is reported, not written."""
    from grading import gradescope, variants
    from grading.bank import Edit, Variant, bank

    ch = WORKFLOW_CHAPTER
    targets = variants.load_targets(built_book.parent / TARGETS)
    book = read_notebook(ROOT / "notebooks" / f"{ch}.ipynb")
    public = variants.nbgrader_source(book, targets, f"notebooks/{ch}")
    assert variants.write_variant(ch, 2026, tmp_path / "a", targets) == []
    folder = tmp_path / "a" / "2026"
    assert [p.name for p in (folder / "source" / ch).iterdir()] == [f"{ch}.ipynb"]
    mine = read_notebook(folder / "source" / ch / f"{ch}.ipynb")
    chosen = variants.choose(ch, 2026)
    assert set(chosen) == set(bank(ch)) and chosen
    chosen_text = (folder / "chosen" / f"{ch}.md").read_text()
    assert all(f"{e}: {v.name}" in chosen_text for e, v in chosen.items())
    handout = read_notebook(folder / "student" / ch / f"{ch}.ipynb")
    assert [c.source for c in handout.cells] == [
        c.source for c in variants.student_version(mine).cells
    ]
    text = "".join(c.source for c in handout.cells)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    again = variants.reseeded(variants.source_with(ch, chosen, targets), 2026)
    assert [c.source for c in again.cells] == [c.source for c in mine.cells]
    for exercise, options in bank(ch).items():
        drawn = {variants.choose(ch, seed)[exercise].name for seed in range(100)}
        assert drawn == {v.name for v in options}, f"{exercise}: some never drawn"
        solutions = [
            (old.source, new.source)
            for old, new in zip(public.cells, mine.cells)
            if grading(old).get("solution")
            and grading(old)["grade_id"].startswith(exercise + "-")
        ]
        assert any(old != new for old, new in solutions), f"{exercise} unchanged"
    book_seeds = {s for _, s in variants.hidden_seeds(public)}
    my_seeds = {s for _, s in variants.hidden_seeds(mine)}
    assert len(book_seeds) >= 3 and not book_seeds & my_seeds
    other = variants.reseeded(mine, 2027)
    assert variants.hidden_seeds(other) != variants.hidden_seeds(mine)
    autograder = gradescope.make_zip(ch, tmp_path / "gs.zip", folder / "source")
    with zipfile.ZipFile(autograder) as archive:
        written = (folder / "source" / ch / f"{ch}.ipynb").read_bytes()
        assert archive.read(f"{ch}.ipynb") == written
        assert not [n for n in archive.namelist() if n.startswith("grading/bank/")]

    exercise = next(iter(bank(ch)))
    solution = next(
        c
        for c in book.cells
        if grading(c).get("solution")
        and c.cell_type == "code"
        and grading(c)["grade_id"].startswith(exercise + "-")
    )
    test = next(
        c
        for c in book.cells
        if grading(c).get("grade")
        and c.cell_type == "code"
        and grading(c)["grade_id"].startswith(exercise + "-")
    )
    broken = re.sub(
        r"(### BEGIN SOLUTION\n).*?(\n\s*### END SOLUTION)",
        r"\1    raise NotImplementedError()\2",
        solution.source,
        flags=re.S,
    )
    kept = Edit(test.metadata.nbgrader["grade_id"], test.source, test.source + "\n")
    for name, edit, expected in (
        ("broken", Edit(solution.id, solution.source, broken), "the model answer gets"),
        (
            "cosmetic",
            Edit(solution.id, solution.source, solution.source + "\n"),
            "the book's answer to",
        ),
    ):
        fake = {exercise: [Variant(name, name, (edit, kept))]}
        monkeypatch.setattr(variants, "bank", lambda chapter, fake=fake: fake)
        problems = variants.write_variant(ch, 2026, tmp_path / name, targets)
        assert problems and expected in problems[0], problems
        assert not list((tmp_path / name).rglob("*.ipynb"))
