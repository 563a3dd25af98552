"""Flag submissions that tamper with grading, before or after `nbgrader autograde`.

Usage: python scripts/check_submissions.py RELEASED.ipynb SUBMITTED.ipynb [SUBMITTED ...]
(or `make check-submissions RELEASED=... SUBMITTED="..."`). Exit status 1 if anything is
flagged.

For each submitted notebook it reports
- solution cells that rebind attributes of modules (`np.allclose = ...`, `setattr(torch,
  ...)`, `builtins.print = ...`), import `builtins`, write to `globals()`, or redefine a name
  that a locked (read-only or grade) cell of the hand-out defines, such as `rel_error`;
- grade cells and read-only cells that were edited, deleted, or stripped of their nbgrader
  metadata, compared with the released hand-out by grade_id.

No check inside the student's own kernel is tamper-proof: a determined student can defeat
any in-notebook test. This scan makes the usual tricks visible to a human grader; use it
together with nbgrader's own checksum warnings and a look at flagged notebooks.
"""

import ast
import sys

import nbformat

MODULES = {"np", "numpy", "torch", "math", "builtins", "F", "nn", "random", "scipy"}


def grading(cell):
    return cell.metadata.get("nbgrader", {})


def code(cell):
    lines = cell.source.splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def defined_names(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:  # module-level names, the ones a solution cell could rebind
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_")}


def suspicious(source, protected):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute):
                root = target
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in MODULES:
                    found.append(f"rebinds {ast.unparse(target)}")
            if isinstance(target, ast.Subscript) and "globals()" in ast.unparse(target):
                found.append("writes to globals()")

        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("setattr", "delattr") and node.args:
                if isinstance(node.args[0], ast.Name) and node.args[0].id in MODULES:
                    found.append(f"calls {node.func.id} on {node.args[0].id}")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
            if "builtins" in modules:
                found.append("imports builtins")
    for node in tree.body:  # module level only: a function's local names are its own
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in protected:
            found.append(f"redefines {node.name}, defined in a locked cell")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in protected:
                    found.append(f"redefines {target.id}, defined in a locked cell")
    return found


def check(released, submitted):
    problems = []
    locked = {
        grading(c)["grade_id"]: c
        for c in released.cells
        if grading(c).get("locked") or grading(c).get("grade")
    }
    protected = set()
    for cell in locked.values():
        if cell.cell_type == "code":
            protected |= defined_names(code(cell))
    seen = {}
    for cell in submitted.cells:
        meta = grading(cell)
        if meta.get("grade_id"):
            seen[meta["grade_id"]] = cell
        if cell.cell_type == "code" and meta.get("solution"):
            for finding in suspicious(code(cell), protected):
                problems.append(f"solution cell {meta['grade_id']}: {finding}")
    for grade_id, original in locked.items():
        cell = seen.get(grade_id)
        if cell is None:
            problems.append(f"locked cell {grade_id} was deleted")
            continue
        meta = grading(cell)
        if grading(original).get("grade") and not meta.get("grade"):
            problems.append(f"grade cell {grade_id} lost its grading metadata")
        if meta.get("points") != grading(original).get("points"):
            problems.append(f"grade cell {grade_id} has different points")
        if cell.source.strip() != original.source.strip():
            problems.append(f"locked cell {grade_id} was edited")
    return problems


def main(released_path, submitted_paths):
    released = nbformat.read(released_path, as_version=4)
    flagged = 0
    for path in submitted_paths:
        problems = check(released, nbformat.read(path, as_version=4))
        flagged += bool(problems)
        print(f"{path}: {'FLAGGED' if problems else 'ok'}")
        for problem in problems:
            print(f"  - {problem}")
    return 1 if flagged else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
