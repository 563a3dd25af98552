"""Every chapter's reader copy runs alone on Colab's package set (ipywidgets 7.7,
IPython 7.34, numpy 2.1): the notebook a reader opens in Colab, which the site's build
writes (book/_ext/reader_copies.py: no MyST, no hidden tests, no nbgrader markers), so
one run checks both the copy and the package set. The chapter itself runs in `make
test`'s pinned environment under nbval.

`make test` builds that environment once (.venv-colab, from env/colab.txt) and passes
its interpreter in STANDALONE_PYTHON; `make test-colab PY=python3.13` and `make
test-latest` run the same test with other environments, on the reader copies of `make
book` (READER_COPIES). Outputs are not compared (versions change digits); the
notebooks' own assertions must hold, and no error, DeprecationWarning or FutureWarning
may appear.
"""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, chapters, needs_triton, require

PYTHON = os.environ.get("STANDALONE_PYTHON")

pytestmark = pytest.mark.colab


def has_triton(python):
    probe = "import importlib.util as u, sys; sys.exit(u.find_spec('triton') is None)"
    return subprocess.run([python, "-c", probe]).returncode == 0


@pytest.fixture(scope="session")
def reader_copies(request):
    """READER_COPIES (a folder: `make book`'s _build/html/notebooks) or the reader
    copies of the site this run builds."""
    if os.environ.get("READER_COPIES"):
        return Path(os.environ["READER_COPIES"])
    return request.getfixturevalue("built_book") / "notebooks"


@pytest.mark.parametrize("path", chapters())
def test_chapter_runs_alone_on_other_package_set(path, reader_copies):
    require(PYTHON, "STANDALONE_PYTHON is not set (`make test` sets it)")
    if needs_triton(path):
        # Colab has triton (its torch brings it); env/colab.txt leaves it out (1 GB), and
        # `make test-triton` runs such a chapter in an environment with triton.
        require(has_triton(PYTHON), "no triton in STANDALONE_PYTHON's environment")
    copy = reader_copies / path.name
    assert copy.is_file(), f"no reader copy {copy}"
    result = subprocess.run(
        [PYTHON, "-m", "upkeep.run_alone", str(copy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
