"""Publishing and Binder configuration stay valid and in sync with the pinned environment."""
import re
import subprocess
import sys
from pathlib import Path

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


def test_workflow_passes_actionlint():
    actionlint = Path(sys.executable).parent / "actionlint"
    result = subprocess.run([str(actionlint), str(ROOT / ".github" / "workflows" / "book.yml")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_binder_pins_match_the_tested_environment():
    binder, tested = pins(ROOT / "binder" / "requirements.txt"), pins(ROOT / "requirements.txt")
    assert {"torch", "numpy", "matplotlib", "ipywidgets", "jupyterlab"} <= set(binder)
    assert binder.pop("torch") == tested["torch"] + "+cpu", "Binder must use the CPU-only torch build"
    for name, version in binder.items():
        assert tested.get(name) == version, f"binder pins {name}=={version}, requirements.txt {tested.get(name)}"
    assert re.fullmatch(r"python-3\.\d+\s*", (ROOT / "binder" / "runtime.txt").read_text())
