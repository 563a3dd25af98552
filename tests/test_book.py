"""The book builds with warnings as errors, and every _toc.yml entry became a complete page."""

import base64
import json
import re

import pytest

from conftest import NOTEBOOKS, ROOT, notebook_title, read_notebook, toc_files

from notebook_filters import (
    _exercises,
    _source,
    _strip_nbgrader,
    exercises_as_read,
)
from points_table import chapter_points

# One rule for every chapter: the frames of its interactive figures, which the page
# loads only when a control selects them, stay within this many bytes in all (each
# frame drawn twice, as laid out and stacked for a phone, at twice the pixels).
FRAMES_BUDGET = 2_000_000
FRAME = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


def page_title(entry):
    path = ROOT / (entry + ".ipynb")
    if path.exists():
        return notebook_title(read_notebook(path))
    first = (ROOT / (entry + ".md")).read_text().splitlines()[0]
    return first.lstrip("# ").strip()


@pytest.mark.parametrize("entry", toc_files())
def test_page_built_with_title(built_book, entry):
    page = built_book / (entry + ".html")
    assert page.exists(), f"no page for {entry}"
    html = page.read_text()
    headings = [
        h for h in re.findall(r"<h1>(.*?)</h1>", html, re.S) if "headerlink" in h
    ]
    assert headings, "page has no title heading"
    text = re.sub(r"<[^>]+>", "", headings[0].split('<a class="headerlink"')[0]).strip()
    # Chapters are numbered in the book ("2. Layer Normalization").
    assert re.sub(r"^\d+\. ", "", text) == page_title(entry)


@pytest.mark.parametrize(
    "entry", [e for e in toc_files() if e.startswith("notebooks/")]
)
def test_a_chapter_is_cited_by_its_number(built_book, entry):
    """A {doc} reference to a chapter, with no text of its own, reads "Chapter 8"
    (book/_ext/page_polish.py), never the chapter's whole title."""
    html = (built_book / (entry + ".html")).read_text()
    shown = re.findall(
        r'<a class="reference internal" href="(\d\d)-[\w-]+\.html">'
        r'<span class="doc">([^<]*)</span>',
        html,
    )
    for number, text in shown:
        assert text == f"Chapter {int(number)}", (number, text)


@pytest.mark.parametrize(
    "entry", [e for e in toc_files() if e.startswith("notebooks/")]
)
def test_chapter_has_math_and_figures(built_book, entry):
    page = built_book / (entry + ".html")
    html = page.read_text()
    assert 'class="math notranslate nohighlight"' in html, "no math on the page"
    images = re.findall(r'<img[^>]+src="(\.\./_images/[^"]+)"', html)
    assert images, "no figures on the page"
    for src in images:
        assert (page.parent / src).resolve().exists(), f"missing image {src}"
    assert 'class="interactive-figure"' in html, "no kernel-free interactive figure"


@pytest.mark.parametrize(
    "entry", [e for e in toc_files() if e.startswith("notebooks/")]
)
def test_interactive_figures_are_numbered_and_captioned(built_book, entry):
    """Each interactive figure is a figure of its own numbered kind, "Interactive fig.
    C.N" in the chapter's order, its title as the caption (no longer above it)."""
    html = (built_book / (entry + ".html")).read_text()
    figures = re.findall(
        r'<figure class="[^"]*interactive-numbered[^"]*" id="fig-(ifig-[0-9a-f]+)">\s*'
        r'<div class="interactive-figure" id="\1"'
        r'(.*?)<figcaption><p><span class="caption-number">Interactive fig\. '
        r'(\d+)\.(\d+) </span><span class="caption-text">([^<]+)</span>',
        html,
        re.S,
    )
    chapter = int(entry.split("/")[1][:2])
    assert figures, "no numbered interactive figure"
    assert [(int(c), int(n)) for _, _, c, n, _ in figures] == [
        (chapter, k + 1) for k in range(len(figures))
    ]
    assert all(title.strip() and "<p><b>" not in body for _, body, *_, title in figures)


def test_math_and_widgets_served_locally(built_book):
    """The fixture runs a plain `jupyter-book build`: the build itself vendors MathJax and
    Thebe (book/_ext/vendor_assets.py), so every way of building gives the same site."""
    intro = (built_book / "book" / "intro.html").read_text()
    assert re.search(r'src="\.\./_static/mathjax/tex-chtml\.js', intro), (
        "MathJax is not served from the site"
    )
    assert (
        built_book / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
    ).is_dir()
    for page in built_book.rglob("*.html"):
        html = page.read_text()
        assert "cdn.jsdelivr.net" not in html and "html-manager" not in html, page.name
        assert "unpkg.com" not in html, f"{page.name} loads Thebe from a CDN"
    assert (built_book / "_static" / "thebe" / "index.js").is_file()


def test_bibliography_rendered(built_book):
    html = (built_book / "book" / "references.html").read_text()
    assert (
        "layer normalization" in html.lower() and "batch normalization" in html.lower()
    )


@pytest.mark.static
def test_bibliography_links_every_entry():
    """Every entry has a DOI, an arXiv identifier or a URL, rendered as a link."""
    entries = re.split(
        r"^@", (ROOT / "book" / "references.bib").read_text(), flags=re.M
    )[1:]
    for entry in entries:
        assert re.search(r"^\s*(doi|eprint|url)\s*=", entry, re.M), entry.split(",")[0]


def test_bibliography_uses_author_year_labels(built_book):
    html = (built_book / "book" / "references.html").read_text()
    labels = re.findall(r'fn-bracket">\[</span>([^<]+)<', html)
    assert labels and all(
        re.fullmatch(r"\D+, \d{4}[a-z]?", label) for label in labels
    ), labels[:5]
    assert (
        html.count('href="https://arxiv.org/abs/')
        + html.count('href="https://doi.org/')
        >= 20
    )


def test_bibliography_sorted_by_the_name_its_label_shows(built_book):
    """A reader looks an entry up by the first author its label shows: corporate
    authors among the others (not after "Zhu"), "van Laarhoven" under v as printed."""
    html = (built_book / "book" / "references.html").read_text()
    labels = re.findall(r'fn-bracket">\[</span>([^<]+)<', html)
    first = [re.split(r" et al\.| and |, ", label)[0].lower() for label in labels]
    assert first == sorted(first), first
    assert "van Laarhoven, 2017" in labels and "Gemma Team, 2025" in labels


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_interactive_figure_frames_fit_the_budget(path):
    frames = set()
    for cell in read_notebook(path).cells:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            if 'class="interactive-figure"' in html:
                frames.update(FRAME.findall(html))
    size = sum(len(base64.b64decode(frame)) for frame in frames)
    assert size <= FRAMES_BUDGET, (
        f"{size:,} bytes of frames; the budget is {FRAMES_BUDGET:,}"
    )


def test_points_table_generated_from_the_notebooks(built_book):
    html = (built_book / "book" / "instructors.html").read_text()
    cells = [
        re.sub(r"<[^>]+>", "", c).strip()
        for c in re.findall(r"<td[^>]*>(.*?)</td>", html, re.S)
    ]
    totals = [0, 0, 0]
    for path in NOTEBOOKS:
        count, auto, manual = chapter_points(path)
        totals = [totals[0] + count, totals[1] + auto, totals[2] + manual]
        row = [path.stem, str(count), str(auto), str(manual), str(auto + manual)]
        start = cells.index(path.stem)
        assert cells[start : start + 5] == row
    start = cells.index("All chapters")
    assert cells[start + 1 : start + 5] == [*map(str, totals), str(sum(totals[1:]))]


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_exercise_reads_as_task_tests_and_one_solution(path):
    """On the page an exercise is its task, one fold with all its tests and nothing
    they print, and one dropdown with the whole solution at its end."""
    cells = json.loads(path.read_text())["cells"]
    for cell in cells:
        _strip_nbgrader(cell)
    before = {number: cells[first:end] for number, first, end in _exercises(cells)}
    page = exercises_as_read(cells)
    after = {number: page[first:end] for number, first, end in _exercises(page)}
    assert after and list(after) == list(before)
    for number, part in after.items():
        grading = [c.get("metadata", {}).get("nbgrader", {}) for c in part]
        dropdowns = [i for i, c in enumerate(part) if "{dropdown}" in _source(c)]
        assert dropdowns == [len(part) - 1], number
        assert _source(part[-1]).startswith(
            f":::{{dropdown}} Solution to Exercise {number}"
        )
        assert not any(g.get("solution") for g in grading), number
        tests = [
            c
            for c, g in zip(part, grading)
            if g.get("grade") and c["cell_type"] == "code"
        ]
        graded = any(
            c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("grade")
            for c in before[number]
        )
        assert len(tests) == graded and all(not c["outputs"] for c in tests), number
        if tests:
            label = tests[0]["metadata"]["mystnb"]["code_prompt_show"]
            assert label == f"Show the tests of Exercise {number}"


def test_pages_show_one_solution_per_exercise(built_book):
    for path in NOTEBOOKS:
        html = (built_book / "notebooks" / (path.stem + ".html")).read_text()
        cells = json.loads(path.read_text())["cells"]
        numbers = [number for number, _, _ in _exercises(cells)]
        shown = re.findall(r"Solution to Exercise (\d+\.\d+)", html)
        assert shown == numbers, path.name
        # an output's text, not reaching into the next cell (a figure's output has none)
        printed = re.findall(
            r'class="cell_output(?:(?!class="cell_(?:input|output)).)*?</pre>',
            html,
            re.S,
        )
        assert not [p for p in printed if "tests passed" in p], path.name
        # one number per exercise, in its heading and the page's contents
        assert not re.search(r"\d\.(</span>)? ?Exercise \d", html), path.name
        assert "Hide code cell" not in html, (
            path.name
        )  # opened folds say what they hide


@pytest.mark.static
def test_the_reading_map_names_what_each_chapter_builds_on():
    """The front page's reading map lists every chapter once, and each chapter it says
    another needs is an earlier one that the chapter's own text refers to."""
    text = (ROOT / "book" / "intro.md").read_text()
    table = text.split("## A reading map", 1)[1].split("\n\n")[2]
    needs = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for chapter, listed in (cells[:2], cells[3:5]):
            if chapter:
                needs[int(chapter)] = [
                    int(n) for n in re.findall(r"\d+", listed.split("(")[0])
                ]
    chapters = {int(p.name[:2]): p for p in NOTEBOOKS}
    assert sorted(needs) == sorted(chapters)
    for chapter, earlier in needs.items():
        cited = {
            int(n)
            for n in re.findall(
                r"\{doc\}`(?:[^`<]*<)?(?:\.\./notebooks/)?(\d\d)-",
                chapters[chapter].read_text(),
            )
        }
        for need in earlier:
            assert need < chapter and need in cited, (chapter, need)
