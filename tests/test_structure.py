"""Structure of the repository and of every notebook (fast checks, no execution)."""

import ast
import json
import re
import subprocess
import sys

import nbformat
import pytest

from conftest import NOTEBOOKS, ROOT, notebook_title, read_notebook, toc_files
from upkeep.cells import grading, without_magics

pytestmark = pytest.mark.static

MACHINE_PATH = re.compile(
    r"(/home/|/root/|/work/|/tmp/|/Users/|[A-Z]:\\\\Users|site-packages)"
)


def test_every_toc_entry_exists():
    for entry in toc_files():
        matches = [p for p in ROOT.glob(entry + ".*") if p.suffix in (".md", ".ipynb")]
        assert matches, f"_toc.yml names {entry}, which does not exist"


def test_every_notebook_is_in_toc():
    entries = set(toc_files())
    for path in NOTEBOOKS:
        assert f"notebooks/{path.stem}" in entries, (
            f"{path.name} is missing from _toc.yml"
        )


def test_notebook_names():
    for path in NOTEBOOKS:
        assert re.fullmatch(r"\d\d-[a-z0-9-]+\.ipynb", path.name), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_executed_and_clean(path):
    notebook = read_notebook(path)
    nbformat.validate(notebook)  # e.g. no comma in a tag: nbgrader refuses those
    # every cell with its own id as stored (reading adds a missing one, unsaved)
    ids = [c.get("id") for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    assert None not in ids and len(set(ids)) == len(ids), "a cell lacks a unique id"
    assert notebook_title(notebook), "the first cell must start with '# Title'"
    assert notebook.metadata.kernelspec.name == "python3"
    assert "widgets" not in notebook.metadata, (
        "widget state is stored (run `make execute`)"
    )
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), (
        "execution counts are not 1..n: re-run with `make execute`"
    )
    for cell in code:
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        assert all(a != b or a[0] != "stream" for a, b in zip(kinds, kinds[1:])), (
            f"cell {cell.execution_count}: one print split in two outputs (`make execute`)"
        )
        for output in cell.outputs:
            assert output.output_type != "error", (
                f"stored error in cell {cell.execution_count}"
            )
            text = str(output.get("text", "")) + str(
                output.get("data", {}).get("text/plain", "")
            )
            assert not MACHINE_PATH.search(text), (
                f"machine path in output of cell {cell.execution_count}"
            )


def test_no_checkpoints_or_caches_committed():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    bad = [
        f
        for f in tracked
        if re.search(
            r"(\.ipynb_checkpoints|__pycache__|\.pytest_cache|^_build/|^data/)", f
        )
    ]
    assert not bad, bad


def test_shared_code_in_sync():
    """Every synced cell (the grading harness too) equals its source in normbook/."""
    result = subprocess.run(
        [sys.executable, "-m", "upkeep.sync", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_one_grading_harness_before_the_grade_cells(path):
    """The harness stands once, in a locked cell tagged sync:grading before the first
    grade cell that uses it; no grade cell carries a copy."""
    cells = read_notebook(path).cells
    harness = [
        k for k, c in enumerate(cells) if "sync:grading" in c.metadata.get("tags", [])
    ]
    uses = [
        k
        for k, c in enumerate(cells)
        if grading(c).get("grade")
        and c.cell_type == "code"
        and re.search(r"\b_(call_without|compare|normwise_error)\(", c.source)
    ]
    assert len(harness) == (1 if uses else 0), f"harness cells {harness}"
    if uses:
        assert harness[0] < uses[0], "the harness comes after a grade cell using it"
        assert grading(cells[harness[0]]).get("locked"), "the harness is not locked"
    copies = [k for k, c in enumerate(cells) if "GRADING HARNESS" in c.source]
    assert not copies, f"cells {copies} carry a copy of the harness"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_an_exercise_defines_each_reference_once(path):
    """A grade cell does not define again a function, class or literal constant that an
    earlier grade cell of the same exercise defined (it uses that one)."""
    repeated, seen = [], {}
    for k, cell in enumerate(read_notebook(path).cells):
        if cell.cell_type != "code":
            continue
        if grading(cell).get("solution"):
            seen = {}
        elif grading(cell).get("grade"):
            for node in ast.parse(without_magics(cell.source)).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Assign)):
                    key = ast.dump(node)
                    if isinstance(node, ast.Assign):
                        try:
                            ast.literal_eval(node.value)
                        except ValueError:
                            continue
                    if key in seen:
                        repeated.append(f"cell {k} repeats cell {seen[key]}")
                    seen.setdefault(key, k)
    assert not repeated, repeated


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_has_an_interactive_figure(path):
    notebook = read_notebook(path)
    helper = [c for c in notebook.cells if "sync:figures" in c.metadata.get("tags", [])]
    assert len(helper) == 1, "each chapter defines the figure helpers once"
    used = [
        c
        for c in notebook.cells
        if c.cell_type == "code"
        and "interactive_figure(" in c.source
        and c is not helper[0]
    ]
    assert used, "no interactive figure"
    for cell in used:
        assert "nbval-ignore-output" in cell.metadata.get("tags", []), (
            "widget cells must carry the nbval-ignore-output tag"
        )
        html = [o for o in cell.outputs if "text/html" in o.get("data", {})]
        assert html and 'class="interactive-figure"' in html[0]["data"]["text/html"], (
            "the stored output lacks the kernel-free fallback"
        )


def test_colab_badges_match_repository_setting():
    result = subprocess.run(
        [sys.executable, "-m", "upkeep.badges", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


LINE_LIMIT = 88


def _code_cells(notebook):
    return [c for c in notebook.cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_and_printed_lines_fit_the_column(path):
    """Code lines and printed output lines are at most 88 characters (`make format`)."""
    long_lines = []
    for cell in _code_cells(read_notebook(path)):
        for line in cell.source.splitlines():
            if len(line) > LINE_LIMIT:
                long_lines.append(f"cell {cell.execution_count} code: {line[:60]}...")
        for output in cell.outputs:
            text = (
                output.get("text", "")
                if output.output_type == "stream"
                else output.get("data", {}).get("text/plain", "")
            )
            if "text/html" in output.get("data", {}):
                continue  # rich outputs (tables, figures) are laid out by the browser
            for line in str(text).splitlines():
                if len(line) > LINE_LIMIT:
                    long_lines.append(
                        f"cell {cell.execution_count} output: {line[:60]}..."
                    )
    assert not long_lines, "\n".join(long_lines)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_headings_hold_no_math(path):
    """The table of contents shows headings as plain text: no $...$ in a heading."""
    for cell in read_notebook(path).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                assert not (line.startswith("#") and "$" in line), line


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_test_tooling_in_the_text(path):
    """Test markers are cell tags, never comments or prose the reader sees."""
    for cell in read_notebook(path).cells:
        assert "NBVAL" not in cell.source, f"NBVAL marker in: {cell.source[:80]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_folded_code_starts_collapsed_in_jupyter(path):
    """What the site folds (hide-input) starts collapsed in JupyterLab and Colab too,
    except an exercise's solution cell, where the student writes (the reader copies
    collapse those)."""
    open_cells = [
        k
        for k, cell in enumerate(read_notebook(path).cells)
        if "hide-input" in cell.metadata.get("tags", [])
        and not cell.metadata.get("nbgrader", {}).get("solution")
        and not cell.metadata.get("jupyter", {}).get("source_hidden")
    ]
    assert open_cells == [], f"folded on the site, open in Jupyter: cells {open_cells}"


def _only_assertions(source):
    """True for code that asserts and does nothing else, perhaps under
    `if not AUTOGRADING:`."""
    try:
        body = ast.parse(source).body
    except SyntaxError:  # IPython magics: not a check cell
        return False
    if len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        if ast.unparse(body[0].test) == "not AUTOGRADING":
            body = body[0].body
    return bool(body) and all(isinstance(statement, ast.Assert) for statement in body)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_checks_are_folded_and_labelled(path):
    """A cell of assertions only is verification, not teaching code: the page folds it
    under a label that starts with "Checks:" and says what it checks."""
    unfolded = [
        cell.execution_count
        for cell in _code_cells(read_notebook(path))
        if _only_assertions(cell.source)
        and "nbgrader" not in cell.metadata
        and not (
            "hide-input" in cell.metadata.get("tags", [])
            and cell.metadata.get("mystnb", {})
            .get("code_prompt_show", "")
            .startswith("Checks: ")
        )
    ]
    assert unfolded == [], f"unfolded checks in cells {unfolded}"


def _is_exercise_cell(cell):
    """An nbgrader grade or solution cell: it tests or answers the reader."""
    nbgrader = cell.metadata.get("nbgrader", {})
    return bool(nbgrader.get("grade") or nbgrader.get("solution"))


def _asserts_outside_functions(source):
    """True for code that asserts outside a function body (a function's own checks of
    its input are part of what it teaches)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

    def asserts(node):
        if isinstance(node, ast.Assert):
            return True
        return not isinstance(node, definitions) and any(
            asserts(child) for child in ast.iter_child_nodes(node)
        )

    return any(asserts(statement) for statement in body)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_teaching_code_shows_no_assertions(path):
    """Open code teaches; the assertions that guard its claims sit in the folded
    "Checks: ..." cell after it (exercise cells, which test the reader, excepted)."""
    visible = [
        cell.execution_count
        for cell in _code_cells(read_notebook(path))
        if _asserts_outside_functions(cell.source)
        and "hide-input" not in cell.metadata.get("tags", [])
        and not _is_exercise_cell(cell)
    ]
    assert visible == [], f"assertions in open code cells {visible}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_fold_says_what_it_folds(path):
    """A folded cell opens under its own label, never myst-nb's "Show code cell source"
    (grade and solution cells get theirs from the page build)."""
    unlabelled = [
        cell.execution_count
        for cell in _code_cells(read_notebook(path))
        if "hide-input" in cell.metadata.get("tags", [])
        and not cell.metadata.get("mystnb", {}).get("code_prompt_show")
        and not _is_exercise_cell(cell)
    ]
    assert unlabelled == [], f"folds without a label in cells {unlabelled}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_fold_labels_number_figures_as_the_captions_do(path):
    """A fold that names one of the chapter's figures calls it "Fig. C.N", as its caption
    on the page does, and a figure's own fold gives its own number."""
    chapter, number, wrong = int(path.name[:2]), 0, []
    for cell in _code_cells(read_notebook(path)):
        meta = cell.metadata.get("mystnb", {})
        label = meta.get("code_prompt_show", "")
        number += "figure" in meta
        if re.search(r"\bFigure \d", label) and "reproduction" not in label:
            wrong.append(label)  # "Figure 6 reproduction": a paper's figure
        named = re.findall(rf"\bFig\. {chapter}\.(\d+)", label)
        if "figure" in meta and named and named != [str(number)]:
            wrong.append(f"{label} (it is Fig. {chapter}.{number})")
    assert wrong == [], wrong


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_interactive_figure_folds_name_their_number(path):
    """A folded interactive figure's label names it as its caption on the page does
    ("Interactive fig. C.N", numbered in the chapter's order by the page build)."""
    chapter, number, wrong = int(path.name[:2]), 0, []
    for cell in _code_cells(read_notebook(path)):
        html = "".join(
            "".join(o.get("data", {}).get("text/html", ""))
            for o in cell.get("outputs", [])
        )
        if 'class="interactive-figure"' not in html:
            continue
        number += 1
        label = cell.metadata.get("mystnb", {}).get("code_prompt_show")
        expected = f"Show the plotting code for Interactive fig. {chapter}.{number}"
        if "hide-input" in cell.metadata.get("tags", []) and label != expected:
            wrong.append(label)
    assert number and wrong == [], wrong


def _pictures(cell):
    """How many figures a cell shows with normbook/figures.py's `show_figure`."""
    return sum(
        'class="figure-pair"' in "".join(o.get("data", {}).get("text/html", ""))
        for o in cell.get("outputs", [])
    )


def _is_static_figure(cell):
    return _pictures(cell) > 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_static_figure_is_numbered_captioned_and_described(path):
    notebook = read_notebook(path)
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for cell in filter(_is_static_figure, _code_cells(notebook)):
        meta = cell.metadata.get("mystnb", {})
        figure, image = meta.get("figure", {}), meta.get("image", {})
        where = f"figure in cell {cell.execution_count}"
        assert figure.get("caption") and figure.get("name"), (
            f"{where} has no caption/name"
        )
        assert len(image.get("alt", "")) > 15, f"{where} has no real alt text"
        assert f"{{numref}}`{figure['name']}`" in prose, (
            f"{where} ({figure['name']}) is never referenced with {{numref}}"
        )
        assert _pictures(cell) == 1, f"{where} shows {_pictures(cell)} figures"


# A figure's pictures in a cell's output: [(media query or None, width, height)], the
# stacked one first (normbook/figures.py's show_figure and interactive_figure).
PICTURE = re.compile(
    r'<(source) media="([^"]+)" srcset="[^"]+" width="(\d+)" height="(\d+)">'
    r'|<(img) [^>]*?width="(\d+)" height="(\d+)"'
)
COLUMN = 358  # the book's column on a 390 px phone, in CSS px


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_a_layout_that_fits_a_phone(path):
    """Figures go through show_figure or interactive_figure (no bare image output), and
    each one wider than a phone's column carries a stacked layout that fits it, shown
    on screens narrower than the laid-out figure (print keeps the laid-out one)."""
    seen = 0
    for cell in _code_cells(read_notebook(path)):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            assert "image/png" not in data, "a figure shown without show_figure"
            text = "".join(data.get("text/html", ""))
            if 'class="figure-pair"' not in text and "interactive-figure" not in text:
                continue
            seen += 1
            found = [m.groups() for m in PICTURE.finditer(text)]
            stacked = [(int(w), media) for _, media, w, _, *_ in found if media]
            wide = [int(w) for *_, img, w, _ in found if img]
            assert len(wide) == 1 and len(stacked) <= 1, found
            if wide[0] > COLUMN:
                assert stacked and stacked[0][0] <= COLUMN, (wide, stacked)
                media = f"screen and (max-width: {wide[0] + 31}px)"
                assert stacked[0][1] == media, stacked
    assert seen, "no figure"


def test_slider_labels_read_as_the_tables_write_them():
    """Chapter 13's learning-rate slider writes its rates as its tables print them."""
    notebook = read_notebook(ROOT / "notebooks" / "13-instability.ipynb")
    printed = "\n".join(
        output.get("text", "")
        for cell in _code_cells(notebook)
        for output in cell.get("outputs", [])
    )
    row = re.search(r"^\s*peak rate((?:\s+[\d.]+){8})$", printed, re.M)
    figure = next(
        "".join(o["data"]["text/html"])
        for cell in _code_cells(notebook)
        for o in cell.get("outputs", [])
        if "peak rate" in "".join(o.get("data", {}).get("text/html", ""))
    )
    data = json.loads(re.search(r'"application/json">(.*?)</script>', figure)[1])
    assert row and data["labels"][0] == row[1].split()


EXERCISE = re.compile(r"^#{2,4} Exercise [^\n]*", re.M)
POINTS = re.compile(r"\((\d+) points?\)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exercise_heading_shows_its_points(path):
    """Each exercise heading says "(N points)", N = the points of the cells that follow it,
    and sets its task in a Task box, as every chapter does."""
    headings, totals, current = [], {}, None
    for cell in read_notebook(path).cells:
        heading = EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if heading:
            current = heading.group(0)
            match = POINTS.search(current)
            assert match, f"exercise heading without points: {current}"
            assert "```{admonition} Task" in cell.source, f"{current}: no Task box"
            headings.append((current, int(match.group(1))))
            totals[current] = 0
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade") and current is not None:
            totals[current] += grading.get("points", 0)
    assert len(headings) >= 3, "a chapter has at least three exercises"
    for heading, points in headings:
        assert totals[heading] == points, (
            f"{heading}: the heading says {points}, its cells give {totals[heading]}"
        )


PARAMETERS = ("SEEDS", "AUTOGRADING", "FULL_SCALE", "BENCHMARK")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_one_parameters_cell(path):
    """SEEDS (a literal list), AUTOGRADING and any FULL_SCALE or BENCHMARK are set in one
    cell tagged `parameters`, the one place upkeep/variant.py changes, and nowhere else;
    it is folded, so that a reader's first code is the chapter's, not its plumbing."""
    cells = _code_cells(read_notebook(path))
    tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "expected one code cell tagged `parameters`"
    assert "hide-input" in tagged[0].metadata["tags"], "the parameters cell is folded"
    for cell in cells:
        source = without_magics(cell.source)
        assigned = {
            target.id
            for node in ast.parse(source).body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name) and target.id in PARAMETERS
        }
        if cell is tagged[0]:
            assert {"SEEDS", "AUTOGRADING"} <= assigned, (
                "SEEDS and AUTOGRADING belong here"
            )
            seeds = next(
                n.value
                for n in ast.parse(source).body
                if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "SEEDS"
            )
            assert isinstance(ast.literal_eval(seeds), list), (
                "SEEDS must be a literal list"
            )
        else:
            assert not assigned, f"cell {cell.execution_count} sets {sorted(assigned)}"


def test_a_notebooks_cells_run_on_one_worker():
    """`make test` runs two xdist workers; nbval's cells of one notebook share a kernel,
    so they are scheduled as one unit, and every other test alone."""
    from conftest import work_unit

    cell = "_build/standalone/04-rmsnorm/04-rmsnorm.ipynb::Cell {}"
    assert work_unit(cell.format(1)) == work_unit(cell.format(40))
    assert work_unit("tests/test_lab.py::test_a") != work_unit(
        "tests/test_lab.py::test_b"
    )


@pytest.mark.static
def test_no_module_changes_where_imports_come_from():
    """Tools run as `python -m package.module` from the repository root, and tests with
    pyproject.toml's pythonpath: no file of the project edits sys.path."""
    folders = ["normbook", "grading", "upkeep", "measure", "tests", "book/_ext"]
    for path in sorted(p for f in folders for p in (ROOT / f).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = node.func.value
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = getattr(node, "targets", None) or [node.target]
                target = targets[0]
            else:
                continue
            text = ast.unparse(target)
            assert text != "sys.path", f"{path.relative_to(ROOT)}:{node.lineno}"


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_hidden_tests_begin_where_they_end(path):
    """nbgrader hides only what lies between "### BEGIN HIDDEN TESTS" and "### END
    HIDDEN TESTS": a region without its first line would ship to every student."""
    for cell in read_notebook(path).cells:
        marks = re.findall(r"^\s*### (BEGIN|END) HIDDEN TESTS", cell.source, re.M)
        assert marks == ["BEGIN", "END"] * (len(marks) // 2), (cell.get("id"), marks)
