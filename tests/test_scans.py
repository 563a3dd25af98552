"""The seed-scan scripts (run by hand to set an assertion's bound) on a tiny notebook."""

import json
import subprocess
import sys

import nbformat
import pytest

from conftest import ROOT

pytestmark = pytest.mark.static  # the scans run on tiny notebooks, not chapters


@pytest.fixture
def chapter(tmp_path):
    """SEEDS of length 2; a cell whose assertion fails once max(SEEDS) reaches 5."""
    cells = [
        nbformat.v4.new_code_cell("SEEDS = [0, 1]", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import math\nlargest = max(SEEDS)"),
        nbformat.v4.new_code_cell("unused = 1 / 0"),  # not needed by the next cell
        nbformat.v4.new_code_cell(
            "for s in SEEDS:\n    assert s < 5\nassert 0.5 < math.sqrt(largest + 1)\n"
            "assert largest - 10 < 0"
        ),
        nbformat.v4.new_code_cell(
            "assert largest != 3, 'three'", metadata={"nbgrader": {"grade": True}}
        ),
    ]
    path = tmp_path / "01-tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_scan_seeds_runs_only_what_the_cell_needs(chapter):
    result = run(
        "upkeep.scan_seeds", chapter, 3, "--windows", 4,
        "--report", "largest",
    )  # fmt: skip
    assert "running cells [0, 1] before it" in result.stdout, result.stdout
    assert "SEEDS from 4: AssertionError" in result.stdout
    assert "SEEDS from 6: AssertionError" in result.stdout
    assert "4 windows of 2 seeds (0..7), stride 2: 2 failed" in result.stdout
    assert "largest: min 1 (SEEDS from 0), median 4, max 7 (SEEDS from 6)" in (
        result.stdout
    )
    assert result.returncode == 1


def test_scan_chapter_records_every_assertion(chapter, tmp_path):
    out = tmp_path / "scan.json"
    result = run("upkeep.scan_chapter", chapter, "--windows", 3, "--json", out)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "a cell raised ZeroDivisionError" in result.stdout
    rows = {row["assert"]: row for row in json.loads(out.read_text())}
    assert set(rows) == {"s < 5", "0.5 < math.sqrt(largest + 1)", "largest - 10 < 0"}
    loop = rows["s < 5"]
    assert loop["failed"] == [4] and loop["windows"] == 3
    assert loop["kind"] == "ratio" and loop["worst"] == 1.0 and loop["worst_from"] == 4
    chain = rows["0.5 < math.sqrt(largest + 1)"]
    assert chain["failed"] == [] and chain["worst"] == pytest.approx(0.5 / 2**0.5)
    assert chain["worst_from"] == 0
    margin = rows["largest - 10 < 0"]  # 9, 7, 5: the smallest margin is the worst
    assert margin["kind"] == "margin" and margin["worst"] == 5.0
    assert margin["worst_from"] == 4 and margin["median"] == 7.0


def test_pooled_scan_reruns_aggregates_per_window(tmp_path):
    """Per-seed assertions once over seeds 0..9; the mean re-run on windows of 2."""
    mean_cell = nbformat.v4.new_code_cell(
        "assert values.mean() < 5\nprint(len(values))"
    )
    mean_cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
    cells = [
        nbformat.v4.new_code_cell("SEEDS = [0, 1]", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(
            "import numpy as np\nvalues = np.array([float(s) for s in SEEDS])"
        ),
        mean_cell,
        nbformat.v4.new_code_cell("assert (values < 7).all()"),
        nbformat.v4.new_code_cell(
            "assert np.all((0 <= values) & (values < 9.5)) and len(values) > 3"
        ),
    ]
    path = tmp_path / "01-pooled.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    out = tmp_path / "scan.json"
    result = run(
        "upkeep.scan_chapter", path, "--pooled", 10, "--rerun", 2,
        "--json", out,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "not store" not in result.stdout  # window 0 printed what is stored
    rows = {row["assert"]: row for row in json.loads(out.read_text())}
    mean = rows["values.mean() < 5"]
    assert mean["windows"] == 9 and mean["failed"] == [5, 6, 7, 8]
    assert mean["worst"] == pytest.approx(8.5 / 5) and mean["worst_from"] == 8
    every = rows["(values < 7).all()"]
    assert every["windows"] == 1 and every["failed"] == ["pooled 10"]
    assert every["kind"] == "margin" and every["worst"] == -2  # 7 - 9: elementwise
    # each part of an `and`, and of an elementwise `&`, is a check of its own
    low, high, size = rows["0 <= values"], rows["values < 9.5"], rows["len(values) > 3"]
    assert low["kind"] == "margin" and low["worst"] == 0 and low["failed"] == []
    assert high["worst"] == 0.5 and high["failed"] == []  # 9.5 - 9
    assert size["worst"] == pytest.approx(3 / 10)
