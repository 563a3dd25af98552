"""What the site shows of a notebook differs from what nbgrader and Jupyter need.

On `source-read` each chapter notebook is rewritten in memory (the file is untouched):

- nbgrader's markers (`### BEGIN SOLUTION`, ...) and hidden tests never reach the page,
  nor the grading harness that grade cells carry (a one-line comment stands for it);
  solutions and grade cells are folded under labelled buttons;
- the frames of interactive figures move out of the page into image files next to it,
  loaded only when a control selects them, so a chapter stays light on first load.
"""

import base64
import hashlib
import json
import re
from pathlib import Path, PurePosixPath

MARKER = re.compile(r"^\s*#*\s*(BEGIN|END) (SOLUTION|MARK SCHEME)\s*$")
HIDDEN = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M
)
HARNESS = re.compile(
    r"^# BEGIN GRADING HARNESS\n.*?^# END GRADING HARNESS[^\n]*\n?", re.S | re.M
)
FRAMES = re.compile(r'(<script type="application/json">)(.*?)(</script>)', re.S)
DATA_URL = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


def _source(cell):
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _fold(cell, label):
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if "hide-input" not in tags and "remove-input" not in tags:
        tags.append("hide-input")
    cell["metadata"].setdefault("mystnb", {}).setdefault("code_prompt_show", label)


def _strip_nbgrader(cell):
    grading = cell.get("metadata", {}).get("nbgrader", {})
    source = HIDDEN.sub("", _source(cell))
    source = HARNESS.sub("# (the grading harness of every grade cell)\n", source)
    lines = [line for line in source.split("\n") if not MARKER.match(line.strip("# "))]
    cell["source"] = "\n".join(lines).rstrip("\n")
    if cell["cell_type"] == "code" and grading.get("solution"):
        _fold(cell, "Show solution")
    elif cell["cell_type"] == "code" and grading.get("grade"):
        _fold(cell, "Show the tests")


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
    for output in cell.get("outputs", []):
        html = output.get("data", {}).get("text/html")
        if html is None:
            continue
        html = html if isinstance(html, str) else "".join(html)
        if 'class="interactive-figure"' not in html:
            continue
        html = FRAMES.sub(
            lambda m: m.group(1) + DATA_URL.sub(writer.url, m.group(2)) + m.group(3),
            html,
        )
        html = DATA_URL.sub(writer.url, html).replace(
            "<img ", '<img loading="lazy" ', 1
        )
        output["data"]["text/html"] = html


def filter_notebook(app, docname, source):
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    writer = FrameWriter(app.outdir, docname)
    for cell in notebook["cells"]:
        _strip_nbgrader(cell)
        if cell["cell_type"] == "code":
            _externalize_frames(cell, writer)
    source[0] = json.dumps(notebook)


def setup(app):
    app.connect("source-read", filter_notebook)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
