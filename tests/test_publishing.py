"""Publishing and Binder configuration stay valid and in sync with the pinned environment."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


def pins(path):
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not pinned exactly"
            found[name.lower()] = version
    return found


@pytest.mark.static
def test_workflow_passes_actionlint():
    actionlint = Path(sys.executable).parent / "actionlint"
    result = subprocess.run(
        [str(actionlint), str(ROOT / ".github" / "workflows" / "book.yml")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.static
def test_binder_pins_match_the_tested_environment():
    binder, tested = (
        pins(ROOT / "binder" / "requirements.txt"),
        pins(ROOT / "requirements.txt"),
    )
    # Every package a chapter imports (requirements.txt's "Chapters" section).
    section = (ROOT / "requirements.txt").read_text().split("# Chapters", 1)[1]
    chapters = {
        line.split("==")[0]
        for line in section.split("\n# ", 1)[0].splitlines()[1:]
        if "==" in line
    }
    assert chapters <= set(binder), f"Binder lacks {sorted(chapters - set(binder))}"
    assert binder.pop("torch") == tested["torch"] + "+cpu", (
        "Binder must use the CPU-only torch build"
    )
    for name, version in binder.items():
        assert tested.get(name) == version, (
            f"binder pins {name}=={version}, requirements.txt {tested.get(name)}"
        )
    assert re.fullmatch(
        r"python-3\.\d+\s*", (ROOT / "binder" / "runtime.txt").read_text()
    )


# repo2docker's preinstalled front end: Notebook 7.4, which needs JupyterLab >= 4.4, < 4.5.
REPO2DOCKER_FRONT_END = "notebook==7.4.*"


def test_binder_requirements_install_beside_repo2docker_front_end(tmp_path):
    """A simulated install (pip's resolver, nothing installed) of Binder's pins together with
    the Notebook that repo2docker preinstalls must have no conflict. torch is left out: its
    CPU build lives on PyTorch's own index (its pin is checked above)."""
    lines = [
        line.split("#")[0].strip()
        for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    ]
    packages = [line for line in lines if line and not line.startswith(("-", "torch"))]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--quiet",
            "--ignore-installed",
            "--report",
            str(tmp_path / "report.json"),
            *packages,
            REPO2DOCKER_FRONT_END,
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, (
        "Binder's pins conflict with repo2docker:\n" + result.stderr
    )
