"""`make pdf`: the whole book as one PDF (book/_ext/print_book.py), beside the site
the run builds: every chapter, every figure the site's pages show, math without an
error, no unresolved reference (the single-page build runs with -W -n, as the site's)."""

import re
import subprocess

import pytest

from conftest import ROOT, toc_files

pytestmark = pytest.mark.browser


def figures(html):
    """A page's figures: images with a description, not the launch buttons' logos."""
    return [
        alt
        for alt in re.findall(r'<img [^>]*?alt="([^"]*)"', html)
        if not alt.endswith(" logo") and "Home" not in alt
    ]


def test_the_whole_book_prints_as_one_pdf(built_book, browser):
    import print_book

    single = ROOT / "_build" / "singlehtml"
    subprocess.run(["rm", "-rf", str(single)], check=True)
    build = subprocess.run(
        [str(ROOT / ".venv-book" / "bin" / "jupyter-book"), "build", str(ROOT)]
        + ["--builder", "singlehtml", "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    facts = print_book.print_book(ROOT / "_build", browser)  # raises if one is missing
    assert facts["pdf"] == built_book / "book.pdf"

    page = (single / "book.html").read_text()
    for entry in toc_files()[1:]:  # the first is the front page, the page itself
        assert f'id="document-{entry}"' in page, f"{entry} is not in the book"
    on_the_site = sum(
        len(figures((built_book / f"{entry}.html").read_text()))
        for entry in toc_files()
    )
    assert len(figures(page)) == on_the_site
    assert facts["math"] > 1000 and facts["pages"] >= 300, facts
    # Numbered as on the site: every caption number, and chapters cited as "Chapter N".
    caption = re.compile(r'caption-number">(Fig\. \d+\.\d+)')
    site = "".join((built_book / f"{e}.html").read_text() for e in toc_files())
    assert set(caption.findall(page)) == set(caption.findall(site)) != set()
    assert re.search(r'<span class="doc">Chapter 8</span>', page)
    intro = (built_book / "book" / "intro.html").read_text()
    assert 'href="../book.pdf"' in intro
