"""Shared fixtures: the repository's notebooks, the book built once per test run, a
browser; `require`, for a test whose environment may be missing; the test tiers
(markers, pyproject.toml) and the order in which `make test` hands tests out."""

import contextlib
import functools
import http.server
import importlib.util
import os
import shutil
import subprocess
import threading
from pathlib import Path

import nbformat
import pytest
import yaml
from filelock import FileLock
from print_book import CHROMIUM, CHROMIUM_ARGS  # one list of flags (book/_ext)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def in_ci():
    """CI=true (GitHub Actions sets it): CI promises the whole environment."""
    return os.environ.get("CI", "").lower() in ("true", "1")


def require(condition, what, module=False):
    """A test that cannot run here because `what` is missing skips, saying why; under
    CI=true it fails instead, so a missing browser or environment never passes as a
    green run. `module=True` at the top of a test module."""
    if condition:
        return
    if in_ci():
        pytest.fail(f"CI=true, but {what}", pytrace=False)
    pytest.skip(f"skipped: {what}", allow_module_level=module)


def needs_triton(path):
    """A chapter whose code imports triton (`make test-triton` runs it)."""
    return "import triton" in Path(path).read_text()


def has_triton():
    return importlib.util.find_spec("triton") is not None


def chapters():
    """The chapters as parameters of a test that runs them. A chapter that needs
    triton is marked `triton`: `make test` deselects it, `make test-triton` runs it."""
    return [
        pytest.param(
            p, id=p.name, marks=[pytest.mark.triton] if needs_triton(p) else []
        )
        for p in NOTEBOOKS
    ]


def toc_files():
    """Every file named in _toc.yml, in reading order (without extension)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def read_notebook(path):
    return nbformat.read(path, as_version=4)


def notebook_title(notebook):
    first = notebook.cells[0].source.splitlines()[0]
    return first[2:].strip() if first.startswith("# ") else None


# optionalhook: an xdist hook, and make test-triton's environment has no xdist.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """nbval runs a notebook's cells in order, in one kernel: all of a notebook's cells
    go to one xdist worker, as one unit (work_unit; so do the browser checks that read
    one load of a page); every other test is a unit of its own. The units go, in the
    order pytest_collection_modifyitems leaves, to whichever worker is free."""
    from xdist.scheduler import LoadScopeScheduling

    class NotebookScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    return NotebookScheduling(config, log)


# Browser checks that only read a page share one load of it (tests/test_browser.py's
# `opened`, by kind of load): a page's checks of one kind are one unit.
SHARED_LOAD = {
    "test_page_loads_offline_without_errors": "reader",
    "test_math_is_typeset": "reader",
    "test_reader_sees_no_tooling_and_every_figure_is_described": "reader",
    "test_code_is_at_most_a_third_of_the_page": "desktop",
    "test_page_weight_and_no_layout_shift": "desktop",
}


def work_unit(nodeid):
    """The notebook of an nbval cell; a page and kind of load for the browser checks
    that share one (SHARED_LOAD); any other test is its own unit."""
    path, _, test = nodeid.partition("::")
    if path.endswith(".ipynb"):
        return path
    name, _, param = test.partition("[")
    if path.endswith("test_browser.py") and name in SHARED_LOAD:
        return f"{path}::{SHARED_LOAD[name]}[{param}"
    return nodeid


def pytest_configure(config):
    # xdist hands the work units out in the order pytest_collection_modifyitems leaves
    # them (by default it sorts them by their number of tests).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


# Markers that follow from what a test uses (pyproject.toml registers them).
BY_FIXTURE = {
    "built_book": "book",
    "reader_copies": "book",
    "browser": "browser",
}
# Slow kinds of work first, so that the two workers finish together: the site build
# (the first test that needs the site builds it, beside a worker busy with a chapter),
# the chapters (nbval, and the other tests that run a kernel), the grading rounds, the
# Colab-stack runs, the browser, the other tests of the site, the rest.
ORDER = ["notebook", "grading", "colab", "browser", "book"]


def rank(item, first_book):
    if item is first_book:
        return -1
    for k, name in enumerate(ORDER):
        if item.get_closest_marker(name):
            return k
    return len(ORDER)


# tryfirst: the markers are in place before `-m` selects.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if str(item.path).endswith(".ipynb"):
            item.add_marker("notebook")  # an nbval cell
        used = getattr(item, "fixturenames", ())
        for fixture, marker in BY_FIXTURE.items():
            if fixture in used:
                item.add_marker(marker)
        if item.get_closest_marker("static") and any(f in used for f in BY_FIXTURE):
            raise pytest.UsageError(f"{item.nodeid} is marked static but needs {used}")
    first_book = next((i for i in items if i.get_closest_marker("book")), None)
    items.sort(key=lambda item: rank(item, first_book))


@pytest.fixture(scope="session")
def built_book(tmp_path_factory, worker_id):
    """Build the book once per test run (shared by xdist workers), from scratch, where
    and as `make book` builds it (_build/html, in .venv-book from env/book.txt), so CI
    publishes the very site it tested."""
    builder = ROOT / ".venv-book" / "bin" / "jupyter-book"
    require(builder.exists(), "no .venv-book (`make test` and `make book` create it)")
    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        base = base.parent
    html, log = ROOT / "_build" / "html", base / "book-build.log"
    with FileLock(str(base / "book.lock")):
        if not (base / "book-built").exists():
            # A build reports warnings only for the pages it rebuilds: start clean.
            for stale in ("html", ".doctrees", "jupyter_execute"):
                shutil.rmtree(ROOT / "_build" / stale, ignore_errors=True)
            result = subprocess.run(
                [
                    str(builder),
                    "build",
                    str(ROOT),
                    "-W",
                    "-n",
                    "--keep-going",
                ],
                capture_output=True,
                text=True,
            )
            log.write_text(result.stdout + result.stderr)
            (base / "book-built").write_text(str(result.returncode))
            if result.returncode != 0:
                shutil.rmtree(html, ignore_errors=True)
    if not (html / "index.html").exists():
        pytest.fail("book build failed:\n" + log.read_text()[-5000:])
    return html


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve `directory` on 127.0.0.1 (a free port) for the duration of the block."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    require(
        CHROMIUM,
        "no Chromium (install Debian's chromium, or run `make browser` as root)",
    )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def sandbox():
    """The grader's sandbox (grading/sandbox.py): the tests that grade need it."""
    from grading.sandbox import unavailable

    reason = unavailable()
    require(not reason, f"no sandbox to grade in ({reason})")


def pytest_addoption(parser):
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="save the layout check's full-page screenshots (make test-browser-matrix)",
    )


@pytest.fixture(scope="session")
def screenshots(request, artifacts):
    """The folder for the layout check's full-page screenshots, or None: they are for a
    person to look at, check nothing, and cost a few seconds of Chromium each, so only
    --screenshots takes them."""
    if not request.config.getoption("--screenshots"):
        return None
    folder = artifacts / "screenshots"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def artifacts():
    """A folder for files a person looks at after the run (screenshots)."""
    folder = ROOT / "_build" / "test-artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
