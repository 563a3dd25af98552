"""The code is formatted and linted as `make format` leaves it (ruff, ruff.toml): the
notebooks' code cells, normbook/, the packages, tests/ and the book's extensions."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.static

RUFF = str(Path(sys.executable).parent / "ruff")
STYLED = ["normbook", "grading", "upkeep", "measure", "tests", "book/_ext", "notebooks"]


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]])
def test_ruff(command):
    result = subprocess.run(
        [RUFF, *command, *STYLED], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, (
        f"ruff {' '.join(command)} (fix with `make format`):\n"
        + result.stdout
        + result.stderr
    )
