"""The student's process in an operating-system sandbox of its own (Linux, bubblewrap).

grading/grade.py starts each submission's process (grading/runner.py) through
`command`. What that process sees:
- read-only: /usr and the /bin, /lib* links into it, two files of /etc (the loader's
  cache, the time zone), the Python environment (sys.prefix and the interpreter it was
  made from), the repository's packages grading/, upkeep/ and normbook/ (at /opt/book,
  nothing else of the repository) and, if MNIST_DIR is set, the data set (at
  /opt/mnist);
- writable: an empty tmpfs at /tmp (its home, working directory and temp, 512 MiB) and
  /dev/shm (64 MiB); both vanish with the sandbox;
- nothing else: not the course folder, the grader's files or processes (a PID namespace
  of its own: its /proc lists only the sandbox), other students' sandboxes, the network
  (a network namespace with no interface but its own loopback), nor the grader's
  terminal (a session of its own).
It dies with the grader (--die-with-parent; the PID namespace ends with its first
process). The runner lowers its resource limits (`limits`) before any of the student's
code runs; processes and threads are counted per sandbox. Where the grader runs as root,
bubblewrap keeps only the right to change user, and the runner becomes a user of its own
(UIDS + the grader's process id, a user that owns no file and no other process) with no
privileges; otherwise the student's code runs as your user, inside a user namespace that
allows no other. Memory is limited per process, not in total: a container with
--memory bounds the sum (the Dockerfile). Packages installed in editable mode from a
folder outside the environment are not visible in the sandbox.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from upkeep.cells import ROOT

# What the runner imports of the repository, and where the sandbox sees it.
PACKAGES = ("grading", "upkeep", "normbook")
BOOK = "/opt/book"
MNIST = "/opt/mnist"
HOME = "/tmp"
TMP_BYTES = 512 << 20
SHM_BYTES = 64 << 20
UIDS = 3_000_000_000  # as root: the student's user is UIDS + the grader's pid
ETC = ("/etc/ld.so.cache", "/etc/localtime")
INSTALL = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap, Fedora: dnf "
    "install bubblewrap, Arch: pacman -S bubblewrap; `make grade` installs it as root "
    "on Debian/Ubuntu); on macOS or Windows grade in the container (Dockerfile)"
)


def unsafe_warning(uid=None):
    """The first line of a report graded without the sandbox, as the grader's user or,
    given `uid` (--student-uid, as root), as that user."""
    if uid is None:
        return (
            "UNSAFE: graded without a sandbox (--unsafe-no-sandbox). Each student's "
            "code ran as the grader's user: it could read every file that user can "
            "(the course's source/ notebooks with the model answers and hidden tests, "
            "other students' submissions), write into the Python environment and the "
            "course (a .pth file there runs in every later grading run), reach the "
            "network and the grader's processes, start processes without limit, and "
            "leave processes and files behind. Trust these scores only from a fresh "
            "container per submission."
        )
    return (
        f"UNSAFE: graded without a sandbox (--unsafe-no-sandbox), as user {uid}: each "
        f"student's code could read and write whatever user {uid} can here, reach the "
        "network, see the grader's processes and leave processes and files behind. "
        "That is safe only in a fresh container per submission that keeps the course "
        f"out of user {uid}'s reach (the Dockerfile)."
    )


def limits(cell_timeout, own_user=True):
    """The student's process's resource limits ({name: value}, RLIMIT_NAME), per
    process. Processes count threads too (Numba starts one per core), and are counted
    only where the student's code has a user of its own (`own_user`): in the sandbox,
    or as --student-uid; otherwise they would be the grader's user's."""
    chosen = {
        "cpu": int(10 * cell_timeout),  # seconds, all cells together
        "data": 4 << 30,  # bytes of memory (heap and mappings)
        "fsize": 256 << 20,  # bytes of one file
        "core": 0,  # no core dumps
    }
    if own_user:
        chosen["nproc"] = 128 + 4 * (os.cpu_count() or 1)
    return chosen


def student_uid():
    """The user the student's code runs as when the grader is root, else None."""
    return UIDS + os.getpid() if os.geteuid() == 0 else None


def environment(folder=None):
    """The student's process's environment, in the sandbox or, unsafe, in `folder`:
    nothing of the grader's but where the data set is."""
    home = HOME if folder is None else folder
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "USER": "student",
        "LOGNAME": "student",
        "MPLBACKEND": "Agg",
        "NBGRADER_EXECUTION": "autograde",
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": BOOK if folder is None else str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if os.environ.get("MNIST_DIR"):
        env["MNIST_DIR"] = MNIST if folder is None else os.environ["MNIST_DIR"]
    return env


def command(argv):
    """bwrap's command line that runs `argv` in a sandbox of its own."""
    args = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net"]
    args += ["--unshare-uts", "--unshare-cgroup-try", "--die-with-parent"]
    args += ["--new-session"]
    if os.geteuid() == 0:  # no user namespace: the runner drops to student_uid()
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add"]
        args += ["CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", name)
        if path.is_symlink():  # merged /usr
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    args += ["--remount-ro", "/dev"]
    args += ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", HOME]
    # After the tmpfs: an environment under /tmp stays visible, read-only.
    binds = [(path, path) for path in python_folders()]
    binds += [(str(ROOT / package), f"{BOOK}/{package}") for package in PACKAGES]
    if os.environ.get("MNIST_DIR"):
        binds.append((os.environ["MNIST_DIR"], MNIST))
    # The folders above them, readable by all (bwrap makes them 0700 when root).
    targets = [target for _, target in binds] + list(ETC)
    above = {str(p) for target in targets for p in Path(target).parents}
    for folder in sorted(above - {"/", HOME}):
        args += ["--perms", "0755", "--dir", folder]
    for path in ETC:
        args += ["--ro-bind-try", path, path]
    for source, target in binds:
        args += ["--ro-bind", source, target]
    args += ["--remount-ro", "/", "--chdir", HOME, "--", *argv]
    return args


def python_folders():
    """The environment and the interpreter it was made from, outside /usr, each once."""
    folders = []
    prefixes = (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)
    for folder in sorted({os.path.abspath(p) for p in prefixes}):
        if not any(under(folder, f) for f in ["/usr", *folders]):
            folders.append(folder)
    return folders


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def unavailable():
    """Why the sandbox cannot run here (a sentence saying what to do), or None."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux: {INSTALL}"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL}"
    # The runner's first steps, as the user the student's code would run as.
    code = f"from grading import runner; runner.confine({{}}, {student_uid()})"
    trial = [sys.executable, "-s", "-P", "-c", code + "; import grading.channel"]
    result = subprocess.run(
        command(trial), env=environment(), capture_output=True, text=True, cwd="/"
    )
    if result.returncode == 0:
        return None
    reason = (result.stderr.strip().splitlines() or ["no message"])[-1]
    if any(w in reason for w in ("namespace", "uid map", "not permitted", "denied")):
        reason += (
            "; unprivileged user namespaces may be off (Ubuntu 24.04: sysctl "
            "kernel.apparmor_restrict_unprivileged_userns=0), or this is a container "
            "that has none: grade in the container of the Dockerfile instead"
        )
    return f"bubblewrap cannot start a sandbox here ({reason})"
