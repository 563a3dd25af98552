"""What the tools share about the chapters' cells: the loop over the chapters, a cell's
nbgrader metadata, its Python without magics, the names it defines and reads, the cells
another cell depends on, and one way to run a notebook."""

import ast
import hashlib
import symtable
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "notebooks"


def update_chapters(update, write, paths=None):
    """Apply `update(notebook, path) -> changed` to every chapter (or to `paths`); save
    the changed ones if `write`. Returns the names of the chapters that needed a change.
    """
    import nbformat  # here: the student's process imports this module, not nbformat

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
    and the global names it reads before it surely sets them (a function's reads count
    unless the cell surely sets the name), by static analysis. A cell that stores into
    an item or attribute of a name (`results[k] = v`, `cfg.lr = v`) may define it too: it
    fills in what an earlier cell made (a mutating method call, `results.update(...)`,
    is not seen)."""
    text = without_magics(source)
    try:
        tree, table = ast.parse(text), symtable.symtable(text, "cell", "exec")
    except SyntaxError:
        return set(), set(), set()
    defined = {
        s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()
    } | {
        _base(target)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in getattr(node, "targets", [getattr(node, "target", None)])
        if isinstance(target, (ast.Subscript, ast.Attribute)) and _base(target)
    }
    surely = set().union(*(_sets(node) for node in tree.body))
    later, scopes = set(), table.get_children()  # read when called, not when defined
    while scopes:
        scope = scopes.pop()
        scopes += scope.get_children()
        later |= {
            s.get_name()
            for s in scope.get_symbols()
            if s.is_referenced() and s.is_global()
        }
    return defined, surely, _read_first(tree.body, set()) | (later - surely)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _sets(node):
    """The names a top-level statement surely sets."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Assign):
        return set().union(*(_stored(t) for t in node.targets))
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return _stored(node.target)
    return set()


def _base(target):
    """The name an item or attribute store starts from (`results` of results[a].b)."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _stored(target):
    """The names an assignment target sets (a, b = ... sets both)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _stored(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_stored(t) for t in target.elts))
    return set()


def _loads(node, bound):
    """Global names an expression or simple statement reads, outside nested scopes
    (their defaults, decorators and bases and a comprehension's first iterable are
    read here; their bodies are `later` in names_of)."""
    if isinstance(node, _SCOPES):
        parts = list(getattr(node, "decorator_list", []))
        if isinstance(node, ast.ClassDef):
            parts += node.bases + [k.value for k in node.keywords]
        else:
            parts += node.args.defaults + [d for d in node.args.kw_defaults if d]
        return set().union(*(_loads(p, bound) for p in parts))
    if isinstance(node, _COMPREHENSIONS):
        return _loads(node.generators[0].iter, bound)
    if isinstance(node, ast.Name):
        return {node.id} - bound if isinstance(node.ctx, ast.Load) else set()
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        read = set() if node.target.id in bound else {node.target.id}
        return read | _loads(node.value, bound)
    return set().union(*(_loads(c, bound) for c in ast.iter_child_nodes(node)))


def _read_first(statements, bound):
    """Names the statements read before they surely set them (`bound`: set already).
    A block's own assignments count within that block only."""
    free, bound = set(), set(bound)
    for node in statements:
        if isinstance(node, (ast.If, ast.While)):
            free |= _loads(node.test, bound)
            free |= _read_first(node.body, bound) | _read_first(node.orelse, bound)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            free |= _loads(node.iter, bound)
            free |= _read_first(node.body, bound | _stored(node.target))
            free |= _read_first(node.orelse, bound)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = set()
            for item in node.items:
                free |= _loads(item.context_expr, bound)
                if item.optional_vars is not None:
                    targets |= _stored(item.optional_vars)
            free |= _read_first(node.body, bound | targets)
        elif isinstance(node, ast.Try):
            free |= _read_first(node.body, bound) | _read_first(node.orelse, bound)
            free |= _read_first(node.finalbody, bound)
            for handler in node.handlers:
                if handler.type is not None:
                    free |= _loads(handler.type, bound)
                caught = {handler.name} if handler.name else set()
                free |= _read_first(handler.body, bound | caught)
        else:
            free |= _loads(node, bound)
        bound |= _sets(node)
    return free


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


def code_digest(notebook):
    """A digest of a chapter's code (its code cells, in order): the code a measured run
    time holds for (book/assets/measurements/run-times.json)."""
    code = "\n\0".join(c.source for c in notebook.cells if c.cell_type == "code")
    return hashlib.sha256(code.encode()).hexdigest()[:16]


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
