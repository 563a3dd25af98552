"""The grader's sandbox (grading/sandbox.py) against the attacks of
tests/submissions/escapes.py. Each attack runs in the student's process twice: without
the sandbox, where it must work (else its check could never fail), and in it, where it
must fail and leave no trace on this machine. The resource hogs stop at their limits,
the sandbox dies with the grader, and whole submissions keep the points their honest
exercises earn. Without the sandbox there is no grading."""

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, read_notebook

from grading import sandbox as grading_sandbox
from grading.channel import WireTimeout
from grading.grade import Child, grade_in_process

ESCAPES = {}
exec((ROOT / "tests" / "submissions" / "escapes.py").read_text(), ESCAPES)

pytestmark = pytest.mark.grading  # the grader, in and out of its sandbox

MODES = ["sandbox", "unsafe"]
CHAPTER = ROOT / "notebooks" / "01-why-normalize.ipynb"


def token():
    return "zz" + secrets.token_hex(6)


def marker():
    """An argument for sleep that no other process has: `sleep 600.NNN`."""
    return f"600.{secrets.randbelow(10**9)}"


def processes(text):
    """The pids of the processes whose command line contains `text`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if text.encode() in file.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def gone(text, seconds=10):
    """Whether every process with `text` in its command line ends within `seconds`."""
    deadline = time.monotonic() + seconds
    while processes(text) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not processes(text)


def kill(text):
    for pid in processes(text):
        os.kill(pid, 9)


class Listener:
    """Accepts connections on 127.0.0.1 (TCP) and on an abstract unix socket, and
    keeps what each one sends."""

    def __init__(self, name):
        self.received = {"tcp": b"", "unix": b""}
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind("\0" + name)
        self.unix.listen()
        self.port = self.tcp.getsockname()[1]
        for kind, server in (("tcp", self.tcp), ("unix", self.unix)):
            threading.Thread(
                target=self.serve, args=(kind, server), daemon=True
            ).start()

    def serve(self, kind, server):
        with contextlib.suppress(OSError):  # closed
            while True:
                connection, _ = server.accept()
                with connection:
                    self.received[kind] += connection.recv(1024)

    def close(self):
        self.tcp.close()
        self.unix.close()


def held(error, what):
    """The numbers in the last line of a hog's error: `... held at N ...`."""
    line = error.strip().splitlines()[-1]
    assert f"{what} held at" in line, error
    return [int(n) for n in re.findall(r"\d+", line.split(" held at ")[1])]


def run(child, name, source):
    error = child.run(name, source)
    assert error is None, error
    return child.lookup(["got"]).get("got")


def traces(targets):
    """{trace: path}: the files the attacks leave on this machine when they work."""
    name, paths = targets["token"], sysconfig.get_paths()
    return {
        "a .pth file in site-packages": f"{paths['purelib']}/{name}.pth",
        "a module in the interpreter": f"{paths['stdlib']}/{name}.py",
        "a module in the repository": f"{ROOT}/grading/{name}.py",
        "a file in the course": f"{targets['course']}/{name}",
        "a file in /tmp": f"/tmp/{name}",
        "a file in /dev/shm": f"/dev/shm/{name}",
        "a file in /var/tmp": f"/var/tmp/{name}",
    }


@pytest.fixture(scope="module", params=MODES)
def attempts(request, tmp_path_factory):
    """Every probe of escapes.py in one student's process, then the next student's;
    returns (mode, {attack: it worked}, {trace: found on this machine})."""
    sandboxed = request.param == "sandbox"
    if sandboxed:
        request.getfixturevalue("sandbox")
    course = tmp_path_factory.mktemp("course")
    (course / "source" / "ch").mkdir(parents=True)
    secret = secrets.token_hex(8)
    (course / "source" / "ch" / "ch.ipynb").write_text(f'{{"answer": "{secret}"}}')
    targets = {
        "course": str(course),
        "secret": secret,
        "grader": os.getpid(),
        "repository": str(ROOT),
        "token": token(),
        "marker": marker(),
    }
    listener = Listener(targets["token"])
    targets["port"] = listener.port
    worked = {}
    try:
        child = Child(60, sandboxed)
        try:
            run(child, "targets", f"TARGETS = {targets!r}")
            run(child, "helpers", ESCAPES["HELPERS"])
            for attack, source in ESCAPES["PROBES"].items():
                worked[attack] = run(child, attack, source)
            run(child, "leave files", ESCAPES["LEAVE_FILES"])
            run(child, "leave a process", ESCAPES["LEAVE_A_PROCESS"])
        finally:
            child.close()
        following = Child(60, sandboxed)
        try:
            run(following, "targets", f"TARGETS = {targets!r}")
            worked["find what the last student left"] = run(
                following, "leftovers", ESCAPES["FIND_LEFTOVERS"]
            )
        finally:
            following.close()
        time.sleep(0.5)  # the listener's threads take what was sent
        found = {trace: os.path.exists(p) for trace, p in traces(targets).items()}
        found["a process"] = not gone(targets["marker"], seconds=2)
        sent = targets["token"].encode()
        found["a connection to 127.0.0.1"] = sent in listener.received["tcp"]
        found["a connection to the unix socket"] = sent in listener.received["unix"]
    finally:
        listener.close()
        kill(targets["marker"])
        for path in traces(targets).values():
            if os.path.exists(path):
                os.remove(path)
    return request.param, worked, found


def possible_here(attack):
    """Whether the attack can work without a sandbox on this machine: writing into
    the interpreter needs write access to it."""
    if attack == "write a module into the interpreter":
        return os.access(sysconfig.get_paths()["stdlib"], os.W_OK)
    return True


@pytest.mark.parametrize(
    "attack", [*ESCAPES["PROBES"], "find what the last student left"]
)
def test_attack_from_a_solution_cell(attempts, attack):
    mode, worked, _ = attempts
    if mode == "sandbox":
        assert worked[attack] is False, f"the sandbox let this through: {attack}"
    else:
        assert worked[attack] is possible_here(attack), f"the probe is broken: {attack}"


def test_nothing_is_left_on_the_machine(attempts):
    mode, _, found = attempts
    if mode == "sandbox":
        assert not any(found.values()), found
    else:  # the checks see a trace where there is one
        expected = {t: True for t in found}
        if not possible_here("write a module into the interpreter"):
            expected["a module in the interpreter"] = False
        assert found == expected


def test_a_fork_bomb_is_held_and_ends_with_the_sandbox(sandbox):
    sleeping = marker()
    child = Child(60)
    try:
        error = child.run("bomb", ESCAPES["FORK_BOMB"].replace("@MARKER@", sleeping))
        assert processes(sleeping), "the bomb's processes should run until the end"
    finally:
        child.close()
    forks = held(error, "fork bomb")[0]
    assert 0 < forks < grading_sandbox.limits(60)["nproc"], error
    assert gone(sleeping), "the bomb's processes outlived the sandbox"


def test_a_memory_hog_is_held(sandbox):
    child = Child(60)
    try:
        error = child.run("hog", ESCAPES["MEMORY_HOG"])
        assert child.run("after", "import numpy as np\nx = np.ones(1 << 20)") is None
    finally:
        child.close()
    gib = held(error, "memory hog")[0]
    assert 1 <= gib < grading_sandbox.limits(60)["data"] >> 30, error


def test_a_disk_filler_is_held(sandbox):
    child = Child(60)
    try:
        error = child.run("filler", ESCAPES["DISK_FILLER"])
    finally:
        child.close()
    largest, total = map(
        int, re.search(r"held at (\d+) MiB a file, (\d+)", error).groups()
    )
    assert largest == grading_sandbox.limits(60)["fsize"] >> 20, error
    assert total <= grading_sandbox.TMP_BYTES >> 20, error


def test_cpu_time_is_limited(sandbox):
    child = Child(60, limits={"cpu": 1})
    try:
        with pytest.raises(EOFError):
            child.run("spin", ESCAPES["CPU_SPIN"])
        assert "killed by SIG" in child.ended()
    finally:
        child.close()


def test_a_long_cell_stops_at_the_cell_timeout(sandbox):
    child = Child(2)
    try:
        start = time.monotonic()
        with pytest.raises(WireTimeout):
            child.run("spin", ESCAPES["CPU_SPIN"])
        assert time.monotonic() - start < 10
    finally:
        child.close()


DIES_WITH_THE_GRADER = """\
import sys

from grading.grade import Child, grade_in_process

child = Child(60, sandboxed=sys.argv[1] == "sandbox")
child.run("start", f"import subprocess\\nsubprocess.Popen(['sleep', '{sys.argv[2]}'], "
          "start_new_session=True)")
print("started", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("mode", MODES)
def test_the_sandbox_dies_with_the_grader(mode, request):
    if mode == "sandbox":
        request.getfixturevalue("sandbox")
    sleeping = marker()
    grader = subprocess.Popen(
        [sys.executable, "-c", DIES_WITH_THE_GRADER, mode, sleeping],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert grader.stdout.readline().strip() == "started"
        assert processes(sleeping)
        grader.kill()
        grader.wait()
        assert gone(sleeping, seconds=5) is (mode == "sandbox")
    finally:
        grader.kill()
        kill(sleeping)


# -- Whole submissions, graded as a course is ---------------------------------------


def course_with(tmp_path, replacements):
    """A course holding chapter 01 and one submission: the model answers, with the
    solution cells in `replacements` replaced."""
    source = tmp_path / "course" / "source" / CHAPTER.stem / CHAPTER.name
    submitted = tmp_path / "course" / "submitted" / "cy" / CHAPTER.stem / CHAPTER.name
    source.parent.mkdir(parents=True)
    submitted.parent.mkdir(parents=True)
    shutil.copy(CHAPTER, source)
    notebook = read_notebook(CHAPTER)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in replacements:
            cell.source = replacements[grade_id]
    nbformat.write(notebook, submitted)
    return source, submitted


def grade(tmp_path, source, submitted, *options):
    """(the grader's output, the submission's report)."""
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "grading.grade", str(source), str(submitted)]
        + ["--json", str(report), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout, json.loads(report.read_text())[str(submitted)]


def points(report):
    return {grade_id: cell["points"] for grade_id, cell in report["cells"].items()}


EX1 = {"01-ex1-leaky-relu": 1, "01-ex1-kaiming-std": 2}
EX2 = ["01-ex2-gain", "01-ex2-backward"]
EX5 = ["01-ex5-statistics", "01-ex5-diagnose"]


@pytest.mark.parametrize("mode", MODES)
def test_the_reviewers_cheat(tmp_path, mode, request):
    """The review's cheat (COURSE_READER in exercise 1) gets full marks without the
    sandbox, 0 for exercise 1 in it; the other exercises are honest."""
    if mode == "sandbox":
        request.getfixturevalue("sandbox")
    name = token()
    functions = ["leaky_relu", "kaiming_std"]
    cheat = ESCAPES["course_reader"]("01-ex1-solution", functions, name)
    source, submitted = course_with(tmp_path, {"01-ex1-solution": cheat})
    options = ["--unsafe-no-sandbox"] if mode == "unsafe" else []
    purelib = Path(sysconfig.get_paths()["purelib"])
    try:
        output, report = grade(tmp_path, source, submitted, *options)
    finally:
        left = sorted(purelib.glob(f"zz_answers_{name}_*.py"))
        for path in left:
            path.unlink()
    scores = points(report)
    if mode == "unsafe":
        assert output.splitlines()[0] == grading_sandbox.unsafe_warning()
        assert all(cell["points"] == cell["max"] for cell in report["cells"].values())
        assert left, "the cheat's module should be in site-packages"
    else:
        assert "UNSAFE" not in output
        assert {k: scores[k] for k in EX1} == dict.fromkeys(EX1, 0), report
        assert sum(scores.values()) == 11 - sum(EX1.values()), report
        assert not left
    assert any("reads or writes files" in flag for flag in report["flags"]), report


def test_hogs_keep_the_fair_partial_score(tmp_path, sandbox):
    """A memory hog in exercise 1 and a fork bomb in exercise 5: both score 0, the
    honest exercise 2 between them its 4 points, and nothing outlives the grading."""
    sleeping = marker()
    source, submitted = course_with(
        tmp_path,
        {
            "01-ex1-solution": ESCAPES["MEMORY_HOG"],
            "01-ex5-solution": ESCAPES["FORK_BOMB"].replace("@MARKER@", sleeping),
        },
    )
    try:
        _, report = grade(tmp_path, source, submitted)
        assert gone(sleeping)
    finally:
        kill(sleeping)
    assert points(report) == {
        "01-ex1-leaky-relu": 0,
        "01-ex1-kaiming-std": 0,
        "01-ex2-gain": 2,
        "01-ex2-backward": 2,
        "01-ex5-statistics": 0,
        "01-ex5-diagnose": 0,
    }, report
    notes = "\n".join(report["notes"])
    assert "memory hog held at" in notes and "fork bomb held at" in notes, notes


def test_a_failing_grader_is_reported_not_dropped(tmp_path):
    """The process that grades one submission (a fork of the fork server) fails: the
    report says why and scores nothing, and the next submission is graded."""
    source, submitted = course_with(tmp_path, {})
    failed = grade_in_process(source, submitted, None, sandboxed=False)  # no timeout
    assert failed["cells"] == {}, failed
    assert failed["notes"][0].startswith("the grader failed: TypeError"), failed
    again = grade_in_process(source, CHAPTER, 60, sandboxed=False)
    assert again["cells"] and all(
        c["points"] == c["max"] for c in again["cells"].values()
    )


def test_a_killed_student_process_is_reported(tmp_path, sandbox):
    """A solution cell that kills its own process (as a limit would): the exercises
    graded before keep their points, the rest score 0 with the reason."""
    source, submitted = course_with(
        tmp_path, {"01-ex2-solution": "import os\n\nos.kill(os.getpid(), 9)\n"}
    )
    _, report = grade(tmp_path, source, submitted)
    assert points(report) == {**EX1, **dict.fromkeys(EX5 + EX2, 0)}, report
    reason = (
        "the student's process stopped: the other process ended (killed by SIGKILL)"
    )
    assert reason in report["notes"], report
    assert all(reason in report["cells"][k]["error"] for k in EX2 + EX5), report


@pytest.mark.skipif(os.geteuid() != 0, reason="skipped: --student-uid needs root")
def test_a_student_uid_keeps_root_owned_files_out_of_reach(tmp_path):
    """Without the sandbox, as root, with a user for the student (the Dockerfile's
    way): the course in a folder only root may enter is out of its reach, and so are
    the environment and the grader. The probes use only what the runner has imported
    before it changed user, as the interpreter may be in a folder of root's."""
    course = tmp_path / "course"
    course.mkdir(mode=0o700)
    (course / "secret").write_text("the model answers")
    targets = {
        "secret": str(course / "secret"),
        "purelib": sysconfig.get_paths()["purelib"],
        "grader": os.getpid(),
    }
    probe = """\
import os

def works(attempt):
    try:
        attempt()
        return True
    except OSError:
        return False

got = {
    "uid": os.getuid(),
    "read the course": works(lambda: open(TARGETS["secret"]).read()),
    "write into the environment": works(
        lambda: open(os.path.join(TARGETS["purelib"], "zz_probe.pth"), "x").close()
    ),
    "signal the grader": works(lambda: os.kill(TARGETS["grader"], 0)),
    "write into its folder": works(lambda: open("mine", "x").close()),
}
"""
    child = Child(60, sandboxed=False, uid=65534)
    try:
        run(child, "targets", f"TARGETS = {targets!r}")
        got = run(child, "probe", probe)
    finally:
        child.close()
    assert got == {
        "uid": 65534,
        "read the course": False,
        "write into the environment": False,
        "signal the grader": False,
        "write into its folder": True,
    }


def test_no_sandbox_no_grading(tmp_path):
    """Without bwrap the grader refuses, naming what to install and the way out."""
    source, submitted = course_with(tmp_path, {})
    result = subprocess.run(
        [sys.executable, "-m", "grading.grade", str(source), str(submitted)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, PATH="/nonexistent"),
    )
    assert result.returncode != 0
    assert "bubblewrap" in result.stderr and "--unsafe-no-sandbox" in result.stderr
    assert "points" not in result.stdout
