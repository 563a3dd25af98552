"""Autograde submissions with checks that the student's code cannot reach.

Usage (from the book's root):
  python -m grading.grade SOURCE.ipynb SUBMITTED.ipynb [...]     print each score
  python -m grading.grade --course DIR ASSIGNMENT [--jobs N]      grade an nbgrader course:
      DIR/source/ASSIGNMENT/*.ipynb against DIR/submitted/*/ASSIGNMENT/, scores written
      to DIR/gradebook.db (per grade cell, as `nbgrader autograde` would) and each
      notebook, with its results and the mark schemes, to DIR/autograded/ for formgrader
Options: --cell-timeout S (seconds per cell, default 120), --json FILE (the reports),
--student NAME (with --course: that student only), --unsafe-no-sandbox (no sandbox:
only inside a container, which then is the sandbox; the report's first line says what
that exposes), --student-uid N (with it, as root: run the student's code as user N).

How a submission is graded. Only the student's solution cells are taken, by nbgrader
cell id; they run with the lecture cells of SOURCE (the instructor notebook) that they
depend on (by the names they read) in a fresh child process (grading/runner.py) in a
sandbox of its own (grading/sandbox.py: bubblewrap; it sees a read-only Python
environment and an empty throw-away folder, not the course, this process, the network or
other students), with a time limit per cell and resource limits; no sandbox, no grading.
Added cells and edited lecture cells are reported, never run. The grade cells of SOURCE,
hidden tests included, run here, in this process, after the lecture cells they depend
on, with the grader's own copy of the harness (normbook/grading.py; the notebook's
harness cell is not run here): they compute their references themselves and call the
student's functions through a wire that carries plain data only (grading/channel.py), so
the student's code cannot read the expected values off the call stack, patch the modules
the checks use, or hand back an ndarray that lies. What an exercise forbids (the names
in its grade cells' `_call_without(...)`, and autograd) is unavailable in the child
during each call and is also looked for in the solution code (grading/scan.py): a
solution that names it, or reaches around the checks (frames, builtins, sys.modules,
IPython hooks, dynamic code), scores 0 for that exercise; other findings (a patched
np.allclose, a file read) cannot reach the checks and are only reported. A grade cell
scores its points when it runs to the end; what it prints, on stdout or stderr, never
counts. Nothing is dropped: a submission that cannot be read, times out, crashes, breaks
the wire or is killed at a limit is reported with the reason and its points are 0 from
there on.
"""

import argparse
import concurrent.futures
import contextlib
import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from grading import sandbox
from grading.channel import Channel, Remote, RemoteError, WireTimeout, compile_cell
from grading.scan import exercise_findings, zeroes
from upkeep.cells import ROOT, cells_needed, grading, top_level_names

HARNESS = "sync:grading"  # the tag of a chapter's harness cell
# The tag of the cells that show the grader the model answer and mark scheme under each
# written answer (autograded/, for formgrader); grading/feedback.py keeps them from
# the students.
GRADER_NOTE = "for-the-grader"


class Child:
    """The student's process, spoken to over pipes: a fresh Python in a sandbox of its
    own (grading/sandbox.py) or, unsafe, in an empty throw-away folder, as the grader's
    user or as `uid` (the grader being root). `limits` replaces sandbox.limits (the
    tests use small ones)."""

    def __init__(self, cell_timeout, sandboxed=True, limits=None, uid=None):
        if sandboxed:
            uid = sandbox.student_uid()
        if limits is None:
            limits = sandbox.limits(cell_timeout, sandboxed or uid is not None)
        runner = [sys.executable, "-s", "-P", "-m", "grading.runner"]
        runner += ["--limits", json.dumps(limits)]
        runner += [] if uid is None else ["--uid", str(uid)]
        self.sandboxed, self.folder = sandboxed, None
        if sandboxed:
            argv, cwd, env = sandbox.command(runner), "/", sandbox.environment()
        else:
            self.folder = tempfile.TemporaryDirectory()
            if uid is not None:
                os.chown(self.folder.name, uid, uid)
            argv, cwd = runner, self.folder.name
            env = sandbox.environment(self.folder.name)
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.channel = Channel(
            self.process.stdout.fileno(), self.process.stdin.fileno()
        )
        self.timeout = cell_timeout

    def request(self, header, expected):
        reply, blobs = self.channel.request(header, timeout=self.timeout)
        if reply.get("op") != expected:  # two processes on the wire, or a forged one
            raise EOFError(f"the student's process answered {reply.get('op')!r}")
        return reply, blobs

    def run(self, name, source):
        reply, _ = self.request({"op": "exec", "name": name, "source": source}, "done")
        return reply.get("error")

    def lookup(self, names):
        reply, blobs = self.request({"op": "lookup", "names": names}, "values")
        return {n: self.channel.decode(v, blobs) for n, v in reply["values"].items()}

    def block(self, forbidden, autograd):
        header = {"op": "block", "forbidden": forbidden, "autograd": autograd}
        self.request(header, "done")

    def ended(self):
        """How the student's process ended, for the report."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it did not end"
        # bwrap reports a sandboxed process killed by signal N as 128 + N
        number = -code if code < 0 else code - 128 if self.sandboxed else 0
        if number > 0:
            try:
                return f"killed by {signal.Signals(number).name}"
            except ValueError:
                pass
        return f"exit status {code}"

    def close(self):
        with contextlib.suppress(OSError):
            self.channel.send({"op": "quit"})
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()  # the sandbox goes with it (--die-with-parent)
            self.process.wait()
        if self.folder is not None:
            self.folder.cleanup()


class Grader:
    """Runs SOURCE's lecture and grade cells here, the submission's solutions in a Child."""

    def __init__(self, source, submission, cell_timeout, sandboxed=True, uid=None):
        self.source, self.submission = source, submission
        self.cell_timeout, self.sandboxed, self.uid = cell_timeout, sandboxed, uid
        self.namespace = {"__name__": "__main__"}
        self.child = None
        self.blocked = ([], False)  # what the student's process rules out in a call
        # The harness is the grader's own, not the notebook's harness cell; its
        # _call_without rules things out in the student's process, where the call runs.
        harness = ROOT / "normbook" / "grading.py"
        exec(compile(harness.read_text(), str(harness), "exec"), self.namespace)
        self.namespace["_call_without"] = self.call_without

    def call_without(self, forbidden, function, *args, **kwargs):
        self.blocked = (list(forbidden), True)
        try:
            return function(*args, **kwargs)
        finally:
            self.blocked = ([], False)

    def bind(self, names):
        """Bind the student's names here: functions as stand-ins, data as plain data."""
        for name, value in self.child.lookup(names).items():
            self.namespace[name] = value

    def run_here(self, source, name):
        code = compile_cell(source, name)
        with (
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            exec(code, self.namespace)

    def grade(self):
        report = {"cells": {}, "notes": [], "flags": []}
        solutions = {
            grading(c)["grade_id"]: c
            for c in self.submission.cells
            if grading(c).get("solution") and grading(c).get("grade_id")
        }
        released = {c.source.strip() for c in self.source.cells}
        for k, cell in enumerate(self.submission.cells):
            if grading(cell).get("grade_id"):
                continue  # solutions are run; locked cells come from SOURCE
            if cell.cell_type == "code" and cell.source.strip() not in released:
                report["notes"].append(
                    f"cell {k}: added or edited lecture cell, not run"
                )
        zeroed = {}
        for grade_id, findings in exercise_findings(self.source, solutions).items():
            report["flags"] += [f"{grade_id}: {finding}" for finding in findings]
            reasons = [f for f in findings if zeroes(f)]
            if reasons:
                group = grade_id_group(self.source, grade_id)
                zeroed.update(dict.fromkeys(group, reasons))
        cells = self.source.cells
        sources = [
            solutions[grading(c)["grade_id"]].source
            if grading(c).get("solution") and grading(c)["grade_id"] in solutions
            else c.source
            for c in cells
        ]
        here = cells_needed(cells, sources, "grader")
        there = cells_needed(cells, sources, "student")
        self.child = Child(self.cell_timeout, self.sandboxed, uid=self.uid)
        Remote.timeout = self.cell_timeout
        Remote.before_call = lambda: self.child.block(*self.blocked)
        try:
            for k, cell in enumerate(self.source.cells):
                if cell.cell_type != "code":
                    continue
                meta, name = grading(cell), f"cell {k}"
                if meta.get("grade"):
                    report["cells"][meta["grade_id"]] = self.grade_cell(
                        cell, zeroed.get(meta["grade_id"])
                    )
                elif meta.get("solution"):
                    mine = solutions.get(meta["grade_id"])
                    source = mine.source if mine is not None else ""
                    if mine is None:
                        report["notes"].append(f"{meta['grade_id']}: missing")
                    error = self.child.run(meta["grade_id"], source)
                    if error:
                        report["notes"].append(
                            f"{meta['grade_id']}: {error.strip().splitlines()[-1]}"
                        )
                    self.bind(top_level_names(source))
                else:
                    mine = k in here and HARNESS not in cell.metadata.get("tags", [])
                    self.run_lecture_cell(cell, name, mine, k in there, report["notes"])
        except (WireTimeout, EOFError) as error:
            failure = f"the student's process stopped: {error}"
            if isinstance(error, EOFError):
                failure += f" ({self.child.ended()})"
            report["notes"].append(failure)
            for cell in self.source.cells:
                meta = grading(cell)
                if meta.get("grade") and cell.cell_type == "code":
                    report["cells"].setdefault(
                        meta["grade_id"], self.grade_cell(cell, [failure])
                    )
        finally:
            self.child.close()
        return report

    def run_lecture_cell(self, cell, name, here, there, notes):
        if here:
            try:
                self.run_here(cell.source, name)
            except Exception as error:  # as in a notebook: the next cells still run
                notes.append(f"{name} failed here: {type(error).__name__}: {error}")
        if there and self.child.run(name, cell.source):
            notes.append(f"{name} (lecture) failed in the student's process")

    def grade_cell(self, cell, zero_reasons):
        meta = grading(cell)
        result = {"points": 0, "max": meta.get("points", 0)}
        if zero_reasons:
            result["error"] = "; ".join(
                [zero_reasons] if isinstance(zero_reasons, str) else zero_reasons
            )
            return result
        try:
            self.run_here(cell.source, meta["grade_id"])
            result["points"] = result["max"]
        except AssertionError as error:
            result["error"] = f"AssertionError: {error}"[:500]
        except (WireTimeout, EOFError):
            raise
        except (RemoteError, Exception) as error:
            result["error"] = f"{type(error).__name__}: {error}"[:500]
        return result


def grade_id_group(source, solution_id):
    """The grade cells that test the solution cell `solution_id` (until the next one)."""
    ids, inside = [], False
    for cell in source.cells:
        meta = grading(cell)
        if meta.get("solution") and cell.cell_type == "code":
            inside = meta.get("grade_id") == solution_id
        elif inside and meta.get("grade") and cell.cell_type == "code":
            ids.append(meta["grade_id"])
    return ids


def grade_one(source_path, submission_path, cell_timeout, sandboxed=True, uid=None):
    """The report of one submission (run in its own process by `main`)."""
    start = time.perf_counter()
    try:
        source = nbformat.read(source_path, as_version=4)
        submission = nbformat.read(submission_path, as_version=4)
    except Exception as error:  # unreadable JSON, not a notebook
        return {
            "cells": {},
            "notes": [f"cannot read: {error}"],
            "flags": [],
            "error": True,
        }
    report = Grader(source, submission, cell_timeout, sandboxed, uid).grade()
    report["seconds"] = round(time.perf_counter() - start, 1)
    return report


# Each submission is graded in a process of its own: a fork of multiprocessing's fork
# server, which loads the grader and what the checks import once, and never runs a
# submission itself (a fresh interpreter per student cost 2-3 s of imports).
FORK_SERVER = multiprocessing.get_context("forkserver")
# (Not grading.grade itself: a fork re-runs the main module, `python -m grading.grade`,
# and runpy warns when that module is loaded already.)
FORK_SERVER.set_forkserver_preload(
    ["nbformat", "numpy", "torch", "grading.channel", "grading.scan", "grading.sandbox"]
)


def grade_in_process(
    source_path, submission_path, cell_timeout, sandboxed=True, uid=None
):
    """Grade in a fresh process, so no state passes from one student to the next
    (`sandboxed`, `uid`: as --unsafe-no-sandbox and --student-uid give them to `main`).
    A grading process that dies is reported, not dropped."""
    receiving, sending = FORK_SERVER.Pipe(duplex=False)
    paths = [str(Path(p).resolve()) for p in (source_path, submission_path)]
    process = FORK_SERVER.Process(
        target=report_to, args=(sending, *paths, cell_timeout, sandboxed, uid)
    )
    process.start()
    sending.close()
    try:
        report = receiving.recv()
    except EOFError:
        report = None
    process.join()
    receiving.close()
    if report is None:
        report = failed(f"its process ended with code {process.exitcode}")
    return report


def report_to(connection, *args):
    """grade_one(*args), sent back over `connection` (in the forked process)."""
    try:
        report = grade_one(*args)
    except Exception as error:  # reported, as a crash of the process would be
        report = failed(f"{type(error).__name__}: {error}")
    connection.send(report)
    connection.close()


def failed(reason):
    """The report of a submission whose grading process failed: no points, the reason."""
    return {"cells": {}, "notes": [f"the grader failed: {reason}"], "flags": []}


def score(report):
    got = sum(c["points"] for c in report["cells"].values())
    return got, sum(c["max"] for c in report["cells"].values())


def print_report(name, report):
    got, total = score(report)
    print(f"{name}: {got:g} / {total:g} points ({report.get('seconds', '?')} s)")
    for grade_id, cell in report["cells"].items():
        if cell.get("error"):
            print(f"  - {grade_id}: 0 / {cell['max']:g}: {cell['error'][:200]}")
    for line in report["flags"]:
        print(f"  ! flagged: {line}")
    for line in report["notes"]:
        print(f"  . {line}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--course", type=Path)
    parser.add_argument("--cell-timeout", type=float, default=120.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the students' code without a sandbox: only inside a container",
    )
    parser.add_argument(
        "--student-uid",
        type=int,
        help="with --unsafe-no-sandbox, as root: the user the students' code runs as",
    )
    parser.add_argument("--student", help="with --course: grade this student only")
    args = parser.parse_args(argv)
    sandboxed, uid = not args.unsafe_no_sandbox, args.student_uid
    if uid is not None and (sandboxed or os.geteuid() != 0):
        parser.error("--student-uid needs --unsafe-no-sandbox and root")
    if sandboxed and (reason := sandbox.unavailable()):
        raise SystemExit(
            f"grade: no grading without a sandbox: {reason}. (--unsafe-no-sandbox "
            "grades without one, inside a container.)"
        )
    if not sandboxed:
        print(sandbox.unsafe_warning(uid), flush=True)
    if args.course:
        jobs = course_jobs(args.course, args.paths[0], args.student)
    elif args.student:
        parser.error("--student needs --course")
    else:
        if len(args.paths) < 2:
            parser.error("give SOURCE.ipynb and at least one SUBMITTED.ipynb")
        source = Path(args.paths[0])
        jobs = [(p, source, Path(p)) for p in args.paths[1:]]
    reports = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            pool.submit(
                grade_in_process, source, path, args.cell_timeout, sandboxed, uid
            ): key
            for key, source, path in jobs
        }
        for future in concurrent.futures.as_completed(futures):
            key = futures[future]
            reports[str(key)] = future.result()
            print_report(str(key), reports[str(key)])
    if args.course:
        record(args.course, args.paths[0], jobs, reports)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    return 0


def course_jobs(course, assignment, student=None):
    """(key, source, submission) for every notebook under submitted/*/ASSIGNMENT/ (of
    `student` only, if given)."""
    sources = sorted((course / "source" / assignment).glob("*.ipynb"))
    if not sources:
        raise SystemExit(f"grade: no notebook in {course / 'source' / assignment}")
    jobs = []
    for folder in sorted((course / "submitted").glob(f"{student or '*'}/{assignment}")):
        student = folder.parent.name
        for source in sources:
            path = folder / source.name
            jobs.append((f"{student}/{source.name}", source, path))
    if student and not jobs:
        raise SystemExit(f"grade: no folder submitted/{student}/{assignment}")
    return jobs


def record(course, assignment, jobs, reports):
    """Scores into nbgrader's gradebook; the graded notebooks, with mark schemes beside
    the written answers, into autograded/ where formgrader shows them."""
    from nbgrader.api import Gradebook
    from nbgrader.utils import parse_utc

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for key, source, path in jobs:
            student, report = path.parent.parent.name, reports[str(key)]
            gradebook.update_or_create_student(student)
            stamp = path.parent / "timestamp.txt"  # written by grading/collect.py
            when = {"timestamp": parse_utc(stamp.read_text())} if stamp.exists() else {}
            gradebook.update_or_create_submission(assignment, student, **when)
            for grade_id, cell in report["cells"].items():
                grade = gradebook.find_grade(grade_id, source.stem, assignment, student)
                grade.auto_score = cell["points"]
                # As nbgrader's autograde: a grade given by hand before is reviewed.
                grade.needs_manual_grade = grade.manual_score is not None
            gradebook.db.commit()
            out = course / "autograded" / student / assignment / source.name
            out.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                nbformat.write(for_the_grader(source, path, report), out)


def for_the_grader(source_path, submission_path, report):
    """The submission with each grade cell's result as its output and, under each
    written answer, the model answer and mark scheme from the instructor notebook."""
    source = nbformat.read(source_path, as_version=4)
    submission = nbformat.read(submission_path, as_version=4)
    schemes = {
        grading(c)["grade_id"]: c.source
        for c in source.cells
        if c.cell_type == "markdown" and grading(c).get("solution")
    }
    cells = []
    for cell in submission.cells:
        meta = grading(cell)
        result = report["cells"].get(meta.get("grade_id"))
        if result is not None and cell.cell_type == "code":
            text = result.get("error") or "all tests passed"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        cells.append(cell)
        if cell.cell_type == "markdown" and meta.get("grade_id") in schemes:
            cells.append(
                nbformat.v4.new_markdown_cell(
                    "**For the grader: model answer and mark scheme**\n\n"
                    + schemes[meta["grade_id"]],
                    metadata={"tags": [GRADER_NOTE]},
                )
            )
    submission.cells = cells
    return submission


if __name__ == "__main__":
    sys.exit(main())
