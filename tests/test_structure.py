"""Structure of the repository and of every notebook (fast checks, no execution)."""
import re
import subprocess
import sys

import pytest

from conftest import NOTEBOOKS, ROOT, notebook_title, read_notebook, toc_files

MACHINE_PATH = re.compile(r"(/home/|/root/|/work/|/tmp/|/Users/|[A-Z]:\\\\Users|site-packages)")


def test_there_are_chapters():
    assert len(NOTEBOOKS) >= 1


def test_every_toc_entry_exists():
    for entry in toc_files():
        matches = [p for p in ROOT.glob(entry + ".*") if p.suffix in (".md", ".ipynb")]
        assert matches, f"_toc.yml names {entry}, which does not exist"


def test_every_notebook_is_in_toc():
    entries = set(toc_files())
    for path in NOTEBOOKS:
        assert f"notebooks/{path.stem}" in entries, f"{path.name} is missing from _toc.yml"


def test_notebook_names():
    for path in NOTEBOOKS:
        assert re.fullmatch(r"\d\d-[a-z0-9-]+\.ipynb", path.name), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_executed_and_clean(path):
    notebook = read_notebook(path)
    assert notebook_title(notebook), "the first cell must start with '# Title'"
    assert notebook.metadata.kernelspec.name == "python3"
    assert "widgets" not in notebook.metadata, "widget state is stored (run `make execute`)"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), \
        "execution counts are not 1..n: re-run with `make execute`"
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", f"stored error in cell {cell.execution_count}"
            text = str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
            assert not MACHINE_PATH.search(text), f"machine path in output of cell {cell.execution_count}"


def test_no_checkpoints_or_caches_committed():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    bad = [f for f in tracked if re.search(r"(\.ipynb_checkpoints|__pycache__|\.pytest_cache|^_build/|^data/)", f)]
    assert not bad, bad


def test_interactive_figure_helper_in_sync():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "sync_helper.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_has_an_interactive_figure(path):
    notebook = read_notebook(path)
    helper = [c for c in notebook.cells if "interactive-figure-helper" in c.metadata.get("tags", [])]
    assert len(helper) == 1, "each chapter defines the interactive-figure helper once"
    used = [c for c in notebook.cells if c.cell_type == "code" and "interactive_figure(" in c.source
            and c is not helper[0]]
    assert used, "no interactive figure"
    for cell in used:
        assert cell.source.startswith("# NBVAL_IGNORE_OUTPUT"), "widget cells must ignore their output"
        html = [o for o in cell.outputs if "text/html" in o.get("data", {})]
        assert html and 'class="interactive-figure"' in html[0]["data"]["text/html"], \
            "the stored output lacks the kernel-free fallback"


def test_colab_badges_match_repository_setting():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "badges.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
