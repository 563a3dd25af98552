"""The test tiers' plumbing (tests/conftest.py, pyproject.toml's markers): require(),
and which part of the browser matrix `make test` runs."""

import inspect

import pytest

import test_browser
from conftest import SHARED_LOAD, require, toc_files, work_unit
from test_browser import (
    CHAPTERS,
    SCHEMES,
    WIDTHS,
    desktop_light_and_dark_in_turn,
    matrix,
    phone_light_desktop_dark,
)

pytestmark = pytest.mark.static


def test_require_skips_here_and_fails_under_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    require(True, "nothing missing")
    with pytest.raises(pytest.skip.Exception, match="skipped: no tool"):
        require(None, "no tool")
    monkeypatch.setenv("CI", "true")
    require("/usr/bin/tool", "nothing missing")
    with pytest.raises(pytest.fail.Exception, match="CI=true, but no tool"):
        require("", "no tool")


def in_make_test(params):
    return [
        p.values for p in params if not any(m.name == "browser_matrix" for m in p.marks)
    ]


def test_the_matrix_is_whole_and_make_test_runs_part_of_it():
    """The opt-in target runs every page x width x scheme; make test the layout check
    once per width for every chapter (both schemes among them) and axe once per page
    (both schemes among the pages)."""
    for entries in (CHAPTERS, toc_files()):
        for chosen in (phone_light_desktop_dark, desktop_light_and_dark_in_turn):
            params = matrix(entries, chosen)
            assert len({p.values for p in params}) == (
                len(entries) * len(WIDTHS) * len(SCHEMES)
            )
    layout = in_make_test(matrix(CHAPTERS, phone_light_desktop_dark))
    for entry in CHAPTERS:
        widths = sorted(w for e, w, _ in layout if e == entry)
        assert widths == sorted(WIDTHS)
        assert {s for e, _, s in layout if e == entry} == set(SCHEMES)
    axe = in_make_test(matrix(toc_files(), desktop_light_and_dark_in_turn))
    assert sorted(e for e, _, _ in axe) == sorted(toc_files())
    assert {s for _, _, s in axe} == set(SCHEMES)


def test_a_pages_reading_checks_share_one_load_on_one_worker():
    """The browser checks that SHARED_LOAD groups read the page `opened` gives them,
    in its kind of load; a page's checks of one kind are one work unit, and no other
    page's or kind's."""
    for name, kind in SHARED_LOAD.items():
        check = getattr(test_browser, name)
        assert "opened" in inspect.signature(check).parameters, name
        assert f'opened(entry, "{kind}")' in inspect.getsource(check), name
        assert kind in test_browser.READINGS
    units = {
        (name, entry): work_unit(f"tests/test_browser.py::{name}[{entry}]")
        for name in SHARED_LOAD
        for entry in CHAPTERS[:2]
    }
    for (name, entry), unit in units.items():
        for (other, page), theirs in units.items():
            same = entry == page and SHARED_LOAD[name] == SHARED_LOAD[other]
            assert (unit == theirs) == same, (name, other, entry, page)
    assert work_unit(
        "tests/test_browser.py::test_controls_show_the_right_frames[x]"
    ) != (work_unit("tests/test_browser.py::test_math_is_typeset[x]"))
