"""The bank of exercise variants: for every coding exercise, other task parameters.

A chapter's bank is the module `grading.bank.chNN` (NN: the chapter's number). Its
`BANK` maps an exercise ("04-ex1": the prefix of its grade ids) to a list of Variants.
A Variant changes the book's exercise by exact text edits, each of one cell of the
book's notebook (notebooks/NN-*.ipynb, before the hand-out conversion, so MyST is
fine): the Task, the model answer (solution cell), the tests (visible and hidden), the
planted bug of a bug hunt, the model answer and mark scheme of a written part that the
change touches. A cell is named by its nbgrader grade id or by its cell id.

A course can keep variants of its own out of this public repository: a folder named by
the environment variable NORMBOOK_BANK (`make variants BANK=...`) holding modules of the
same form (chNN.py with a BANK); an exercise it names gets its variants only from there.

Every edit must find its text exactly once, so a bank that no longer fits its chapter
fails loudly (tests/test_variants.py applies every variant). `python -m grading.variants
check CHAPTER` grades each variant: its model answers must get every point, and the
book's public model answers must lose points on every exercise the variant changes.
"""

import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from upkeep.cells import grading


@dataclass(frozen=True)
class Edit:
    cell: str  # a grade id, or a cell id
    old: str  # text found exactly once in that cell
    new: str


@dataclass(frozen=True)
class Variant:
    name: str  # short, unique within its exercise: "last-k"
    summary: str  # what the task asks in this variant, in one line
    edits: tuple


class BankError(ValueError):
    pass


def bank(chapter):
    """The bank of chapter `chapter` ("04-rmsnorm"): {exercise: [Variant, ...]}, the
    course's own variants (NORMBOOK_BANK) in place of the book's where it has some."""
    name = f"ch{chapter[:2]}"
    try:
        options = dict(importlib.import_module(f"grading.bank.{name}").BANK)
    except ModuleNotFoundError:
        options = {}
    folder = os.environ.get("NORMBOOK_BANK")
    if folder and not Path(folder).is_dir():
        raise BankError(f"NORMBOOK_BANK={folder} is not a folder")
    private = Path(folder or ".") / f"{name}.py"
    if folder and private.is_file():
        spec = importlib.util.spec_from_file_location(f"private_bank_{name}", private)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        options.update(module.BANK)
    return options


def cell_named(notebook, name):
    found = [
        c
        for c in notebook.cells
        if grading(c).get("grade_id") == name or c.get("id") == name
    ]
    if len(found) != 1:
        raise BankError(f"{len(found)} cells named {name!r}, expected one")
    return found[0]


def apply(notebook, exercise, variant):
    """Apply `variant` of `exercise` to `notebook` in place; edited code cells lose
    their outputs (they were the book's)."""
    for edit in variant.edits:
        cell = cell_named(notebook, edit.cell)
        count = cell.source.count(edit.old)
        if count != 1:
            raise BankError(
                f"{exercise} variant {variant.name!r}: {edit.old[:60]!r} is in cell "
                f"{edit.cell!r} {count} times, expected once"
            )
        cell.source = cell.source.replace(edit.old, edit.new)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return notebook
