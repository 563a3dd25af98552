"""The text of the chapters: no lost or doubled cells, references that resolve, pointers
to neighbouring cells that point at the right kind of cell, hidden tests that regrade
the same (fast checks, no execution)."""

import re

import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook

pytestmark = pytest.mark.static

PAGES = sorted((ROOT / "book").glob("*.md"))
CHAPTERS = {int(p.name[:2]): p for p in NOTEBOOKS}


def markdown_of(path):
    if path.suffix == ".md":
        return [path.read_text()]
    return [c.source for c in read_notebook(path).cells if c.cell_type == "markdown"]


def labels():
    """Every target a {ref} or {numref} can name: `(label)=` lines, figure names in a
    cell's metadata, and `:name:`/`:label:` options of directives."""
    found = set()
    for path in NOTEBOOKS + PAGES:
        for text in markdown_of(path):
            found |= set(re.findall(r"^\((\S+)\)=\s*$", text, re.M))
            found |= set(re.findall(r"^:(?:name|label): *(\S+)", text, re.M))
        if path.suffix == ".ipynb":
            for cell in read_notebook(path).cells:
                name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
                found |= {name} if name else set()
    return found


ROLE = re.compile(r"\{(ref|numref|doc)\}`(?:[^`<]*<)?([^`>]+)>?`")


@pytest.mark.parametrize("path", NOTEBOOKS + PAGES, ids=lambda p: p.name)
def test_every_reference_resolves(path):
    targets, missing = labels(), []
    for text in markdown_of(path):
        for role, target in ROLE.findall(text):
            if role == "doc":
                base = path.parent if not target.startswith("/") else ROOT
                candidates = [
                    base / (target.lstrip("/") + s) for s in (".ipynb", ".md")
                ]
                if not any(c.exists() for c in candidates):
                    missing.append(f"{{doc}}`{target}`")
            elif target not in targets:
                missing.append(f"{{{role}}}`{target}`")
    assert not missing, f"targets that do not exist: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_numbers_in_references_exist(path):
    """Chapters have no numbered sections; "Exercise 3.2" and "chapter 8" must exist."""
    wrong = []
    defined = set()
    for other in NOTEBOOKS:
        for text in markdown_of(other):
            defined |= set(re.findall(r"^#{2,4} Exercise (\d+\.\d+)", text, re.M))
    for text in markdown_of(path):
        wrong += re.findall(r"(?i)\bsections? \d+\.\d+", text)
        for number in re.findall(r"\bExercises? (\d+\.\d+)", text):
            if number not in defined:
                wrong.append(f"Exercise {number}")
        for number in re.findall(r"\b[Cc]hapters? (\d+)\b", text):
            if int(number) not in CHAPTERS:
                wrong.append(f"chapter {number}")
    assert not wrong, f"references to nothing: {wrong}"


FORWARD = re.compile(r"(?i)\b(?:the )?(?:next|following) cell\b|\bcell below\b")
BACKWARD = re.compile(r"(?i)\b(?:the )?(?:previous|preceding) cell\b|\bcell above\b")


def pointers(path):
    """(cell index, phrase, the cell it points at) for every pointer to a neighbour."""
    cells, found = read_notebook(path).cells, []
    for k, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        for pattern, step in ((FORWARD, 1), (BACKWARD, -1)):
            for match in pattern.finditer(cell.source):
                context = cell.source[max(0, match.start() - 30) : match.end()]
                if "answer" in context:
                    continue  # "answer cell below": the exercise's answer cell
                neighbour = cells[k + step] if 0 <= k + step < len(cells) else None
                found.append((k, match.group(0), neighbour))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_pointers_to_neighbouring_cells_point_at_code(path):
    """ "The next cell shows..." must be followed by a code cell (and "the cell above"
    preceded by one): a moved or deleted cell breaks the sentence. The pointers are few
    enough to read by hand; the failure message lists them."""
    found = pointers(path)
    wrong = [
        f"cell {k}: {phrase!r}"
        for k, phrase, n in found
        if n is None or n.cell_type != "code"
    ]
    listing = "\n".join(f"  cell {k}: {phrase}" for k, phrase, _ in found)
    assert not wrong, f"pointers to a non-code cell: {wrong}\nall pointers:\n{listing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_appears_twice(path):
    """A lost cell once left a copy of its neighbour in its place."""
    seen, doubled = {}, []
    for k, cell in enumerate(read_notebook(path).cells):
        text = cell.source.strip()
        if cell.cell_type in ("markdown", "code") and len(text) >= 40:
            if text in seen:
                doubled.append(f"cells {seen[text]} and {k}: {text[:60]!r}")
            seen.setdefault(text, k)
    assert not doubled, doubled


UNSEEDED = [
    (re.compile(r"default_rng\(\s*\)"), "default_rng() without a seed"),
    (
        re.compile(r"\bnp\.random\.(?!default_rng|Generator|SeedSequence)\w+\("),
        "NumPy's global generator",
    ),
    (re.compile(r"(?<![\w.])random\.\w+\("), "the random module's global generator"),
]
TORCH_DRAW = re.compile(r"\btorch\.(randn|rand|randint|randperm|normal)\(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_hidden_tests_are_seeded(path):
    """A regrade must give the same marks: every random input of a grade cell comes
    from a seeded generator."""
    problems = []
    for k, cell in enumerate(read_notebook(path).cells):
        if cell.cell_type != "code" or not cell.metadata.get("nbgrader", {}).get(
            "grade"
        ):
            continue
        code = cell.source.replace("_np.", "np.").replace("_torch.", "torch.")
        for pattern, what in UNSEEDED:
            if pattern.search(code):
                problems.append(f"cell {k}: {what}")
        draw = TORCH_DRAW.search(code)
        seeded = (
            re.search(r"manual_seed\(\s*\d|generator=", code[: draw.start()])
            if draw
            else 1
        )
        if not seeded:
            problems.append(f"cell {k}: torch draws before any manual_seed")
    assert not problems, problems
