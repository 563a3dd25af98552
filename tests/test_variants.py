"""The bank of exercise variants (grading/bank/) and `make variants`."""

import pytest

from conftest import (
    NOTEBOOKS,
    chapters,
    has_triton,
    needs_triton,
    read_notebook,
    require,
)
from grading import variants
from reader_copies import MYST_SYNTAX
from grading.bank import BankError, Edit, Variant, apply, bank
from upkeep.cells import grading

MINIMUM = 3  # variants per coding exercise, besides the book's own


def coding_exercises(notebook):
    """{exercise: (solution ids, grade cell ids)} of a chapter's coding exercises."""
    found = {}
    for cell in notebook.cells:
        meta = grading(cell)
        if cell.cell_type != "code" or not meta.get("grade_id"):
            continue
        exercise = variants.exercise_of(meta["grade_id"])
        solutions, tests = found.setdefault(exercise, (set(), set()))
        if meta.get("solution"):
            solutions.add(meta["grade_id"])
        elif meta.get("grade"):
            tests.add(meta["grade_id"])
    return {e: ids for e, ids in found.items() if ids[0]}


@pytest.mark.static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_coding_exercise_has_variants_that_apply(path):
    """Every coding exercise has at least three variants; each changes the model answer
    and the tests, and every edit of every variant finds its text exactly once."""
    notebook = read_notebook(path)
    exercises = coding_exercises(notebook)
    options = bank(path.stem)
    assert set(options) == set(exercises), (
        f"coding exercises {sorted(exercises)}, bank {sorted(options)}"
    )
    for exercise, variants_of in options.items():
        names = [v.name for v in variants_of]
        assert len(names) >= MINIMUM, f"{exercise}: {len(names)} variants"
        assert len(set(names)) == len(names), f"{exercise}: names repeat"
        solutions, tests = exercises[exercise]
        for variant in variants_of:
            assert variant.summary.strip(), f"{exercise} {variant.name}: no summary"
            edited = {edit.cell for edit in variant.edits}
            assert edited & solutions and edited & tests, (
                f"{exercise} {variant.name}: must change a model answer and its tests"
            )
            changed = apply(read_notebook(path), exercise, variant)
            assert [c.source for c in changed.cells] != [
                c.source for c in notebook.cells
            ]


@pytest.mark.static
def test_an_edit_that_no_longer_fits_is_an_error():
    notebook = read_notebook(NOTEBOOKS[0])
    missing = Variant("x", "x", (Edit(notebook.cells[0].id, "no such text", "y"),))
    with pytest.raises(BankError, match="0 times, expected once"):
        apply(notebook, "01-ex1", missing)
    with pytest.raises(BankError, match="0 cells named"):
        apply(notebook, "01-ex1", Variant("x", "x", (Edit("nowhere", "a", "b"),)))


@pytest.mark.grading
@pytest.mark.parametrize("path", chapters())
def test_variants_grade(path, built_book):
    """Every variant of the chapter's bank, on hidden-test seeds other than the
    book's: its model answers get every autograded point from the grader, the book's
    public answers lose points on it, and its exercises run as a student runs them.
    Its notebooks are as clean as the book's hand-outs: no MyST left."""
    if needs_triton(path):
        require(has_triton(), "no triton here (`make test-triton` checks this chapter)")
    targets = variants.load_targets(built_book.parent / variants.TARGETS)
    for exercise, options in bank(path.stem).items():
        for variant in options:
            source = variants.source_with(path.stem, {exercise: variant}, targets)
            for cell in source.cells:
                found = cell.cell_type == "markdown" and MYST_SYNTAX.search(cell.source)
                assert not found, f"{exercise} {variant.name}: {found[0]!r}"
    assert variants.check(path.stem, targets=targets) == []


@pytest.mark.static
def test_a_course_bank_replaces_the_books_variants(tmp_path, monkeypatch):
    """NORMBOOK_BANK (`make variants BANK=...`): a course's own variants of an
    exercise replace the book's; the other exercises keep the book's."""
    (tmp_path / "ch04.py").write_text(
        "from grading.bank import Variant\n"
        "BANK = {'04-ex1': [Variant('mine', 'a variant of my own', ())]}\n"
    )
    public = bank("04-rmsnorm")
    monkeypatch.setenv("NORMBOOK_BANK", str(tmp_path))
    mine = bank("04-rmsnorm")
    assert [v.name for v in mine["04-ex1"]] == ["mine"]
    assert {e: v for e, v in mine.items() if e != "04-ex1"} == {
        e: v for e, v in public.items() if e != "04-ex1"
    }
    monkeypatch.setenv("NORMBOOK_BANK", str(tmp_path / "missing"))
    with pytest.raises(BankError, match="is not a folder"):
        bank("04-rmsnorm")
