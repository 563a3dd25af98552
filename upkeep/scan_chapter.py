"""Scan every assertion of a chapter over many seed lists (run by hand, not by the tests).

  python -m upkeep.scan_chapter NB [--windows 200] [--first 0] [--length N] [--jobs 1]
      [--json OUT]

For each window the chapter's SEEDS become `list(range(s, s + n))` (n: the length of the
chapter's own SEEDS unless --length says otherwise; windows side by side from --first)
and every code cell runs in a fresh IPython namespace, except the grade cells (they test the exercises on fixed seeds)
and the interactive figures' frames (not drawn). Every `assert` is rewritten so that it
records instead of raising, and the window runs to its end:

- `assert a < b` (or <=, >, >=, and chains such as `lo < x < hi`) records how close a
  came to b: the ratio a/b (b/a for >) when both are positive (the largest is the
  worst), else the margin b - a (a - b for >; the smallest is the worst);
- any other assert records pass or fail.

The report gives, for every assertion, the windows that failed and its worst and median
value over the windows, with the window of the worst: the numbers an assertion's
comment quotes ("scan: 200 windows of 5 seeds (0..999): worst 0.72 (SEEDS from 340)").

With --pooled N the chapter runs once, with SEEDS = 0..N-1, and the cells named by
--rerun (those that aggregate over the seeds: means, medians, standard errors) run again
on every window of n consecutive seeds, with each result array's seed axis (any axis of
length N) cut to the window. One run of N = 204 thus stands for the 200 sliding windows
of 5 when every seed's experiment is independent of the others, which the scan checks:
the first window's re-run cells must print exactly what the chapter stores. --base B
starts the seeds at B, so that two halves of a long scan run side by side (--pooled 104
and --pooled 104 --base 100: the windows from 0 to 99 and from 100 to 199).

A pooled run trains hundreds of models at once, and each step allocates tensors of many
MiB. glibc's malloc returns them to the system and faults them in again page by page,
which took half the CPU time of chapter 13's lab at --pooled 102 (as much in the kernel as
in the program). jemalloc told to keep freed memory takes almost none of it:
LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=oversize_threshold:0,dirty_decay_ms:-1,
muzzy_decay_ms:-1 (no spaces; 7.7 GB resident for that run).

upkeep/scan_seeds.py scans one cell, with any expression reported.
"""

import argparse
import ast
import concurrent.futures
import contextlib
import io
import json
import operator
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
import numpy as np

from upkeep.scan_seeds import run_cells
from upkeep.variant import defaults

OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def comparison(test):
    """The chain of <, <=, >, >= that `test` checks, elementwise under `np.all(...)`
    or `(...).all()`, or None."""
    call = isinstance(test, ast.Call) and not test.keywords
    if call and len(test.args) == 1 and ast.unparse(test.func) in ("np.all", "all"):
        test = test.args[0]
    elif call and not test.args and ast.unparse(test.func).endswith(".all"):
        test = test.func.value
    if isinstance(test, ast.Compare) and all(type(op) in OPS for op in test.ops):
        return test
    return None


def conjuncts(test):
    """The parts of `a and b` and of `np.all((a) & (b))`, each checked on its own."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in conjuncts(value)]
    if (
        isinstance(test, ast.Call)
        and ast.unparse(test.func) == "np.all"
        and len(test.args) == 1
        and isinstance(test.args[0], ast.BinOp)
        and isinstance(test.args[0].op, ast.BitAnd)
        and comparison(test.args[0].left)
        and comparison(test.args[0].right)
    ):
        return [test.args[0].left, test.args[0].right]
    return [test]


class Probe(ast.NodeTransformer):
    """Rewrite each `assert a and b` as `assert _probe_(site, ...) and _probe_(...)`:
    each part records and returns True. Sites are numbered in the order they are met,
    one per part."""

    def __init__(self, cell, sites):
        self.cell, self.sites = cell, sites

    def visit_Assert(self, node):
        calls = []
        for part in conjuncts(node.test):
            site = len(self.sites)
            self.sites.append((self.cell, node.lineno, ast.unparse(part)))
            test = comparison(part)
            if test is None:
                args = [ast.Constant(site), part]
            else:
                values = ast.List([test.left, *test.comparators], ast.Load())
                ops = [ast.Constant(OPS[type(op)]) for op in test.ops]
                args = [ast.Constant(site), values, ast.List(ops, ast.Load())]
            calls.append(ast.Call(ast.Name("_probe_", ast.Load()), args, []))
        node.test = calls[0] if len(calls) == 1 else ast.BoolOp(ast.And(), calls)
        return node


def probe_source(shell, source, cell, sites):
    python = shell.transform_cell(source)
    tree = Probe(cell, sites).visit(ast.parse(python))
    return ast.unparse(ast.fix_missing_locations(tree))


def measure(values, ops):
    """The worst of each comparison in a chain, elementwise for arrays: (passed,
    (kind, badness)), where kind is "ratio" (a/b toward failure, < 1 passes) or, where
    an operand is not positive, "margin" (b - a, > 0 passes), and badness grows toward
    failure: the largest ratio, or minus the smallest margin. Ratios sort after
    margins."""
    passed, worst = True, None
    for a, op, b in zip(values, ops, values[1:]):
        a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
        if op in (">", ">="):
            a, b = b, a
        passed &= bool(np.all((a < b) | ((a == b) & (op in ("<=", ">=")))))
        if a.size == 0:
            continue
        if (a > 0).all() and (b > 0).all():
            bad = ("ratio", float((a / b).max()))
        else:
            bad = ("margin", float((a - b).max()))
        if worst is None or bad > worst:
            worst = bad
    return passed, worst


def shown(kind, badness):
    """What a report prints: the ratio, or the margin."""
    return badness if kind == "ratio" else -badness


def chapter_sources(shell, path, sites):
    """(kind, python, cell index) for every code cell that a scan runs, asserts
    rewritten."""
    cells, sources = nbformat.read(path, as_version=4).cells, []
    for k, cell in enumerate(cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        tags = cell.metadata.get("tags", [])
        kind = "parameters" if "parameters" in tags else ""
        sources.append((kind, probe_source(shell, cell.source, k, sites), k))
        if "sync:figures" in tags:  # no pictures: only the figures' numbers matter
            quiet = "def interactive_figure(*args, **kwargs):\n    pass\n\n\n"
            quiet += "def show_figure(fig):\n    pass"
            sources.append(("", quiet, k))
    return sources


def make_probe(records):
    """The `_probe_` that rewritten asserts call: records {site: [passed, worst]}."""

    def probe(site, values, ops=None):
        try:
            passed, worst = (
                (bool(values), None) if ops is None else measure(values, ops)
            )
        except (TypeError, ValueError, RuntimeError):  # pass or fail only
            passed, worst = bool(eval_chain(values, ops)), None
        seen = records.setdefault(site, [True, None])
        seen[0] &= passed
        if worst is not None and (seen[1] is None or worst > seen[1]):
            seen[1] = worst
        return True

    return probe


def run_chapter(path, seeds):
    """Run the chapter once with SEEDS = seeds. Returns the shell, the assert sites,
    {site: [passed, worst]}, the errors of the cells that raised and the sources."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    sites, records, raised = [], {}, []
    sources = chapter_sources(shell, path, sites)
    shell.user_ns["_probe_"] = make_probe(records)
    for result in run_cells(shell, [source[:2] for source in sources], seeds):
        if not result.success:
            error = result.error_before_exec or result.error_in_exec
            raised.append(f"{type(error).__name__}: {str(error)[:120]}")
        shell.run_cell("import matplotlib.pyplot as _plt\n_plt.close('all')")
    return shell, sites, records, raised, sources


def run_window(path, seeds):
    return run_chapter(path, seeds)[1:4]


def seed_slice(value, n, first, length):
    """`value` with every axis of length n (the seed axis of a pooled run) cut to
    first:first + length (NumPy arrays and torch tensors); dicts, lists and tuples
    are cut inside."""
    if isinstance(value, np.ndarray) or type(value).__name__ == "Tensor":
        index = tuple(
            slice(first, first + length) if size == n else slice(None)
            for size in value.shape
        )
        return value[index]
    if isinstance(value, dict):
        return {k: seed_slice(v, n, first, length) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and len(value) == n:
        return type(value)(value[first : first + length])
    if isinstance(value, (list, tuple)):
        parts = [seed_slice(v, n, first, length) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else type(value)(parts)
    return value


def stored_text(cell):
    return "".join(
        out.get("text", "")
        for out in cell.get("outputs", [])
        if out.get("name") == "stdout"
    )


def scan_pooled(path, n, length, rerun, base=0):
    """Run the chapter once with SEEDS = base..base+n-1, then re-run the cells `rerun`
    on every window of `length` consecutive seeds, with each result cut to the window.

    The one run checks every per-seed assertion ("in every seed") for all n - length
    + 1 windows at once; the re-run cells recompute what a window aggregates (means,
    medians, standard errors) from the pooled per-seed results. This holds when each
    seed's result does not depend on the other seeds, which is checked: the first
    window's re-run cells must print exactly what the chapter stores (checked where
    base is 0). Returns the scan's results (the pooled run first) and the cells whose
    print differed."""
    shell, sites, pooled, raised, sources = run_chapter(
        path, list(range(base, base + n))
    )
    probed = {k: python for _, python, k in sources if k in rerun}
    snapshot = {k: v for k, v in shell.user_ns.items() if not k.startswith("_")}
    cells = nbformat.read(path, as_version=4).cells
    results, mismatches = [(f"pooled {n}", sites, pooled, raised)], []
    for first in range(n - length + 1):
        records, errors = {}, []
        shell.user_ns.update(
            {k: seed_slice(v, n, first, length) for k, v in snapshot.items()}
        )
        window = list(range(base + first, base + first + length))
        shell.user_ns.update(SEEDS=window, RUN_SEEDS=window)
        shell.user_ns["_probe_"] = make_probe(records)
        for k in rerun:
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                result = shell.run_cell(probed[k], silent=True, store_history=False)
            if not result.success:
                error = result.error_before_exec or result.error_in_exec
                errors.append(f"cell {k}: {type(error).__name__}: {str(error)[:100]}")
            elif base + first == 0 and printed.getvalue() != stored_text(cells[k]):
                mismatches.append((k, printed.getvalue(), stored_text(cells[k])))
            shell.run_cell("import matplotlib.pyplot as _plt\n_plt.close('all')")
        results.append((base + first, sites, records, errors))
    return results, mismatches


def eval_chain(values, ops):
    """A chain of comparisons of arrays (NumPy or torch): true where every element
    satisfies it."""
    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
    results = [compare[op](a, b) for a, op, b in zip(values, ops, values[1:])]
    return all(bool(r.all()) if hasattr(r, "all") else bool(r) for r in results)


def scan(path, firsts, length):
    out = []
    for first in firsts:
        sites, records, raised = run_window(path, list(range(first, first + length)))
        out.append((first, sites, records, raised))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--windows", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--length", type=int, help="seeds per window")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="also write the per-window results here")
    parser.add_argument(
        "--pooled", type=int, metavar="N", help="one run of seeds 0..N-1 (see below)"
    )
    parser.add_argument(
        "--base", type=int, default=0, help="with --pooled: the first seed (default 0)"
    )
    parser.add_argument(
        "--rerun", default="", help="with --pooled: cells re-run per window, e.g. 26,39"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")

    path = Path(args.notebook)
    length = args.length or len(defaults(path)["SEEDS"])
    start = time.perf_counter()
    if args.pooled:
        rerun = [int(k) for k in args.rerun.split(",") if k]
        results, mismatches = scan_pooled(path, args.pooled, length, rerun, args.base)
        pooled = results[0]
        for k, printed, stored in mismatches:
            print(f"cell {k}: window 0 printed what the chapter does not store:")
            print(f"  printed:\n{printed}\n  stored:\n{stored}")
        rerun_sites = {i for i, site in enumerate(pooled[1]) if site[0] in rerun}
        for site in rerun_sites:
            pooled[2].pop(site, None)
        print(
            f"{path.name}: one run of seeds {args.base}.."
            f"{args.base + args.pooled - 1}; cells {rerun} re-run "
            f"on {args.pooled - length + 1} windows of {length}, "
            f"{time.perf_counter() - start:.0f} s"
        )
    else:
        firsts = [args.first + w * length for w in range(args.windows)]
        results = []
        batches = [firsts[j :: args.jobs] for j in range(args.jobs)]
        with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
            for batch in pool.map(
                scan, [path] * args.jobs, batches, [length] * args.jobs
            ):
                results += batch
        results.sort()
        last = firsts[-1] + length - 1
        print(
            f"{path.name}: {len(firsts)} windows of {length} seeds "
            f"({args.first}..{last}), {time.perf_counter() - start:.0f} s"
        )
    sites = results[0][1]
    for first, _, _, raised in results:
        for error in raised:
            print(f"  SEEDS from {first}: a cell raised {error}")
    summary = []
    for site, (cell, line, text) in enumerate(sites):
        hits = [(first, rec[site]) for first, _, rec, _ in results if site in rec]
        failed = [first for first, (passed, _) in hits if not passed]
        worst = [(w, first) for first, (_, w) in hits if w is not None]
        row = {"cell": cell, "line": line, "assert": text, "windows": len(hits)}
        row["failed"] = failed
        note = f"{len(failed)} failed" + (
            f" (SEEDS from {failed[:5]})" if failed else ""
        )
        if worst:
            (kind, bad), first = max(worst)
            value = shown(kind, bad)
            median = statistics.median(shown(*w) for w, _ in worst if w[0] == kind)
            row.update(kind=kind, worst=value, worst_from=first, median=median)
            note += (
                f"; {kind} worst {value:.3g} (SEEDS from {first}), median {median:.3g}"
            )
        summary.append(row)
        print(f"cell {cell} line {line}: {text[:70]}\n    {len(hits)} windows, {note}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    failed = any(row["failed"] for row in summary)
    return 1 if failed or (args.pooled and mismatches) else 0


if __name__ == "__main__":
    sys.exit(main())
