"""The stored measurements (book/assets/measurements/) and the chapters' data cells
that `make sync` writes from them through measure/stored.py: the files are complete,
and each cell's literals, executed, are its files' numbers, laid out as ruff lays them
out. (That each chapter's cell is what the formatter writes is
test_structure.py::test_shared_code_in_sync.)"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook
from measure.stored import (
    CELLS,
    MEASUREMENTS,
    cell_source,
    literal,
    stored_finals,
    stored_kernels,
    stored_rows,
    stored_streams,
    stored_sweep,
    stored_table,
)

pytestmark = pytest.mark.static

RUFF = str(Path(sys.executable).parent / "ruff")


def load(name):
    return json.loads((MEASUREMENTS / f"{name}.json").read_text())


def shown(names):
    """The names the data cell of these files defines, with their values."""
    namespace = {}
    exec(cell_source(names), namespace)
    del namespace["__builtins__"]
    return namespace


def test_chapter_08_shows_the_gpt_runs():
    results = [load("gpt-scale-h100"), load("gpt-depth-h100")]
    cell = shown(["gpt-scale-h100", "gpt-depth-h100"])
    assert set(cell) == {"STORED_ENV", "STORED_YARDSTICKS", "STORED_SIZES", "STORED"}
    assert cell["STORED_ENV"] == [r["environment"] for r in results]
    assert cell["STORED_YARDSTICKS"] == results[0]["yardsticks"]
    sizes = {k: v for r in results for k, v in stored_finals(r)[0].items()}
    assert cell["STORED_SIZES"] == sizes
    assert list(sizes) == [
        "chapter",
        "medium",
        "large",
        *(f"medium-{n}" for n in [2, 4, 16]),
    ]
    assert cell["STORED"] == [row for r in results for row in stored_finals(r)[1]]
    # One row per size, placement, rate and warm-up: the loss of each of three seeds.
    assert len(cell["STORED"]) == 6 * 3 * 3 * 2
    assert all(len(row) == 4 + 3 for row in cell["STORED"])


def test_chapter_10_shows_the_gpu_measurements():
    result = load("gpu-h200")
    cell = shown(["gpu-h200"])
    assert set(cell) == {"STORED_ENV", "STORED", "STORED_KERNELS"}
    assert cell["STORED_ENV"] == result["environment"]
    assert cell["STORED"] == stored_rows(result)
    assert cell["STORED_KERNELS"] == stored_kernels(result)


def test_chapter_13_shows_the_depth_sweep():
    result = load("placements-at-depth")
    cell = shown(["placements-at-depth"])
    assert cell.pop("DEPTH_ENV") == result["environment"]
    assert cell.pop("DEPTH_TEXT_SHA256") == result["text_sha256"]
    assert cell.pop("DEPTH_MODEL") == result["model"]
    assert cell.pop("DEPTH_YARD") == result["yardsticks"]
    lrs, final, grad = stored_table(result)
    assert cell == {"DEPTH_LRS": lrs, "DEPTH_FINAL": final, "DEPTH_GRAD": grad}


def test_chapter_13_shows_the_streams_and_the_widths():
    result = load("placements-streams")
    cell = shown(["placements-streams"])
    assert cell == {
        "STREAMS_ENV": result["environment"],
        "STREAMS_RMS": stored_streams(result),
    }
    result = load("norm-sweeps-widths")
    cell = shown(["norm-sweeps-widths"])
    final, _, _ = stored_sweep(result, "widths", ("recipe", "width"))
    assert cell["WIDTHS_PART"] == result["parts"]["widths"]
    for (recipe, width), table in final.items():
        assert cell["WIDTHS_FINAL"][recipe][width] == table
    initial = {}  # each width's loss at initialization, over all its models
    for r in result["runs"]:
        initial.setdefault(r["width"], []).extend(c[0] for c in r["val"])
    assert cell["WIDTHS_INITIAL"] == {
        w: round(sum(v) / len(v), 4) for w, v in initial.items()
    }


def test_chapter_12_shows_the_rate_sweep():
    result = load("norm-sweeps-budgets")
    cell = shown(["norm-sweeps-budgets"])
    final, lowest, yard = stored_sweep(result, "budgets", ("budget", "arm"))
    assert cell["RATES_TEXT_SHA256"] == result["corpus"]["sha256"]
    assert cell["RATES_YARD"] == yard
    for (budget, arm), table in final.items():
        assert cell["RATES_FINAL"][budget][arm] == table
        assert cell["RATES_LOWEST"][budget][arm] == lowest[budget, arm]
        # the lowest point of a curve is at most its last
        assert all(lo <= f for a, b in zip(lowest[budget, arm], table)
                   for lo, f in zip(a, b))  # fmt: skip


def test_the_stored_rows_read_the_file():
    """stored_rows: GB/s at the median time and at the 80th and 20th percentile of
    the time (the 20th and 80th of the bandwidth); stored_kernels: the backward
    kernels' launches in float32 at 8192 and more, each once, sorted."""
    row = {"dtype": "float32", "D": 8, "op": "copy", "direction": "-"}
    result = {
        "rows": [dict(row, impl="torch", seconds=[2.0, 1.0, 4.0], GBps=100.0)],
        "kernels": [
            {"kernel": "_rms_norm_bwd", "dtype": "fp32", "num_warps": 8, "BLOCK": 4096,
             "W_IN_LOOP": True, "SPLIT": 2, "registers": 90, "spilled_words": 0},
            {"kernel": "_rms_norm_bwd", "dtype": "fp32", "num_warps": 8, "BLOCK": 2048,
             "W_IN_LOOP": True, "SPLIT": 2, "registers": 80, "spilled_words": 0},
            {"kernel": "_rms_norm_fwd", "dtype": "fp32", "num_warps": 8, "BLOCK": 8192,
             "W_IN_LOOP": True, "SPLIT": 1, "registers": 70, "spilled_words": 0},
            {"kernel": "_layer_norm_bwd", "dtype": "bf16", "num_warps": 8,
             "BLOCK": 8192, "W_IN_LOOP": True, "SPLIT": 1, "registers": 60,
             "spilled_words": 0},
        ],
    }  # fmt: skip
    assert stored_rows(result) == [("float32", 8, "copy", "-", "torch", 100, 50, 200)]
    assert stored_kernels(result) == [("rms_norm", 8192, 8, True, 2, 90, 0)]


@pytest.mark.parametrize("names", list(CELLS), ids=" + ".join)
def test_a_data_cell_is_as_ruff_formats_it(names):
    """ruff format leaves a data cell as the formatter wrote it, lines of at most 88
    characters, so that `make format` and `make sync` agree."""
    text = cell_source(names) + "\n"
    formatted = subprocess.run(
        [RUFF, "format", "--stdin-filename", "cell.py", "-"],
        input=text,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert formatted == text
    assert max(map(len, text.splitlines())) <= 88


@pytest.mark.parametrize("names", list(CELLS), ids=" + ".join)
def test_each_data_cell_is_in_one_chapter(names):
    tags = [f"sync:data:{name}" for name in names]
    found = [
        path.name
        for path in NOTEBOOKS
        for cell in read_notebook(path).cells
        if [t for t in cell.metadata.get("tags", []) if t.startswith("sync:data:")]
        == tags
    ]
    assert len(found) == 1, found


AWKWARD = {
    "strings": [
        'one too long for its line, with "quotes", a backslash \\ and ünïcode, split at'
        " its spaces into pieces that fit",
        "x" * 100,
        "  spaces:  " + "two  at  a  time  " * 8,
    ],
    "odd": [(1,), (), [], {}, None, True, -0.5],
    "numbers": [1e-05, 123456789, -3, 0.1 + 0.2, float(2**60)],
    "nested": {"deeper": {"deepest": [list(range(40)), (1, 2)]}},
}


@pytest.mark.parametrize("pack", [False, True])
def test_a_literal_is_its_value(pack):
    """literal() writes Python that evaluates to the value, as ruff lays it out
    (unpacked) and in 88 columns wherever a word fits."""
    lines = literal(AWKWARD, lead="X = ", pack=pack)
    namespace = {}
    exec("\n".join(lines), namespace)
    assert namespace["X"] == AWKWARD
    assert all(len(line) <= 88 for line in lines if '"xxxx' not in line)
    if not pack:
        text = "\n".join(lines) + "\n"
        formatted = subprocess.run(
            [RUFF, "format", "--stdin-filename", "cell.py", "-"],
            input=text,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert formatted == text


def test_the_stored_gpu_measurements_are_complete():
    """make bench-gpu's file that chapter 10 shows: every size in float32 and
    bfloat16, a copy and both layers' forward and backward three ways; in float32 the
    backward's launch sweep (whole rows, and rows split in two from 8192 on); and the
    compiled backward kernels' registers at 8192 and 16384, on an NVIDIA GPU."""
    result = load("gpu-h200")
    env = result["environment"]
    assert env["device"].startswith("NVIDIA") and env["driver"] and env["triton"]
    assert "incomplete" not in result
    sizes = [768, 1024, 2048, 4096, 8192, 16384]
    whole = [f"triton-{w}w{s}" for s in ["", "-wloop"] for w in (8, 16, 32)]
    split = [f"triton-{w}w-split2" for w in (8, 16, 32)]
    expected = []
    for dtype in ["float32", "bfloat16"]:
        for D in sizes:
            expected.append((dtype, D, "copy", "-", "torch"))
            for op in ["layer_norm", "rms_norm"]:
                for direction in ["forward", "backward"]:
                    for impl in ["triton", "torch", "compile"]:
                        expected.append((dtype, D, op, direction, impl))
                if dtype == "float32":
                    for impl in whole + (split if D >= 8192 else []):
                        expected.append((dtype, D, op, "backward", impl))
    assert [row[:5] for row in stored_rows(result)] == expected
    for row in stored_rows(result):
        median, low, high = row[5:]
        assert 0 < low <= median <= high < 5000, row  # GB/s, under the H200's roof
    kernels = [k[:5] for k in stored_kernels(result)]
    launches = [(w, r, 1) for w in (8, 16, 32) for r in (False, True)]
    launches += [(w, True, 2) for w in (8, 16, 32)]
    assert kernels == sorted(
        (layer, D, *launch)
        for layer in ["layer_norm", "rms_norm"]
        for D in [8192, 16384]
        for launch in launches
    )


def test_chapter_12s_seed_scan_is_stored():
    """The scan behind chapter 12's bounds (upkeep/scan_chapter.py, two pooled runs):
    every assertion of the checks over the seeds on 200 windows of three. It refuted
    two, which the chapter narrowed (all the text's bigram, without DyT with alpha0 2)
    and dropped (the small text's unigram); every other assertion the chapter still
    makes held everywhere."""
    scan = load("scan-12-normalization-free")
    first, second = scan["halves"]
    assert [r["assert"] for r in first] == [r["assert"] for r in second]
    chapter = read_notebook(ROOT / "notebooks/12-normalization-free.ipynb")
    code = "\n".join(  # as the scan writes an assertion: ast.unparse's spelling
        ast.unparse(ast.parse(cell.source))
        for cell in chapter.cells
        if cell.cell_type == "code" and not cell.source.startswith("%")
    )
    bigram = "(FINAL[full, arm] < YARD[full]['bigram']).all()"
    unigram = "(FINAL[small, arm] > YARD[small]['unigram']).all()"
    assert 'for arm in ["LayerNorm", rms, dyt[0], derf]' in "\n".join(
        cell.source for cell in chapter.cells
    )  # the narrowed loop
    assert unigram not in code
    rerun = {
        int(k) for k in scan["commands"][0].split("--rerun ")[1].split()[0].split(",")
    }
    refuted, kept = set(), 0
    for a, b in zip(first, second):
        if a["cell"] in rerun:  # the checks over the seeds, re-run on every window
            assert a["windows"] + b["windows"] == 200, a["assert"]
        if a["failed"] or b["failed"]:
            refuted.add(a["assert"])
        elif a["assert"] in code:
            kept += 1
    assert refuted == {bigram, unigram}
    assert kept >= 20  # the chapter's bounds are still the scanned assertions
