"""Attacks on the machine that grades, from a solution cell: the grader's sandbox
(grading/sandbox.py) must stop each. tests/test_sandbox.py runs them, in the sandbox and
without it (where each must work, or the test could not fail); tests/test_instructors.py
hands COURSE_READER in for every coding exercise of every chapter.

Placeholders, replaced by the tests: @TOKEN@ (a name of this run's, to find what an
attack left), @MARKER@ (a number of this run's: the processes an attack starts run
`sleep @MARKER@`); `course_reader` fills COURSE_READER in. PROBES read their targets
from a dict TARGETS that the test defines first in the student's process.
"""

# The reviewer's cheat: the grader's own process names the course's notebooks on its
# command line; read the instructor's one, put this cell's model answer into a module of
# the environment, and bring it in with a plain import (no exec, no importlib). Without
# a sandbox it scores full marks.
COURSE_READER = """\
import json
import os
import sysconfig


def _course_notebooks():
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                words = file.read().decode().split("\\0")
        except (OSError, ValueError):
            continue
        yield from (w for w in words if w.endswith(".ipynb") and "/source/" in w)


_answer = None
for _path in _course_notebooks():
    with open(_path) as _file:
        for _cell in json.load(_file)["cells"]:
            if _cell["metadata"].get("nbgrader", {}).get("grade_id") == "@GRADE_ID@":
                _answer = "".join(_cell["source"])
if _answer is None:
    raise RuntimeError("no course found")
# The model answer reads the chapter's names: a module hands it this notebook's.
_folder = sysconfig.get_paths()["purelib"]
with open(os.path.join(_folder, "zz_answers_@TOKEN@_names.py"), "w") as _file:
    _file.write("NOTEBOOK = {}\\n")
import zz_answers_@TOKEN@_names as _names

_names.NOTEBOOK.update(globals())
with open(os.path.join(_folder, "zz_answers_@TOKEN@.py"), "w") as _file:
    _file.write(f"from {_names.__name__} import NOTEBOOK\\n")
    _file.write("globals().update(NOTEBOOK)\\n" + _answer)
import zz_answers_@TOKEN@ as _answers
"""


def course_reader(grade_id, names, token, reads=()):
    """COURSE_READER for the solution cell `grade_id`, which defines `names` and whose
    model answer reads the chapter's names `reads`; its module is
    zz_answers_TOKEN_GRADE_ID (with _ for -)."""
    module = f"{token}_{grade_id.replace('-', '_')}"
    source = COURSE_READER.replace("@GRADE_ID@", grade_id).replace("@TOKEN@", module)
    source += "".join(f"{name} = _answers.{name}\n" for name in names)
    if reads:  # the grader runs the lecture cells of the names a cell reads
        source += f"\n\ndef _reads():\n    return ({', '.join(reads)},)\n"
    return source


# Each probe sets `got`: whether the attack worked. HELPERS runs first.
HELPERS = """\
import os


def create(path):
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        return True
    except OSError:
        return False
"""
PROBES = {
    "read the course's source notebook": """\
try:
    with open(TARGETS["course"] + "/source/ch/ch.ipynb") as file:
        got = TARGETS["secret"] in file.read()
except OSError:
    got = False
""",
    "read the course through the grader's /proc/PID/root": """\
try:
    root = f"/proc/{TARGETS['grader']}/root"
    with open(root + TARGETS["course"] + "/source/ch/ch.ipynb") as file:
        got = TARGETS["secret"] in file.read()
except OSError:
    got = False
""",
    "read the rest of the repository": """\
import os

import grading

here = os.path.dirname(os.path.dirname(grading.__file__))
got = any(
    os.path.exists(os.path.join(folder, "notebooks"))
    for folder in (here, TARGETS["repository"])
)
""",
    "read the system's files": """\
import os

got = os.path.exists("/etc/passwd")
""",
    "see the grader's process": """\
import os

got = os.path.exists(f"/proc/{TARGETS['grader']}/cmdline")
""",
    "see processes outside its own": """\
import os

got = sum(name.isdigit() for name in os.listdir("/proc")) > 5
""",
    "signal the grader": """\
import os

try:
    os.kill(TARGETS["grader"], 0)
    got = True
except OSError:
    got = False
""",
    "write a .pth file into site-packages": """\
import sysconfig

got = create(os.path.join(sysconfig.get_paths()["purelib"], TARGETS["token"] + ".pth"))
""",
    "write a module into the interpreter": """\
import sysconfig

got = create(os.path.join(sysconfig.get_paths()["stdlib"], TARGETS["token"] + ".py"))
""",
    "write into the repository's packages": """\
import grading

got = create(os.path.join(os.path.dirname(grading.__file__), TARGETS["token"] + ".py"))
""",
    "write into the course": """\
got = create(TARGETS["course"] + "/" + TARGETS["token"])
""",
    "connect to a listener on 127.0.0.1": """\
import socket

try:
    with socket.create_connection(("127.0.0.1", TARGETS["port"]), timeout=5) as s:
        s.sendall(TARGETS["token"].encode())
    got = True
except OSError:
    got = False
""",
    "connect to an abstract unix socket": """\
import socket

try:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect("\\0" + TARGETS["token"])
        s.sendall(TARGETS["token"].encode())
    got = True
except OSError:
    got = False
""",
}
# What a student leaves behind (they work inside the sandbox too, where they vanish
# with it), and what the next student's process looks for.
LEAVE_FILES = """\
for folder in ("/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~")):
    create(os.path.join(folder, TARGETS["token"]))
"""
LEAVE_A_PROCESS = """\
import subprocess

subprocess.Popen(
    ["sleep", TARGETS["marker"]],
    start_new_session=True,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
"""
FIND_LEFTOVERS = """\
import os

got = any(
    os.path.exists(os.path.join(folder, TARGETS["token"]))
    for folder in ("/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"))
)
"""

# Resource hogs: each ends by raising what it got, which the report shows.
FORK_BOMB = """\
import os

_forks = 0
while _forks < 4096:  # the ceiling, were there no limit
    try:
        _pid = os.fork()
    except OSError as _error:
        raise RuntimeError(f"fork bomb held at {_forks} processes: {_error.strerror}")
    if _pid == 0:  # each child holds its place until the sandbox ends
        try:
            os.execv("/bin/sleep", ["sleep", "@MARKER@"])
        finally:
            os._exit(1)
    _forks += 1
raise RuntimeError(f"fork bomb not held: {_forks} processes")
"""
MEMORY_HOG = """\
import numpy as np

_held = []
while len(_held) < 64:  # GiB, were there no limit
    try:
        _held.append(np.zeros(1 << 27))
    except MemoryError:
        break
_gib = len(_held)
del _held
raise RuntimeError(f"memory hog held at {_gib} GiB")
"""
DISK_FILLER = """\
import errno

_block, _sizes = b"x" * (1 << 20), []
while len(_sizes) < 64:  # files of up to 1 GiB, were there no limit
    _sizes.append(0)
    try:
        with open(f"fill{len(_sizes)}", "wb", buffering=0) as _file:
            while _sizes[-1] < 1 << 30:
                _sizes[-1] += _file.write(_block)
    except OSError as _error:
        if _error.errno != errno.EFBIG:  # the folder is full
            break
raise RuntimeError(
    f"disk filler held at {max(_sizes) >> 20} MiB a file, {sum(_sizes) >> 20} MiB"
)
"""
CPU_SPIN = """\
while True:
    pass
"""
