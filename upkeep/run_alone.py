"""Run one chapter alone in an empty folder with this interpreter's packages.

Usage: python -m upkeep.run_alone notebooks/NN-name.ipynb (from the repository root)

Used by tests/test_colab_stack.py with the Colab-stack and newest-release environments
(`make test`, `make test-colab`, `make test-latest`). The notebook is executed top to bottom
in a kernel of this very interpreter; it fails on any error (other than in cells tagged
`raises-exception`) and on any DeprecationWarning or FutureWarning printed in an output.
Prints the run time.
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from upkeep.cells import run_notebook

WARNINGS = ("DeprecationWarning", "FutureWarning")


def output_text(output):
    text = output.get("text", "")
    data = output.get("data", {})
    return "".join(text) + "".join(data.get("text/plain", ""))


def main(path):
    path = Path(path).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder, kernels = Path(tmp) / "chapter", Path(tmp) / "kernels" / "standalone"
        folder.mkdir()
        kernels.mkdir(parents=True)
        shutil.copy(path, folder)
        spec = {
            "argv": [
                sys.executable,
                "-Xfrozen_modules=off",
                "-m",
                "ipykernel_launcher",
                "-f",
                "{connection_file}",
            ],
            "display_name": "standalone",
            "language": "python",
        }
        (kernels / "kernel.json").write_text(json.dumps(spec))
        os.environ["JUPYTER_PATH"] = tmp
        notebook = nbformat.read(folder / path.name, as_version=4)
        try:
            seconds = run_notebook(notebook, folder, kernel="standalone")
        except CellExecutionError as error:
            sys.exit(f"{path.name}: a cell failed\n{str(error)[-3000:]}")
    problems = [
        f"cell {cell.execution_count}: {line.strip()[:200]}"
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        for line in output_text(output).splitlines()
        if any(w in line for w in WARNINGS)
    ]
    if problems:
        sys.exit(f"{path.name}: warnings printed\n" + "\n".join(problems))
    print(f"{path.name}: ran in {seconds:.1f} s with Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main(sys.argv[1])
