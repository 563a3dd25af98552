"""What the site shows of a notebook differs from what nbgrader and Jupyter need.

On `source-read` each chapter notebook is rewritten in memory (the file is untouched):

- nbgrader's markers (`### BEGIN SOLUTION`, ...) and hidden tests never reach the page;
  solutions, grade cells and the chapter's grading harness are folded under labelled
  buttons;
- each exercise reads as one task box, one fold with all its tests (their printed
  "tests passed" lines left out) and one dropdown "Solution to Exercise N.M" at its
  end that holds the worked solution, the solution code and what it prints, and the
  mark scheme;
- an opened fold says what closing it hides ("Hide the tests of Exercise 2.2", not
  myst-nb's "Hide code cell source");
- the pictures of figures (normbook/figures.py's `show_figure`: laid out, and stacked
  for a phone) and the frames of interactive figures move out of the page into image files
  next to it, loaded only when they come into view or a control selects them, so a
  chapter stays light on first load; a figure's picture takes its alt text from the
  cell's metadata (mystnb.image.alt), as an image output would.

After parsing, each interactive figure becomes a numbered figure of its own kind
("Interactive fig. 12.1", numbered within the chapter as Sphinx numbers figures), its
title moved from the top of the figure into the caption.
"""

import base64
import hashlib
import html
import json
import re
from pathlib import Path, PurePosixPath

from docutils import nodes
from sphinx.transforms import SphinxTransform

from reader_copies import HIDDEN, MARKER, describe_figures

EXERCISE = re.compile(r"^#{2,4} Exercise (\d+\.\d+)", re.M)
HEADING = re.compile(r"^#{1,3} ", re.M)
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
DROPDOWN = re.compile(r"\A\s*:::\{dropdown\}[^\n]*\n(.*)\n:::\s*\Z", re.S)
TESTS_NEXT = re.compile(r"\AThe next cell tests .*\Z", re.S)
FRAMES = re.compile(r'(<script type="application/json">)(.*?)(</script>)', re.S)
DATA_URL = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
FIGURE_TITLE = re.compile(
    r'(<div class="interactive-figure" id="([^"]+)">\s*)<p><b>(.*?)</b></p>', re.S
)


def _source(cell):
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _fold(cell, label):
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if "hide-input" not in tags and "remove-input" not in tags:
        tags.append("hide-input")
    cell["metadata"].setdefault("mystnb", {}).setdefault("code_prompt_show", label)


def _hide_label(cell):
    """The label of an opened fold, from the label that opens it."""
    mystnb = cell.get("metadata", {}).get("mystnb", {})
    show = mystnb.get("code_prompt_show")
    if show and "code_prompt_hide" not in mystnb:
        if show.startswith("Show "):
            mystnb["code_prompt_hide"] = "Hide " + show[len("Show ") :]
        else:  # "Checks: ..."
            mystnb["code_prompt_hide"] = "Hide the checks"


def _strip_nbgrader(cell):
    grading = cell.get("metadata", {}).get("nbgrader", {})
    source = HIDDEN.sub("", _source(cell))
    lines = [line for line in source.split("\n") if not MARKER.match(line.strip("# "))]
    cell["source"] = "\n".join(lines).rstrip("\n")
    if cell["cell_type"] == "code" and grading.get("solution"):
        _fold(cell, "Show solution")
    elif cell["cell_type"] == "code" and grading.get("grade"):
        _fold(cell, "Show the tests")


def _exercises(cells):
    """(number, first, end) for each exercise: from the markdown cell of its heading to
    the next heading of a section or an exercise."""
    spans, current = [], None
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = FENCED.sub("", _source(cell))  # a "# comment" in code is no heading
        number = EXERCISE.search(text)
        if number or HEADING.search(text):
            if current:
                spans.append((*current, i))
            current = (number.group(1), i) if number else None
    if current:
        spans.append((*current, len(cells)))
    return spans


def _printed(cell):
    return "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream" and o.get("name") == "stdout"
    )


def _solution_part(cell):
    """What a solution cell adds to its exercise's one solution dropdown."""
    text = _source(cell)
    if cell["cell_type"] == "markdown":
        match = DROPDOWN.match(text)
        return match.group(1).strip() if match else text
    part = f"```python\n{text}\n```"
    printed = _printed(cell).rstrip("\n")
    return part + (f"\n\nIt prints:\n\n```text\n{printed}\n```" if printed else "")


def _one_exercise(number, cells):
    """The exercise's cells as the page shows them: its grade cells merged into one
    fold without outputs, its solutions gathered into one dropdown at its end."""
    solutions, tests, kept = [], None, []
    for cell in cells:
        grading = cell.get("metadata", {}).get("nbgrader", {})
        text = _source(cell)
        if grading.get("solution") and (
            cell["cell_type"] == "code" or DROPDOWN.match(text)
        ):
            solutions.append(_solution_part(cell))
        elif cell["cell_type"] == "code" and grading.get("grade"):
            if tests is None:
                tests = cell
                tests["outputs"] = []
                tests["metadata"]["mystnb"]["code_prompt_show"] = (
                    f"Show the tests of Exercise {number}"
                )
                kept.append(tests)
            else:
                tests["source"] = _source(tests) + "\n\n" + text
        elif not (cell["cell_type"] == "markdown" and TESTS_NEXT.match(text.strip())):
            kept.append(cell)
    if solutions:
        body = "\n\n".join(solutions)
        fence = ":" * max([3] + [len(m) + 1 for m in re.findall(r"^:+", body, re.M)])
        kept.append(
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": f"{fence}{{dropdown}} Solution to Exercise {number}\n"
                f"{body}\n{fence}",
            }
        )
    return kept


def exercises_as_read(cells):
    """The notebook's cells with every exercise rewritten by `_one_exercise`."""
    out, done = [], 0
    for number, first, end in _exercises(cells):
        out += cells[done:first] + _one_exercise(number, cells[first:end])
        done = end
    return out + cells[done:]


class FrameWriter:
    """Writes PNG frames into the site's `_images/frames/` and returns page-relative URLs."""

    def __init__(self, outdir, docname):
        self.folder = Path(outdir) / "_images" / "frames"
        depth = len(PurePosixPath(docname).parts) - 1
        self.prefix = "../" * depth + "_images/frames/"

    def url(self, match):
        png = base64.b64decode(match.group(1))
        name = hashlib.sha256(png).hexdigest()[:20] + ".png"
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        if not path.exists():
            path.write_bytes(png)
        return self.prefix + name


def _externalize_frames(cell, writer):
    describe_figures(cell)
    for output in cell.get("outputs", []):
        text = output.get("data", {}).get("text/html")
        if text is None:
            continue
        text = text if isinstance(text, str) else "".join(text)
        if 'class="interactive-figure"' in text:
            text = FRAMES.sub(
                lambda m: m[1] + DATA_URL.sub(writer.url, m[2]) + m[3], text
            )
        elif 'class="figure-pair"' not in text:
            continue
        text = DATA_URL.sub(writer.url, text).replace(
            "<img ", '<img loading="lazy" ', 1
        )
        output["data"]["text/html"] = text


def filter_notebook(app, docname, source):
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    writer = FrameWriter(app.outdir, docname)
    for cell in notebook["cells"]:
        _strip_nbgrader(cell)
        if cell["cell_type"] == "code":
            _externalize_frames(cell, writer)
    notebook["cells"] = exercises_as_read(notebook["cells"])
    for cell in notebook["cells"]:
        _hide_label(cell)
    source[0] = json.dumps(notebook)


class interactive_figure(nodes.General, nodes.Element):
    """An interactive figure's HTML with its numbered caption (the title)."""


class NumberInteractiveFigures(SphinxTransform):
    default_priority = 500

    def apply(self):
        for raw in list(self.document.findall(nodes.raw)):
            found = FIGURE_TITLE.search(raw.astext())
            if "html" not in raw.get("format", "") or not found:
                continue
            title = html.unescape(found[3])
            figure = interactive_figure(title=title)
            text = FIGURE_TITLE.sub(r"\1", raw.astext(), count=1)
            figure += nodes.raw("", text, format="html")
            raw.replace_self(figure)  # which gives the figure the output's classes
            figure["ids"] = ["fig-" + found[2]]  # the div inside keeps its own


def visit_interactive_figure(self, node):
    self.body.append(self.starttag(node, "figure", CLASS="interactive-numbered"))


def depart_interactive_figure(self, node):
    self.body.append("<figcaption><p>")
    self.add_fignumber(node)
    self.body.append(f'<span class="caption-text">{html.escape(node["title"])}</span>')
    self.body.append("</p></figcaption></figure>\n")


def interactive_numbering(app, config):
    config.numfig_format.setdefault("interactive", "Interactive fig. %s")


def setup(app):
    app.connect("source-read", filter_notebook)
    app.add_enumerable_node(
        interactive_figure,
        "interactive",
        lambda node: node["title"],
        html=(visit_interactive_figure, depart_interactive_figure),
    )
    app.add_transform(NumberInteractiveFigures)
    app.connect("config-inited", interactive_numbering)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
