"""The source ledger: every entry of the bibliography that chapters 08 to 14 cite
carries a `note` saying where in the source the chapter's statement stands (section,
table, figure, or file and line), so that a reader and a reviewer can check it."""

import re

import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook

pytestmark = pytest.mark.static

CITE = re.compile(r"\{cite:[pt]\}`([^`]+)`")
ENTRY = re.compile(r"^@\w+\{([^,\s]+),(.*?)^\}", re.M | re.S)
LEDGER = [p for p in NOTEBOOKS if 8 <= int(p.name[:2]) <= 14]


def cited(path):
    keys = set()
    for cell in read_notebook(path).cells:
        if cell.cell_type == "markdown":
            for group in CITE.findall(cell.source):
                keys |= {k.strip() for k in group.split(",")}
    return keys


def test_the_ledger_covers_chapters_8_to_14():
    assert [int(p.name[:2]) for p in LEDGER] == list(range(8, 15))


@pytest.mark.parametrize("path", LEDGER, ids=lambda p: p.name)
def test_every_cited_source_has_a_locator(path):
    entries = dict(ENTRY.findall((ROOT / "book" / "references.bib").read_text()))
    keys = cited(path)
    assert keys, f"{path.name} cites nothing: the ledger would check nothing"
    unknown = sorted(k for k in keys if k not in entries)
    assert not unknown, f"cited but not in references.bib: {unknown}"
    bare = sorted(k for k in keys if not re.search(r"^\s*note\s*=", entries[k], re.M))
    assert not bare, f"{path.name}: entries without a locator note: {bare}"
