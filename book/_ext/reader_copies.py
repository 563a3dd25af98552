"""Reader copies: every chapter as a notebook whose Markdown Jupyter and Colab render.

The chapters are written in MyST (roles, labels, directives), which the book renders and
JupyterLab and Colab show raw. After each build, this step writes a reader copy of every
chapter into the site, next to its page (`_build/html/notebooks/NN-name.ipynb`), and the
same file over the page's download (`_build/html/_sources/notebooks/NN-name.ipynb`):

- {cite:t}`key` -> [Ba et al. (2016)](site/book/references.html#...) and {cite:p}`key` ->
  ([Ba et al., 2016](...)), with the labels and anchors of the site's bibliography;
- {numref}`fig` -> [Figure 3.2](site page#fig), numbered as the site numbers it;
  {ref}`label` -> the section's title, {doc}`chapter` -> the chapter's title, linked to the site;
- `(label)=` lines are dropped; dropdowns become <details>; admonitions block quotes with a
  bold title; math stays as it is;
- code keeps running alone: nbgrader's markers and hidden tests are dropped (as on the site),
  solutions start collapsed in JupyterLab, and the Colab badge opens the reader copy.

This module is also the Sphinx extension that runs the conversion when the HTML build
finishes (so `make book`, the tests and CI publish the same copies), with the figure
numbers, section titles and bibliography anchors of the build itself. The launch buttons
(Binder, Colab) open the copies: they point at the branch `reader_copies_branch`
(default `notebooks`), to which the book workflow pushes them in the repository's layout;
the download button serves `_sources/notebooks/NN-name.ipynb`, replaced by the copy.
By hand, after a build: `python book/_ext/reader_copies.py [_build]`.

The build also writes each chapter's self-study copy, `_build/html/exercises/NN-name.ipynb`
(`exercises_copy`: the answers taken out, the visible tests kept), which the directive
`exercise-notebooks` (points_table.py) lists with links on the course plan's page.
Without Sphinx or docutils, this module is the conversion alone (for grading/handouts.py,
also in the environment of chapter 10).

The same conversion makes every other notebook a person opens clean: the build also
writes what the site calls each label, citation and page into `_build/reader-targets.json`,
from which `grading/handouts.py` converts the Markdown of the student hand-outs and the
nbgrader sources (and so the released assignments) with `converted_markdown`.
"""

import copy
import html
import json
import pickle
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# nbgrader's markers and hidden tests, which no page or copy a person opens shows
# (notebook_filters.py takes them from here: this module imports none of its siblings,
# so that grading/handouts.py can import it as book._ext.reader_copies).
MARKER = re.compile(r"^\s*#*\s*(BEGIN|END) (SOLUTION|MARK SCHEME)\s*$")
HIDDEN = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M
)

ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<target>[^`]*)`")
LABEL_LINE = re.compile(r"^\s*\([^()\s]+\)=\s*$")
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<arg>.*)$"
)
OPTION = re.compile(r"^\s*:[\w-]+:")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
ADMONITIONS = {
    "note": "Note",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "warning": "Warning",
    "caution": "Caution",
    "attention": "Attention",
    "danger": "Danger",
    "error": "Error",
    "seealso": "See also",
}
# What a reader copy must not contain (tests/test_reader_copies.py).
MYST_SYNTAX = re.compile(
    r"\{[\w:-]+\}`|^\s*\([^()\s]+\)=\s*$|^\s*(`{3,}|:{3,})\s*\{[\w-]+\}|^\s*:[\w-]+:\s",
    re.M,
)


# Beside the site (_build/html): the site's names, for the hand-outs (grading/handouts.py).
TARGETS = "reader-targets.json"
# In the site: each chapter's self-study copy, exercises without answers.
EXERCISES = "exercises"


class ReaderCopyError(ValueError):
    pass


@dataclass
class Targets:
    """What the site calls each label, citation and page, and where it is."""

    site: str  # the site's root URL, ending in "/"
    labels: dict = field(default_factory=dict)  # label -> (docname, anchor, title)
    figures: dict = field(default_factory=dict)  # (docname, anchor) -> "3.2"
    titles: dict = field(default_factory=dict)  # docname -> page title
    chapters: dict = field(default_factory=dict)  # docname -> chapter number
    citations: dict = field(default_factory=dict)  # key -> (label, docname, anchor)

    @classmethod
    def from_env(cls, env, site):
        """From a Sphinx build environment (live, or unpickled from .doctrees)."""
        figures = {}
        for docname, kinds in env.toc_fignumbers.items():
            for anchor, number in kinds.get("figure", {}).items():
                figures[docname, anchor] = ".".join(map(str, number))
        citations = {}
        for citation in env.domaindata["cite"]["citations"]:
            citations[citation.key] = (
                citation.formatted_entry.label,
                citation.bibliography_key.docname,
                citation.citation_id,
            )
        return cls(
            site=site.rstrip("/") + "/",
            labels={
                label: (docname, anchor, str(title))
                for label, (docname, anchor, title) in env.domaindata["std"][
                    "labels"
                ].items()
                if anchor
            },
            figures=figures,
            titles={doc: title.astext() for doc, title in env.titles.items()},
            chapters=chapter_numbers(env),
            citations=citations,
        )

    def to_json(self):
        data = {
            "site": self.site,
            "labels": self.labels,
            "figures": {
                f"{doc}#{anchor}": n for (doc, anchor), n in self.figures.items()
            },
            "titles": self.titles,
            "chapters": self.chapters,
            "citations": self.citations,
        }
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text):
        data = json.loads(text)
        return cls(
            site=data["site"],
            labels={k: tuple(v) for k, v in data["labels"].items()},
            figures={tuple(key.split("#", 1)): n for key, n in data["figures"].items()},
            titles=data["titles"],
            chapters=data["chapters"],
            citations={k: tuple(v) for k, v in data["citations"].items()},
        )

    def url(self, docname, anchor=""):
        return f"{self.site}{docname}.html" + (f"#{anchor}" if anchor else "")


def chapter_numbers(env):
    """docname -> its chapter number, for the toc's numbered chapters."""
    return {
        doc: numbers[""][0]
        for doc, numbers in env.toc_secnumbers.items()
        if numbers.get("")
    }


def site_url(repository_url, baseurl=""):
    """The site's root: html.baseurl if set, else GitHub Pages of the repository."""
    if baseurl:
        return baseurl.rstrip("/") + "/"
    owner, repo = repository_url.rstrip("/").split("/")[-2:]
    return f"https://{owner.lower()}.github.io/{repo}/"


def _link(text, url):
    return f"[{text}]({url})"


def _role(match, targets, docname):
    role, target = match["role"], match["target"].strip()
    explicit = EXPLICIT.match(target)
    text = None
    if explicit and role in ("ref", "numref", "doc"):
        text, target = explicit["text"], explicit["target"].strip()
    if role in ("cite:t", "cite:p"):
        parts = []
        for key in (k.strip() for k in target.split(",")):
            if key not in targets.citations:
                raise ReaderCopyError(f"{docname}: no bibliography entry {key!r}")
            label, page, anchor = targets.citations[key]
            who, _, year = label.rpartition(", ")
            shown = f"{who} ({year})" if role == "cite:t" else label
            parts.append(_link(shown, targets.url(page, anchor)))
        return "; ".join(parts) if role == "cite:t" else "(" + "; ".join(parts) + ")"
    if role in ("ref", "numref"):
        if target not in targets.labels:
            raise ReaderCopyError(f"{docname}: no label {target!r}")
        page, anchor, title = targets.labels[target]
        if role == "numref":
            number = targets.figures.get((page, anchor))
            if number is None:
                raise ReaderCopyError(f"{docname}: {target!r} has no figure number")
            shown = (
                text.replace("%s", number).replace("{number}", number)
                if text
                else f"Figure {number}"
            )
        else:
            shown = text or title
        return _link(shown, targets.url(page, anchor))
    if role == "doc":
        page = posixpath.normpath(
            posixpath.join(posixpath.dirname(docname), target)
            if not target.startswith("/")
            else target.lstrip("/")
        )
        if page not in targets.titles:
            raise ReaderCopyError(f"{docname}: no page {target!r}")
        if not text:
            number = targets.chapters.get(page)
            text = f"Chapter {number}" if number else targets.titles[page]
        return _link(text, targets.url(page))
    raise ReaderCopyError(f"{docname}: the role {{{role}}} has no reader form")


def _one_line_math(lines):
    """Display math on one line, so that a block quote's "> " cannot enter the TeX
    (Jupyter takes math out of the Markdown before it parses block quotes)."""
    out, buffer, closing = [], [], None
    for line in lines:
        stripped = line.strip()
        if closing is None:
            begin = re.match(r"\\begin\{([\w*]+)\}", stripped)
            if stripped.startswith("$$") and not (
                len(stripped) > 2 and stripped.endswith("$$")
            ):
                buffer, closing = [stripped], "$$"
            elif begin and f"\\end{{{begin[1]}}}" not in stripped:
                buffer, closing = [stripped], f"\\end{{{begin[1]}}}"
            else:
                out.append(line)
            continue
        buffer.append(stripped)
        if stripped.endswith(closing):
            out.append(" ".join(b for b in buffer if b))
            closing = None
    if closing is not None:
        out += buffer
    return out


def _quote(lines):
    return [f"> {line}" if line.strip() else ">" for line in _one_line_math(lines)]


def _closing(lines, start, fence):
    char, size = fence[0], len(fence)
    closing = re.compile(rf"^\s*{re.escape(char)}{{{size},}}\s*$")
    for i in range(start, len(lines)):
        if closing.match(lines[i]):
            return i
    return None


def convert_lines(lines, targets, docname):
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if LABEL_LINE.match(line):
            i += 1
            continue
        opening = FENCE.match(line)
        if not opening:
            out.append(ROLE.sub(lambda m: _role(m, targets, docname), line))
            i += 1
            continue
        end = _closing(lines, i + 1, opening["fence"])
        if end is None:
            raise ReaderCopyError(f"{docname}: unclosed {{{opening['name']}}}")
        body = lines[i + 1 : end]
        if body and body[0].strip() == "---":  # options as a YAML block
            close = next(k for k in range(1, len(body)) if body[k].strip() == "---")
            body = body[close + 1 :]
        while body and OPTION.match(body[0]):
            body = body[1:]
        body = convert_lines(body, targets, docname)
        while body and not body[0].strip():
            body = body[1:]
        while body and not body[-1].strip():
            body = body[:-1]
        name = opening["name"]
        arg = ROLE.sub(lambda m: _role(m, targets, docname), opening["arg"].strip())
        if name == "dropdown":
            summary = re.sub(r"`([^`]+)`", r"<code>\1</code>", arg) or "Details"
            block = [
                f"<details><summary>{summary}</summary>",
                "",
                *body,
                "",
                "</details>",
            ]
        elif name == "admonition" or name in ADMONITIONS:
            title = arg if name == "admonition" else ADMONITIONS[name]
            if name != "admonition" and arg:
                body = [arg, *body]
            block = _quote([f"**{title}**", "", *body])
        else:
            raise ReaderCopyError(
                f"{docname}: the directive {{{name}}} has no reader form"
            )
        # A blank line either side: two block quotes in a row stay two.
        if out and out[-1].strip():
            out.append("")
        out += [opening["indent"] + b if b else b for b in block]
        i = end + 1
        if i < len(lines) and lines[i].strip():
            out.append("")
    return out


def convert_markdown(text, targets, docname):
    return "\n".join(convert_lines(text.split("\n"), targets, docname))


def _source(cell):
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def converted_markdown(notebook, targets, docname):
    """A copy of a notebook (a dict in nbformat 4) whose Markdown cells are converted;
    code cells and metadata stay as they are."""
    notebook = copy.deepcopy(notebook)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = convert_markdown(_source(cell), targets, docname)
    return notebook


def describe_figures(cell):
    """Give the pictures of a cell's figures (normbook/figures.py's `show_figure`) the
    alt text of the cell's metadata (mystnb.image.alt), as myst-nb gives an image."""
    alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")
    for output in cell.get("outputs", []):
        text = output.get("data", {}).get("text/html")
        text = text if text is None or isinstance(text, str) else "".join(text)
        if text and 'class="figure-pair"' in text:
            alt_text = f'alt="{html.escape(alt)}"'
            output["data"]["text/html"] = text.replace('alt=""', alt_text, 1)


def reader_copy(notebook, targets, docname, badge=None):
    """The reader copy of a chapter notebook (a dict in nbformat 4), the input untouched."""
    notebook = converted_markdown(notebook, targets, docname)
    for cell in notebook["cells"]:
        source = _source(cell)
        tags = cell.get("metadata", {}).get("tags", [])
        if badge and "colab-badge" in tags:
            cell["source"] = badge
        elif cell["cell_type"] == "code":
            source = HIDDEN.sub("", source)
            lines = [line for line in source.split("\n") if not MARKER.match(line)]
            cell["source"] = "\n".join(lines).rstrip("\n")
            describe_figures(cell)
            if cell["metadata"].get("nbgrader", {}).get("solution"):
                cell["metadata"].setdefault("jupyter", {})["source_hidden"] = True
    return notebook


SOLUTION = re.compile(
    r"^(?P<indent>[ \t]*)#+ *BEGIN SOLUTION[ \t]*$.*?^[ \t]*#+ *END SOLUTION[ \t]*$",
    re.S | re.M,
)
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def _stub(match):
    return "\n".join(match["indent"] + line for line in STUB.split("\n"))


def exercises_copy(notebook, targets, docname):
    """The self-study copy of a chapter: the reader copy without the answers, as an
    nbgrader hand-out has it. Each solution becomes `# YOUR CODE HERE` and
    `raise NotImplementedError()`, each written answer "YOUR ANSWER HERE"; hidden tests
    go, the visible ones stay; outputs are cleared, to be made by the reader's run."""
    notebook = converted_markdown(notebook, targets, docname)
    cells = []
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if "colab-badge" in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown" and meta.get("solution"):
            cell["source"] = "YOUR ANSWER HERE"
        elif cell["cell_type"] == "code":
            source = HIDDEN.sub("", _source(cell))
            if meta.get("solution"):
                stubbed = SOLUTION.sub(_stub, source)
                source = stubbed if stubbed != source else STUB
            lines = [line for line in source.split("\n") if not MARKER.match(line)]
            cell["source"] = "\n".join(lines).rstrip("\n")
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def colab_badge(repository_url, branch, path):
    repo = repository_url.removeprefix("https://github.com/").rstrip("/")
    link = f"https://colab.research.google.com/github/{repo}/blob/{branch}/{path}"
    image = "https://colab.research.google.com/assets/colab-badge.svg"
    return f"[![Open In Colab]({image})]({link})"


def write_copies(
    env, srcdir, outdir, site, repository_url=None, branch=None, sources=None
):
    """Write every chapter's reader copy into the built site; return their paths.
    `sources`: docname -> notebook text as the build read it (else read from srcdir)."""
    targets = Targets.from_env(env, site)
    (Path(outdir).parent / TARGETS).write_text(
        targets.to_json() + "\n", encoding="utf-8"
    )
    written = []
    for docname in sorted(env.found_docs):
        path = Path(srcdir) / f"{docname}.ipynb"
        if not path.is_file():
            continue
        text = (sources or {}).get(docname) or path.read_text(encoding="utf-8")
        notebook = json.loads(text)
        badge = (
            colab_badge(repository_url, branch, f"{docname}.ipynb")
            if repository_url and branch
            else None
        )
        text = json.dumps(
            reader_copy(notebook, targets, docname, badge),
            indent=1,
            ensure_ascii=False,
        )
        for folder in (Path(outdir), Path(outdir) / "_sources"):
            target = folder / f"{docname}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text + "\n", encoding="utf-8")
        written.append(Path(outdir) / f"{docname}.ipynb")
        exercises = Path(outdir) / EXERCISES / Path(docname).name
        exercises.parent.mkdir(parents=True, exist_ok=True)
        exercises.with_suffix(".ipynb").write_text(
            json.dumps(
                exercises_copy(notebook, targets, docname), indent=1, ensure_ascii=False
            )
            + "\n",
            encoding="utf-8",
        )
    return written


def _launch_from_reader_branch(app, config):
    options = dict(config.html_theme_options or {})
    if options.get("repository_url"):
        options["repository_branch"] = config.reader_copies_branch
        config.html_theme_options = options


def _keep_source(app, docname, source):
    """The notebook as the build read it (a later edit must not mix into this build)."""
    if str(app.env.doc2path(docname)).endswith(".ipynb"):
        app.reader_copy_sources[docname] = source[0]


def _write(app, exception):
    # The site's own pages only (not the single page that `make pdf` prints).
    if exception is not None or app.builder.name != "html":
        return
    options = app.config.html_theme_options or {}
    repository = options.get("repository_url", "")
    site = site_url(repository, app.config.html_baseurl)
    written = write_copies(
        app.env,
        app.srcdir,
        app.outdir,
        site,
        repository,
        app.config.reader_copies_branch,
        app.reader_copy_sources,
    )
    from sphinx.util import logging  # here: the conversion alone needs no Sphinx

    logging.getLogger(__name__).info(
        f"reader copies: {len(written)} chapters, linked to {site}"
    )


def setup(app):
    app.add_config_value("reader_copies_branch", "notebooks", "html")
    app.connect("config-inited", _launch_from_reader_branch, priority=900)
    app.reader_copy_sources = {}
    # Before notebook_filters.py rewrites the source for the page.
    app.connect("source-read", _keep_source, priority=100)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(build="_build"):
    import yaml

    build = Path(build)
    with open(build / ".doctrees" / "environment.pickle", "rb") as stream:
        env = pickle.load(stream)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repository = config["repository"]["url"]
    options = config.get("sphinx", {}).get("config", {})
    site = site_url(repository, config.get("html", {}).get("baseurl", ""))
    written = write_copies(
        env,
        ROOT,
        build / "html",
        site,
        repository,
        options.get("reader_copies_branch", "notebooks"),
    )
    print(f"{len(written)} reader copies written into {build / 'html'}")


if __name__ == "__main__":
    main(*sys.argv[1:])
