"""Every chapter runs alone on Colab's package set (ipywidgets 7.7, IPython 7.34, numpy 2.1).

`make test` builds that environment once (.venv-colab, from env/colab.txt)
and passes its interpreter in STANDALONE_PYTHON; `make test-colab PY=python3.13` and
`make test-latest` run the same test with other environments. Outputs are not compared
(versions change digits); the notebooks' own assertions must hold, and no error,
DeprecationWarning or FutureWarning may appear.
"""

import os
import subprocess

import pytest

from conftest import NOTEBOOKS, ROOT

PYTHON = os.environ.get("STANDALONE_PYTHON")


def has_triton(python):
    probe = "import importlib.util as u, sys; sys.exit(u.find_spec('triton') is None)"
    return subprocess.run([python, "-c", probe]).returncode == 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_runs_alone_on_other_package_set(path):
    if not PYTHON:
        pytest.skip("skipped: STANDALONE_PYTHON not set (`make test` sets it)")
    if "import triton" in path.read_text() and not has_triton(PYTHON):
        # Colab has triton (its torch brings it); env/colab.txt leaves it out (1 GB), and
        # `make test-triton` runs such a chapter in an environment with triton.
        pytest.skip("skipped: the chapter needs triton, which this environment lacks")
    result = subprocess.run(
        [PYTHON, "-m", "upkeep.run_alone", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
