"""What the tools share about the chapters' cells: the loop over the chapters, a cell's
nbgrader metadata, its Python without magics, the names it defines and reads, the cells
another cell depends on, and one way to run a notebook."""

import ast
import symtable
import time
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


def grading(cell):
    """A cell's nbgrader metadata ({} for a lecture cell)."""
    return cell.metadata.get("nbgrader", {})


def without_magics(source):
    """A cell's Python: lines of IPython magics and shell escapes blanked, so that line
    numbers stay those of the cell."""
    lines = source.splitlines()
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in lines
    )


def top_level_names(source):
    """The names a cell assigns or defines at top level."""
    try:
        tree = ast.parse(without_magics(source))
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def names_of(source):
    """Names a cell may define, names it surely defines (at top level, unconditionally),
    and global names it reads (in any function too), by static analysis."""
    text = without_magics(source)
    try:
        tree, table = ast.parse(text), symtable.symtable(text, "cell", "exec")
    except SyntaxError:
        return set(), set(), set()
    defined = {
        s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()
    }
    read, scopes = set(), [table]
    while scopes:
        scope = scopes.pop()
        scopes += scope.get_children()
        for symbol in scope.get_symbols():
            top = scope is table or symbol.is_global()
            if symbol.is_referenced() and top:
                read.add(symbol.get_name())
    surely = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            surely.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            surely |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            surely |= {t.id for t in targets if isinstance(t, ast.Name)}
    return defined, surely, read


def cells_needed(cells, sources, side, target=None):
    """Indices of the lecture cells that one side depends on: a backward pass that
    follows the names its own cells read to the lecture cell that last set them, and so
    on. `sources[k]` is the code of cell k (the student's, for a solution cell).

    side "grader": the grade cells' needs; "student": the solution cells' needs (names
    a solution defines come from the student); "scan": the needs of cell `target`
    alone, every earlier code cell a lecture cell and the parameters cell always kept.
    """
    needed, wanted = set(), set()
    stop = len(cells) if target is None else target
    if target is not None:
        wanted = names_of(sources[target])[2]
    for k in range(stop - 1, -1, -1):
        if cells[k].cell_type != "code":
            continue
        meta = {} if side == "scan" else grading(cells[k])
        defined, surely, read = names_of(sources[k])
        if meta.get("solution"):
            wanted -= defined  # the student's process defines these
            if side == "student":
                wanted |= read
        elif meta.get("grade"):
            if side == "grader":  # a grade cell may use what an earlier one defined
                wanted = (wanted - surely) | read
        elif defined & wanted or (
            side == "scan" and "parameters" in cells[k].metadata.get("tags", [])
        ):
            needed.add(k)
            wanted = (wanted - surely) | read
    return needed


def run_notebook(notebook, folder, timeout=1800, kernel="python3", **options):
    """Execute `notebook` in place, top to bottom in a fresh kernel whose working folder
    is `folder`; return the seconds it took. Raises nbclient's CellExecutionError when
    a cell fails."""
    from nbclient import NotebookClient

    start = time.perf_counter()
    NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name=kernel,
        resources={"metadata": {"path": str(folder)}},
        **options,
    ).execute()
    return time.perf_counter() - start
