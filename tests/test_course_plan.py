"""The course plan (book/course-plan.md): hours from the chapters and measured run times."""

import json
import re

import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook

import points_table as pt
from upkeep.cells import code_digest

PAGE = ROOT / "book" / "course-plan.md"


@pytest.mark.static
def test_every_chapter_states_a_run_time_measured_on_its_code():
    """Each chapter has a run time in run-times.json, measured on the code it has now
    (`make execute` measures it again), and states it under its title (`make sync`
    writes the line; the sync test holds it to the file)."""
    measured = json.loads(pt.RUN_TIMES.read_text())
    assert set(measured["seconds"]) == {p.stem for p in NOTEBOOKS}
    assert all(s > 0 for s in measured["seconds"].values())
    for path in NOTEBOOKS:
        notebook = read_notebook(path)
        assert measured["code"].get(path.stem) == code_digest(notebook), (
            f"{path.name}: its code changed since its run time was measured "
            f"(make execute NB=notebooks/{path.name})"
        )
        tagged = [
            c for c in notebook.cells if "sync:run-time" in c.metadata.get("tags", [])
        ]
        assert len(tagged) == 1 and notebook.cells[2] is tagged[0], (
            f"{path.name}: the run time stands under the title and badge, once"
        )


@pytest.mark.static
def test_plans_take_every_chapter_once_and_the_points_add_up():
    text = PAGE.read_text(encoding="utf-8")
    tables = re.findall(r"```\{course-plan-table\}\n([^`]*)```", text)
    plans = [t for t in tables if t.strip()]
    assert len(plans) == 2
    chapters = sorted(p.stem[:2] for p in NOTEBOOKS)
    for plan in plans:
        listed = [c for line in plan.splitlines() for c in line.split(":")[1].split()]
        assert sorted(listed) == chapters
    manual = sum(pt.chapter_points(p)[2] for p in NOTEBOOKS)
    total = sum(sum(pt.chapter_points(p)[1:]) for p in NOTEBOOKS)
    assert f"({manual} of the book's {total} points)" in text


def test_course_plan_page_shows_each_chapter_and_links_its_exercises(built_book):
    html = (built_book / "book" / "course-plan.html").read_text(encoding="utf-8")
    seconds = json.loads(pt.RUN_TIMES.read_text())["seconds"]
    for path in NOTEBOOKS:
        plan = pt.chapter_plan(path, seconds)
        row = [path.stem[:2], f"{plan['reading']:.1f}", f"{plan['running'] * 60:.1f}"]
        cells = r"</p>\s*</td>\s*<td[^>]*><p>".join(map(re.escape, row))
        assert re.search(cells, html), f"{path.stem}: {row} not in the hours table"
        link = f'href="../exercises/{path.name}"'
        assert link in html, f"no link to the self-study copy of {path.stem}"
        assert (built_book / "exercises" / path.name).is_file()
