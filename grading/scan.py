"""Flag submissions that tamper with grading, before or after `nbgrader autograde`.

Usage: python -m grading.scan [--source SOURCE.ipynb] RELEASED.ipynb
SUBMITTED.ipynb [SUBMITTED ...] (or `make check-submissions RELEASED=... SUBMITTED="..."`).
RELEASED is the student hand-out; SOURCE, optional, the instructor notebook, whose hidden
tests say what each exercise forbids. Prints `ok` or `FLAGGED` per submission, then one
line per reason; exit status 1 if anything is flagged.

What it reads: the code the student wrote, that is the solution cells (nbgrader
`solution: true`) and the added cells (code cells whose source is no hand-out cell's and
that carry no grade_id of the hand-out, edited lecture cells included), parsed, never
run. Expected and never flagged: edited solution cells and typed written answers; the
student's own names (`x = np.ones(3)`, `def helper(...)`, local variables of any name);
prints, plots, `%time`, `%matplotlib`, and self-tests that call the student's or the
chapter's functions, forbidden ones included when called at module level.

In solution cells and added cells it flags
- rebinding attributes of modules, also through aliases (`np.allclose = ...`,
  `setattr(torch, ...)`, `import numpy as foo; foo.isclose = ...`), setting special
  attributes (`f.__code__ = ...`), and rebinding or deleting a function or class that a
  locked cell defines (`rel_error`) or a name the hand-out imports (`np`);
- `builtins` and `__builtins__`, `sys.modules`, `sys.excepthook`, `sys.settrace`,
  `sys.setprofile`, `sys.meta_path` and other interpreter hooks; frames (`sys._getframe`,
  `inspect.currentframe`/`stack`/`getouterframes`, `f_back`, `f_globals`, `f_locals`,
  `gi_frame`, `tb_frame`), `gc.get_referrers`/`get_objects`, `__globals__`,
  `__subclasses__`; also spelled `getattr(sys, "_getframe")`;
- IPython: `get_ipython()` and whatever hangs on it (`ast_transformers`,
  `input_transformers_*`, `events.register`, `set_custom_exc`, `run_cell`), magics that
  load code or register hooks (`%load_ext`, `%run`, `%config` other than InlineBackend,
  ...), shell commands (`!`, `%%bash`, `os.system`, `subprocess`);
- dynamic code: `exec`, `eval`, `compile`, `__import__`, `importlib`, `ctypes`, `runpy`,
  `marshal`; writes to `globals()` or `vars()` (subscripts, `.update`, aliases);
- subclasses of `np.ndarray` or `torch.Tensor` (an array that lies about equality), and
  `__torch_function__`/`__array_function__` overrides or torch function modes;
- for the instructor's eye only (grading/grade.py takes no points for them): reading or
  writing files (`open`, `os.listdir`, `pathlib`, `np.load`, ...), pickles, paths of the
  system (`"/proc/..."`, `site-packages`, `.pth`), `sys.path`, `sysconfig`, the
  environment, other processes (`os.fork`, `os.kill`), the network (`socket`,
  `urllib`), and imports of a module that neither the hand-out nor (with --source) the
  model answers import;
and in solution cells only, for each coding exercise (its grade cells are the code grade
cells after it, up to the next code solution cell):
- the names that a literal `_FORBIDDEN = (...)`, or the literal first argument of
  `_call_without(...)`, in those grade cells forbids: inside a function, as a default
  argument, or kept at module level (`_impl = layernorm_backward`, `partial(...)`);
- where a grade cell calls `_call_without`, autograd (`torch.autograd`, `.backward(`,
  `torch.func`, `functorch`, `grad_fn`, `requires_grad`), captured references
  (`from torch.autograd import grad as g`) included.
And, compared with the hand-out by grade_id: grade cells and read-only code cells that
were edited, deleted, duplicated, or whose nbgrader metadata changed; code solution cells
that were deleted or lost their metadata (their code is then scanned as an added cell,
without the forbidden-name check). Written-answer cells are never locked.

Limits: the scan is static, a reader's aid, not the defence against tampering with the
machine that grades: that is grading/grade.py's sandbox (grading/sandbox.py), which
keeps the course, the environment, other students and the network out of the student's
reach whatever the code. The scan cannot follow names built at run time
(`getattr(x, "f_" + "back")`), code read from files, pickles or the network, a callee of
the student's own that keeps a forbidden function it is given, or a tamper in the
notebook's outputs; without --source it knows only the forbidden names that the
hand-out's visible tests show. It does not judge answers: hard-coded results and wrong
formulas are for the hidden tests. No check inside the student's kernel is tamper-proof
either: use this scan together with nbgrader's checksum warnings and a look at flagged
notebooks; a flag is a reason to look, not a verdict.
"""

import argparse
import ast
import functools
import re
import sys

import nbformat

from upkeep.cells import grading
from grading.rules import (
    ARRAY_BASES,
    AUTOGRAD_ATTRIBUTES,
    AUTOGRAD_PATHS,
    BANNED_ATTRIBUTES,
    BANNED_BUILTINS,
    BANNED_PATHS,
    CAPTURES,
    HOOK_MAGICS,
    OVERRIDE_METHODS,
    PYTHON_MAGICS,
    SETTINGS,
    SHELL_MAGICS,
    SYSTEM_PATH,
    ZEROING,
)


def under(path, prefix):
    return path == prefix or path.startswith(prefix + ".")


def python_tail(line):
    """The Python statement at the end of a magic's line, after options such as
    `-n 10` or `-o out`."""
    words = line.split()
    for start in range(len(words)):
        tail = " ".join(words[start:])
        try:
            ast.parse(tail)
            return tail
        except SyntaxError:
            continue
    return "None"


def strip_magics(source):
    """The Python in a cell (magic and shell lines dropped, `%time x` kept as `x`) and
    the findings about its magics."""
    findings, lines = [], source.splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split()[0] if first[2:].split() else ""
        if name in SHELL_MAGICS:
            return "", [f"runs a shell command (%%{name})"]
        if name in HOOK_MAGICS:
            findings.append(f"uses %%{name}")
        if name not in PYTHON_MAGICS:
            return "", findings
        lines = lines[1:]
    kept = []
    for line in lines:
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        match = re.match(r"([\w\s.,\[\]()]+=\s*)([!%])(.*)$", stripped)
        prefix = ""
        if match and not stripped.startswith(("!", "%")):
            prefix, stripped = match.group(1), match.group(2) + match.group(3)
        if stripped.startswith("!"):
            findings.append(f"runs a shell command ({stripped[:40]})")
            kept.append(indent + prefix + "None")
        elif stripped.startswith("%"):
            words = stripped.lstrip("%").split(None, 1)
            name = words[0] if words else ""
            rest = words[1] if len(words) > 1 else ""
            if name in SHELL_MAGICS:
                findings.append(f"runs a shell command (%{name})")
            elif name in HOOK_MAGICS and not (
                name == "config" and rest.startswith("InlineBackend")
            ):
                findings.append(f"uses %{name}")  # %config can evaluate code
            if name in PYTHON_MAGICS and name != "writefile":
                kept.append(indent + prefix + python_tail(rest))
            else:
                kept.append(indent + prefix + "None")
        elif stripped.endswith("?") and not stripped.startswith("#"):
            kept.append(indent + "None")  # `np.allclose?` is help, not code
        else:
            kept.append(line)
    return "\n".join(kept), findings


@functools.lru_cache(maxsize=4096)
def parse(source):
    """(syntax tree or None, findings about magics). A cell that does not parse even
    without its magics cannot run, so it cannot tamper with anything."""
    try:
        return ast.parse(source), []
    except SyntaxError:
        pass
    python, findings = strip_magics(source)
    try:
        return ast.parse(python), findings
    except SyntaxError:
        return None, findings


def imports_of(tree):
    """{name: dotted path} for every import in a syntax tree."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def module_level_names(tree):
    """(functions and classes, names bound by imports) at a cell's top level."""
    defined, imported = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update(imports_of(ast.Module(body=[node], type_ignores=[])))
    return defined, imported


def literal_names(node):
    """The strings of a literal tuple or list of strings, else None."""
    if isinstance(node, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return {e.value for e in node.elts}
    return None


def grade_cell_rules(tree):
    """(forbidden names, forbids autograd) declared by one grade cell."""
    forbidden, autograd, literals = set(), False, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            names = literal_names(node.value)
            for target in node.targets:
                if isinstance(target, ast.Name) and names is not None:
                    literals[target.id] = names
                    if target.id == "_FORBIDDEN":
                        forbidden |= names
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_call_without"
        ):
            autograd = True
            if node.args:
                first = node.args[0]
                names = literal_names(first)
                if names is None and isinstance(first, ast.Name):
                    names = literals.get(first.id)
                forbidden |= names or set()
    return forbidden, autograd


class Handout:
    """What a submission is compared with: the hand-out's locked cells, sources and
    imports, and each coding exercise's rules."""

    def __init__(self, released, source=None):
        self.sources = {
            c.source.strip()
            for c in released.cells
            if c.cell_type == "code" and not grading(c).get("solution")
        }
        self.ids = {grading(c)["grade_id"] for c in released.cells if grading(c)}
        # The modules the hand-out (and the model answers, given SOURCE) import.
        self.modules = set()
        for cell in [*released.cells, *(source.cells if source else [])]:
            tree = parse(cell.source)[0] if cell.cell_type == "code" else None
            if tree is not None:
                paths = imports_of(tree).values()
                self.modules |= {path.split(".")[0] for path in paths}
        self.locked = {}
        self.solutions, self.code_solutions = [], []
        for cell in released.cells:
            meta = grading(cell)
            if meta.get("solution"):
                self.solutions.append(meta["grade_id"])
                if cell.cell_type == "code":
                    self.code_solutions.append(meta["grade_id"])
            elif cell.cell_type == "code" and (meta.get("locked") or meta.get("grade")):
                self.locked[meta["grade_id"]] = cell
        self.protected, self.imported, used = {}, {}, set()
        for cell in released.cells:
            if cell.cell_type != "code":
                continue
            tree = parse(cell.source)[0]
            if tree is None:
                continue
            defined, imported = module_level_names(tree)
            meta = grading(cell)
            if meta.get("grade_id") in self.locked:
                used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
                for name in defined:
                    # A grade cell defines its private helpers again before it uses them.
                    if not (meta.get("grade") and name.startswith("_")):
                        self.protected[name] = meta["grade_id"]
            if not meta.get("solution"):
                self.imported.update(
                    {k: v for k, v in imported.items() if not k.startswith("_")}
                )
        # Imports that locked cells use (`np` in normwise_error): rebinding them changes
        # what the visible tests compute. The student may reuse the others (`time`).
        self.imported = {k: v for k, v in self.imported.items() if k in used}
        self.rules = self.exercise_rules(source or released)

    @staticmethod
    def exercise_rules(notebook):
        """{solution grade_id: (forbidden names, forbids autograd)} of each coding
        exercise: read from the grade cells between its solution cell and the next."""
        rules, current = {}, None
        for cell in notebook.cells:
            meta = grading(cell)
            if cell.cell_type != "code":
                continue
            if meta.get("solution"):
                current = meta["grade_id"]
                rules[current] = (set(), False)
            elif meta.get("grade") and current is not None:
                tree = parse(cell.source)[0]
                if tree is not None:
                    names, autograd = grade_cell_rules(tree)
                    old_names, old_autograd = rules[current]
                    rules[current] = (old_names | names, old_autograd or autograd)
        return rules


class Scan(ast.NodeVisitor):
    """Findings in one solution or added cell."""

    def __init__(self, handout, aliases, forbidden=frozenset(), no_autograd=False):
        self.handout, self.aliases = handout, dict(aliases)
        self.forbidden, self.no_autograd = forbidden, no_autograd
        self.found = []
        self.namespaces = {}  # names bound to globals(), vars(np), ...
        self.depth = 0  # inside a function or class: names bound there are local
        self.parents = {}

    def flag(self, finding):
        if finding not in self.found:
            self.found.append(finding)

    def path(self, node):
        """The dotted path an expression names through the notebook's imports."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.path(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def self_test(self, node):
        """Whether a use of a forbidden function or of autograd in a solution cell is
        a module-level self-test, which the graded function cannot reach: a call
        (`ref = layernorm_backward(dout, cache)`, `loss.backward()`), an argument of a
        call, or the body of a lambda. The grade cells hide these names only while the
        student's function runs: a use in a function body is what they forbid, and a
        default argument, a decorator, or a reference kept in a name or container
        (`_impl = layernorm_backward`, `partial(layernorm_backward)`) a way around."""
        if node is None or self.depth:
            return False
        child, parent = node, self.parents.get(node)
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Lambda):
                return child is parent.body
            if isinstance(parent, ast.Call):
                if child is parent.func:
                    return True
                callee = ast.unparse(parent.func).split(".")[-1]
                return callee not in CAPTURES
            child, parent = parent, self.parents.get(parent)
        if isinstance(parent, ast.Expr):
            return True  # a bare expression statement keeps nothing
        return False

    def check_path(self, path, node=None):
        for banned in self.forbidden:  # a module the exercise rules out: torch.nn.init
            if "." in banned and under(path, banned) and not self.self_test(node):
                self.flag(f"uses {banned}, which this exercise forbids")
        for banned, finding in BANNED_PATHS.items():
            if under(path, banned):
                self.flag(finding)
        for banned in AUTOGRAD_PATHS:
            if self.no_autograd and under(path, banned) and not self.self_test(node):
                self.flag(f"uses autograd ({banned}), which this exercise rules out")

    def check_attribute(self, value, attr, text, node=None):
        """Checks for `value.attr`, also when spelled getattr(value, "attr")."""
        if attr in BANNED_ATTRIBUTES:
            self.flag(BANNED_ATTRIBUTES[attr])
        base = self.path(value)
        if attr == "__dict__" and base:
            self.flag(f"touches {text}")
        if (
            self.no_autograd
            and attr in AUTOGRAD_ATTRIBUTES
            and not self.self_test(node)
        ):
            self.flag(f"uses autograd (.{attr}), which this exercise rules out")
        if base is not None:
            self.check_path(f"{base}.{attr}", node)

    def owned_by_notebook(self, node):
        """A module, or a function or class of a locked cell."""
        return self.path(node) is not None or (
            isinstance(node, ast.Name) and node.id in self.handout.protected
        )

    def namespace(self, node):
        """'globals()' or the module's namespace that an expression is, else None:
        globals(), vars() and locals() at module level, vars(np), np.__dict__."""
        if isinstance(node, ast.Name):
            return self.namespaces.get(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name, args = node.func.id, node.args
            if name == "globals" or (name in ("vars", "locals") and not args):
                return "globals()" if name != "locals" or not self.depth else None
            if name == "vars" and args and self.owned_by_notebook(args[0]):
                return ast.unparse(node)
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "__dict__"
            and self.owned_by_notebook(node.value)
        ):
            return ast.unparse(node)
        return None

    def check_target(self, target, verb):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.check_target(element, verb)
        elif isinstance(target, ast.Starred):
            self.check_target(target.value, verb)
        elif isinstance(target, ast.Name):
            self.check_name_binding(target.id, verb)
        elif isinstance(target, ast.Attribute):
            text = ast.unparse(target)
            path = self.path(target.value)
            if path is not None and any(under(path, s) for s in SETTINGS):
                pass
            elif path is not None:
                full = f"{path}.{target.attr}"
                note = "" if full == text else f" ({full})"
                self.flag(f"{verb} {text}{note}, an attribute of a module")
            elif target.attr.startswith("__") and target.attr.endswith("__"):
                self.flag(f"{verb} {text}, a special attribute")
            elif (
                isinstance(target.value, ast.Name)
                and target.value.id in self.handout.protected
            ):
                self.flag(f"{verb} {text}, an attribute of a locked cell's function")
        elif isinstance(target, ast.Subscript) and self.namespace(target.value):
            self.flag(
                f"writes to {self.namespace(target.value)} ({ast.unparse(target)})"
            )

    def check_name_binding(self, name, verb, module=None):
        if self.depth:
            return
        if name in self.handout.protected:
            where = self.handout.protected[name]
            self.flag(f"{verb} {name}, defined in locked cell {where}")
        elif name in self.handout.imported and module != self.handout.imported[name]:
            self.flag(
                f"{verb} {name}, the hand-out's import of {self.handout.imported[name]}"
            )

    def visit_Assign(self, node):
        for target in node.targets:
            self.check_target(target, "rebinds")
            if isinstance(target, ast.Name):
                path = self.path(node.value)
                if path is not None:
                    self.aliases[target.id] = path
                elif not self.depth:
                    self.aliases.pop(target.id, None)
                if self.namespace(node.value):
                    self.namespaces[target.id] = self.namespace(node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.check_target(node.target, "rebinds")
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self.check_target(node.target, "rebinds")
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.check_target(node.target, "rebinds")
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self.check_target(target, "deletes")
        self.generic_visit(node)

    def visit_For(self, node):
        self.check_target(node.target, "rebinds")
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                self.check_target(item.optional_vars, "rebinds")
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def check_module(self, module):
        top = module.split(".")[0]
        if top not in self.handout.modules:
            self.flag(f"imports {top}, which the hand-out does not")

    def visit_Import(self, node):
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            module = alias.name if alias.asname else name
            self.check_name_binding(name, "rebinds", module)
            self.aliases[name] = module
            self.check_module(alias.name)
            self.check_path(alias.name)

    def visit_ImportFrom(self, node):
        if node.level or not node.module:
            return
        self.check_module(node.module)
        self.check_path(node.module)
        for alias in node.names:
            if alias.name == "*":
                continue
            full = f"{node.module}.{alias.name}"
            name = alias.asname or alias.name
            self.check_name_binding(name, "rebinds", full)
            self.aliases[name] = full
            self.check_path(full)
            if alias.name in self.forbidden:
                self.flag(f"uses {alias.name}, which this exercise forbids")

    def define(self, node):
        self.check_name_binding(node.name, "redefines")
        for default in node.args.defaults + node.args.kw_defaults:
            if default is not None:
                self.visit(default)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.depth += 1
        for statement in node.body:
            self.visit(statement)
        self.depth -= 1

    def visit_FunctionDef(self, node):
        self.define(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Global(self, node):
        # `global name` then `name = ...` in a function rebinds the notebook's name.
        for name in node.names:
            if name in self.handout.protected or name in self.handout.imported:
                self.flag(f"declares global {name}, a name the hand-out defines")

    def visit_ClassDef(self, node):
        self.check_name_binding(node.name, "redefines")
        for base in node.bases:
            text = ast.unparse(base)
            last = text.split(".")[-1]
            path = self.path(base) or ""
            if last in ARRAY_BASES and (path or isinstance(base, ast.Attribute)):
                self.flag(f"defines class {node.name}, a subclass of {text}")
        for statement in node.body:
            names = [getattr(statement, "name", None)]
            names += [ast.unparse(t) for t in getattr(statement, "targets", [])]
            for name in OVERRIDE_METHODS.intersection(names):
                self.flag(f"class {node.name} overrides {name}")
        for expression in node.bases + node.keywords + node.decorator_list:
            self.visit(expression)
        self.depth += 1
        for statement in node.body:
            self.visit(statement)
        self.depth -= 1

    def visit_Name(self, node):
        if node.id in BANNED_BUILTINS and node.id not in self.aliases:
            self.flag(BANNED_BUILTINS[node.id])
        if (
            node.id in self.forbidden
            and isinstance(node.ctx, ast.Load)
            and not self.self_test(node)
        ):
            self.flag(f"uses {node.id}, which this exercise forbids")
        if node.id == "functorch" and self.no_autograd and not self.self_test(node):
            self.flag("uses autograd (functorch), which this exercise rules out")
        path = self.aliases.get(node.id)
        if path is not None:
            self.check_path(path, node)

    def visit_Attribute(self, node):
        self.check_attribute(node.value, node.attr, ast.unparse(node), node)
        self.generic_visit(node)

    def visit_Constant(self, node):
        # getattr(sys, "_getframe"), globals()["layernorm_backward"] and the like.
        if isinstance(node.value, str):
            value = node.value
            if value in BANNED_ATTRIBUTES:
                self.flag(BANNED_ATTRIBUTES[value])
            elif value in BANNED_BUILTINS and value.startswith(("_", "get_")):
                self.flag(BANNED_BUILTINS[value])
            if value in self.forbidden and not self.self_test(node):
                self.flag(f"uses {value}, which this exercise forbids")
            if SYSTEM_PATH.search(value):
                self.flag(f"names a file path ({value[:40]!r})")

    def visit_Call(self, node):
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            text = ast.unparse(node)
            self.check_attribute(node.args[0], node.args[1].value, text, node)
        if (
            isinstance(func, ast.Name)
            and func.id in ("setattr", "delattr")
            and node.args
        ):
            target = node.args[0]
            path = self.path(target)
            if path is not None:
                self.flag(f"calls {func.id} on {ast.unparse(target)}, a module")
            elif isinstance(target, ast.Name) and target.id in self.handout.protected:
                self.flag(f"calls {func.id} on {target.id}, a locked cell's function")
        if isinstance(func, ast.Attribute) and func.attr in (
            "__setattr__",
            "__delattr__",
        ):
            self.flag(f"calls {ast.unparse(func)}")
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("update", "setdefault", "pop", "popitem", "clear")
            and self.namespace(func.value)
        ):
            self.flag(f"writes to {self.namespace(func.value)} ({ast.unparse(func)})")
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
            bases = node.args[1]
            for base in getattr(bases, "elts", []):
                if ast.unparse(base).split(".")[-1] in ARRAY_BASES:
                    self.flag(f"creates a subclass of {ast.unparse(base)} with type()")
        self.generic_visit(node)


def scan(source, handout, aliases, rules=(frozenset(), False)):
    tree, findings = parse(source)
    if tree is None:
        return findings
    visitor = Scan(handout, aliases, *rules)
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            visitor.parents[child] = parent
    visitor.visit(tree)
    return findings + visitor.found


def check(released, submitted, source=None):
    """The problems found in one submission, as sentences; [] if none."""
    handout = released if isinstance(released, Handout) else Handout(released, source)
    problems = []
    aliases = {}
    for cell in submitted.cells:  # every import of the notebook, whichever cell
        if cell.cell_type == "code":
            tree = parse(cell.source)[0]
            if tree is not None:
                aliases.update(imports_of(tree))
    seen, counts = {}, {}
    for index, cell in enumerate(submitted.cells):
        meta = grading(cell)
        grade_id = meta.get("grade_id")
        if grade_id in handout.ids:
            seen[grade_id] = cell
            counts[grade_id] = counts.get(grade_id, 0) + 1
        if cell.cell_type != "code" or grade_id in handout.locked:
            continue  # locked cells are compared with the hand-out below
        if grade_id in handout.solutions:
            rules = handout.rules.get(grade_id, (set(), False))
            for finding in scan(cell.source, handout, aliases, rules):
                problems.append(f"solution cell {grade_id}: {finding}")
        elif cell.source.strip() not in handout.sources:
            label = f"added cell {index + 1}"
            if cell.get("id"):
                label += f" (id {cell.id})"
            for finding in scan(cell.source, handout, aliases):
                problems.append(f"{label}: {finding}")
    for grade_id, count in counts.items():
        if count > 1:
            problems.append(f"cell {grade_id} appears {count} times")
    for grade_id in handout.code_solutions:
        if grade_id not in seen:
            problems.append(
                f"solution cell {grade_id} was deleted or lost its nbgrader metadata"
            )
    for grade_id, original in handout.locked.items():
        cell = seen.get(grade_id)
        if cell is None:
            problems.append(f"locked cell {grade_id} was deleted")
            continue
        meta, before = grading(cell), grading(original)
        if before.get("grade") and not meta.get("grade"):
            problems.append(f"grade cell {grade_id} lost its grading metadata")
        if meta.get("points") != before.get("points"):
            problems.append(f"grade cell {grade_id} has different points")
        for key in ("locked", "solution"):
            if bool(meta.get(key)) != bool(before.get(key)):
                problems.append(f"locked cell {grade_id} changed its nbgrader {key}")
        if cell.cell_type != original.cell_type:
            problems.append(f"locked cell {grade_id} became a {cell.cell_type} cell")
        if cell.source.strip() != original.source.strip():
            problems.append(f"locked cell {grade_id} was edited")
    return problems


def zeroes(finding):
    return any(word in finding for word in ZEROING)


def exercise_findings(source, solutions):
    """{solution grade_id: findings} for the solution cells `solutions` ({grade_id:
    cell}), judged against the instructor notebook `source`."""
    handout = Handout(source, source)
    aliases = {}
    for cell in [*source.cells, *solutions.values()]:
        if cell.cell_type == "code":
            tree = parse(cell.source)[0]
            if tree is not None:
                aliases.update(imports_of(tree))
    found = {}
    for grade_id, cell in solutions.items():
        if cell.cell_type == "code" and grade_id in handout.rules:
            findings = scan(cell.source, handout, aliases, handout.rules[grade_id])
            if findings:
                found[grade_id] = findings
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", help="the instructor notebook (hidden tests)")
    parser.add_argument("released", help="the student hand-out")
    parser.add_argument("submitted", nargs="+", help="submitted notebooks")
    args = parser.parse_args(argv)
    source = args.source and nbformat.read(args.source, as_version=4)
    handout = Handout(nbformat.read(args.released, as_version=4), source)
    flagged = 0
    for path in args.submitted:
        problems = check(handout, nbformat.read(path, as_version=4))
        flagged += bool(problems)
        print(f"{path}: {'FLAGGED' if problems else 'ok'}")
        for problem in problems:
            print(f"  - {problem}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
