"""Reader copies (book/_ext/reader_copies.py): the chapters as Jupyter and Colab render them.

Every build writes them into the site; none may contain MyST; their links land on
anchors that exist on the site, with the site's figure numbers and bibliography labels;
the launch buttons and the download button open them. Each runs alone on Colab's
package set in tests/test_colab_stack.py.
"""

import html as htmllib
import json
import re
from functools import cache

import pytest

from conftest import NOTEBOOKS, ROOT
from upkeep.cells import without_magics

import reader_copies as rc

SITE = "https://example.github.io/book/"


def small_targets(site=SITE):
    return rc.Targets(
        site=site,
        labels={
            "sec-a": ("notebooks/02-x", "sec-a", "Section A"),
            "fig-b": ("notebooks/03-y", "fig-b", "A caption"),
        },
        figures={("notebooks/03-y", "fig-b"): "3.2"},
        titles={"notebooks/02-x": "Layers of X", "book/refs": "References"},
        chapters={"notebooks/02-x": 2},
        citations={
            "ba2016": ("Ba et al., 2016", "book/refs", "cite-ba2016"),
            "xu2019": ("Xu and Li, 2019b", "book/refs", "cite-xu2019"),
        },
    )


def convert(text):
    return rc.convert_markdown(text, small_targets(), "notebooks/01-z")


@pytest.mark.static
def test_roles_become_links_to_the_site():
    assert convert("{cite:t}`ba2016` showed") == (
        f"[Ba et al. (2016)]({SITE}book/refs.html#cite-ba2016) showed"
    )
    assert convert("norm {cite:p}`ba2016,xu2019`.") == (
        f"norm ([Ba et al., 2016]({SITE}book/refs.html#cite-ba2016); "
        f"[Xu and Li, 2019b]({SITE}book/refs.html#cite-xu2019))."
    )
    assert convert("{numref}`fig-b` and {ref}`sec-a` in {doc}`02-x`") == (
        f"[Figure 3.2]({SITE}notebooks/03-y.html#fig-b) and "
        f"[Section A]({SITE}notebooks/02-x.html#sec-a) in "
        f"[Chapter 2]({SITE}notebooks/02-x.html)"
    )
    assert convert("{doc}`the layers <02-x>`") == (
        f"[the layers]({SITE}notebooks/02-x.html)"
    )
    assert convert("{ref}`this part <sec-a>`, {numref}`Plot %s <fig-b>`") == (
        f"[this part]({SITE}notebooks/02-x.html#sec-a), "
        f"[Plot 3.2]({SITE}notebooks/03-y.html#fig-b)"
    )
    assert convert("{doc}`../book/refs`") == f"[References]({SITE}book/refs.html)"


@pytest.mark.static
def test_hand_outs_get_the_sites_names_through_json():
    """The build hands the site's names to grading/handouts.py as JSON, unchanged."""
    targets = small_targets()
    assert rc.Targets.from_json(targets.to_json()) == targets


@pytest.mark.static
def test_unknown_targets_and_roles_fail_the_build():
    for text in ("{cite:p}`nobody`", "{ref}`sec-none`", "{eq}`e1`", "{numref}`sec-a`"):
        with pytest.raises(rc.ReaderCopyError):
            convert(text)
    with pytest.raises(rc.ReaderCopyError):
        convert("```{figure} a.png\n```")


@pytest.mark.static
def test_labels_dropdowns_and_admonitions():
    text = "\n".join(
        [
            "(sec-a)=",
            "## A",
            "",
            ":::{dropdown} Solution and `mark` scheme",
            ":open:",
            "Answer with $x$.",
            ":::",
            "",
            "````{admonition} Task",
            ":class: exercise",
            "Do it, see {numref}`fig-b`:",
            "",
            "$$",
            "a = b",
            "$$",
            "",
            "```{warning}",
            "Careful.",
            "```",
            "````",
            "```{note} Short.",
            "```",
            "```python",
            "x = 1",
            "```",
        ]
    )
    assert convert(text).split("\n") == [
        "## A",
        "",
        "<details><summary>Solution and <code>mark</code> scheme</summary>",
        "",
        "Answer with $x$.",
        "",
        "</details>",
        "",
        "> **Task**",
        ">",
        f"> Do it, see [Figure 3.2]({SITE}notebooks/03-y.html#fig-b):",
        ">",
        "> $$ a = b $$",
        ">",
        "> > **Warning**",
        "> >",
        "> > Careful.",
        "",
        "> **Note**",
        ">",
        "> Short.",
        "",
        "```python",
        "x = 1",
        "```",
    ]
    assert not rc.MYST_SYNTAX.search(convert(text))


@pytest.mark.static
def test_site_url_follows_the_repository_setting():
    assert rc.site_url("https://github.com/Org/book") == "https://org.github.io/book/"
    assert (
        rc.site_url("https://github.com/o/b", "https://b.org/x") == "https://b.org/x/"
    )


# ---- the copies written by the book's build ---------------------------------------------


@cache
def page_ids(path):
    return set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))


def copy_of(built_book, path):
    return json.loads((built_book / "notebooks" / path.name).read_text())


def site_root(built_book):
    """The URL the build linked the copies to (from the Binder/Colab settings)."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return rc.site_url(
        config["repository"]["url"], config.get("html", {}).get("baseurl", "")
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_reader_copy_has_no_myst(built_book, path):
    reader = copy_of(built_book, path)
    source = json.loads(path.read_text())
    assert len(reader["cells"]) == len(source["cells"])
    found = [
        m.group(0)
        for cell in reader["cells"]
        if cell["cell_type"] == "markdown"
        for m in rc.MYST_SYNTAX.finditer("".join(cell["source"]))
    ]
    assert found == [], f"MyST left in the reader copy: {found[:5]}"
    download = built_book / "_sources" / "notebooks" / path.name
    assert download.read_text() == (built_book / "notebooks" / path.name).read_text(), (
        "the page's download button must serve the reader copy"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_reader_copy_links_land_on_the_site(built_book, path):
    """Every link to the site names a page and an anchor the built site has; figure
    numbers and citation labels are the ones the site shows."""
    site = site_root(built_book)
    text = "\n".join(
        "".join(c["source"])
        for c in copy_of(built_book, path)["cells"]
        if c["cell_type"] == "markdown"
    )
    links = re.findall(r"\[([^\]]+)\]\((" + re.escape(site) + r"[^)\s]*)\)", text)
    assert links, "the reader copy links nothing to the site"
    for shown, url in links:
        page, _, anchor = url[len(site) :].partition("#")
        target = built_book / page
        assert target.is_file(), f"{url}: no such page"
        if not anchor:
            continue
        assert anchor in page_ids(target), f"{url}: no such anchor"
        html = target.read_text(encoding="utf-8")
        if shown.startswith("Figure "):
            number = re.search(
                rf'id="{re.escape(anchor)}".*?caption-number">Fig\. ([\d.]+)',
                html,
                re.S,
            )
            assert number and shown == f"Figure {number[1]}", (shown, url)
        elif anchor.startswith("cite-"):
            label = re.search(
                rf'id="{re.escape(anchor)}".*?fn-bracket">\[</span>([^<]+)<', html, re.S
            )
            who, _, year = htmllib.unescape(label[1]).rpartition(", ")
            assert shown in (f"{who} ({year})", f"{who}, {year}"), (shown, url)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_reader_copy_code_is_the_chapters_code(built_book, path):
    """Code cells differ from the source only by nbgrader's marker lines and hidden
    tests, and still compile (outputs are the stored ones)."""
    reader, source = copy_of(built_book, path), json.loads(path.read_text())
    for mine, theirs in zip(reader["cells"], source["cells"]):
        if mine["cell_type"] != "code":
            continue
        code = "".join(mine["source"])
        assert "BEGIN SOLUTION" not in code and "BEGIN HIDDEN TESTS" not in code
        compile(without_magics(code), path.name, "exec")
        kept = set("".join(theirs["source"]).split("\n"))
        assert set(code.split("\n")) <= kept


@pytest.mark.static
def test_self_study_copy_keeps_the_tasks_and_visible_tests_only():
    def cell(kind, source, **grading):
        meta = {"nbgrader": grading} if grading else {}
        return {"cell_type": kind, "source": source, "metadata": meta, "outputs": []}

    notebook = {
        "cells": [
            cell("markdown", "(sec-a)=\n## Exercise 1.1\n\nSee {ref}`sec-a`."),
            cell(
                "code",
                "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
                solution=True,
            ),
            cell(
                "code",
                "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(3) == 6\n"
                "### END HIDDEN TESTS",
                grade=True,
            ),
            cell("markdown", "The model answer.", solution=True, grade=True),
        ]
    }
    cells = rc.exercises_copy(notebook, small_targets(), "notebooks/01-z")["cells"]
    assert [c["source"] for c in cells] == [
        f"## Exercise 1.1\n\nSee [Section A]({SITE}notebooks/02-x.html#sec-a).",
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()",
        "assert f(1) == 2",
        "YOUR ANSWER HERE",
    ]
    assert notebook["cells"][1]["source"].count("2 * x") == 1, "input untouched"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_self_study_copy_has_no_answers(built_book, path):
    """The site's exercises/NN-name.ipynb: every cell of the chapter, no MyST, every
    solution stubbed, every written answer empty, the visible tests kept."""
    mine = json.loads((built_book / rc.EXERCISES / path.name).read_text())
    source = json.loads(path.read_text())
    kept = [
        c for c in source["cells"] if "colab-badge" not in c["metadata"].get("tags", [])
    ]
    assert len(mine["cells"]) == len(kept)
    for ours, theirs in zip(mine["cells"], kept):
        text, meta = "".join(ours["source"]), theirs["metadata"].get("nbgrader", {})
        if ours["cell_type"] == "markdown":
            assert not rc.MYST_SYNTAX.search(text), text
            if meta.get("solution"):
                assert text == "YOUR ANSWER HERE"
            continue
        assert not ours["outputs"]
        assert "SOLUTION" not in text and "HIDDEN TESTS" not in text
        if meta.get("solution"):
            assert "raise NotImplementedError()" in text
        if meta.get("grade"):
            visible = rc.HIDDEN.sub("", "".join(theirs["source"]))
            assert text == visible.rstrip("\n")


def test_launch_buttons_and_badge_open_the_reader_copies(built_book):
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    branch = config["sphinx"]["config"]["reader_copies_branch"]
    repo = config["repository"]["url"].removeprefix("https://github.com/")
    name = NOTEBOOKS[0].name
    html = (built_book / "notebooks" / name.replace(".ipynb", ".html")).read_text()
    colab = f"https://colab.research.google.com/github/{repo}/blob/{branch}/notebooks/{name}"
    assert f'href="{colab}"' in html
    assert f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=" in html
    assert f'href="../_sources/notebooks/{name}"' in html  # the reader copy (see above)
    badges = [
        "".join(c["source"])
        for c in copy_of(built_book, NOTEBOOKS[0])["cells"]
        if "colab-badge" in c.get("metadata", {}).get("tags", [])
    ]
    assert badges and all(f"({colab})" in b for b in badges)
