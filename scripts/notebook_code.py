"""The loop over the chapters that the maintainer commands share."""

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "notebooks"


def update_chapters(update, write, paths=None):
    """Apply `update(notebook, path) -> changed` to every chapter (or to `paths`); save
    the changed ones if `write`. Returns the names of the chapters that needed a change.
    """
    changed = []
    for path in paths or sorted(CHAPTERS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        if update(notebook, path):
            changed.append(path.name)
            if write:
                nbformat.write(notebook, path)
    return changed


def check_or_update(update, argv, stale, updated):
    """The command line of a sync, `[--check] [NB ...]`: with --check, print `stale` (a
    format string with {name}) for each chapter (of the NBs given, else of all) that
    `update` would change and return 1 if any; else save the changes and print
    `updated` for each."""
    check = "--check" in argv
    paths = [Path(a) for a in argv if a != "--check"]
    changed = update_chapters(update, write=not check, paths=paths)
    for name in changed:
        print((stale if check else updated).format(name=name))
    return 1 if check and changed else 0
