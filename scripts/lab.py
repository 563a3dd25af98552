"""`make lab`: JupyterLab for a reader, on copies of the chapters.

The chapters are copied into _build/lab/ (a copy already there is kept: it holds the
reader's own edits and outputs), so JupyterLab's autosave never rewrites a tracked
notebook. nbgrader's extensions are switched off for this server only: a reader needs
no formgrader. As root, JupyterLab refuses to start without --allow-root.
"""

import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "_build" / "lab"
NBGRADER_SERVER = [
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
]


def prepare():
    """Copy the chapters that are not yet in LAB; return the command to start the lab."""
    LAB.mkdir(parents=True, exist_ok=True)
    for chapter in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if not (LAB / chapter.name).exists():
            shutil.copy2(chapter, LAB / chapter.name)
    config = LAB / ".config"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyter/nbgrader": True}})
    )
    (config / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {
                    "jpserver_extensions": dict.fromkeys(NBGRADER_SERVER, False)
                }
            }
        )
    )
    command = [
        str(Path(sys.executable).parent / "jupyter"),
        "lab",
        f"--notebook-dir={LAB}",
    ]
    command += sys.argv[1:]
    if os.geteuid() == 0:
        command.append("--allow-root")
    return command, {**os.environ, "JUPYTER_CONFIG_DIR": str(config)}


def main():
    command, environment = prepare()
    print(f"JupyterLab on copies of the chapters in {LAB.relative_to(ROOT)}/")
    print("(your edits stay there; delete a copy to get a fresh one)", flush=True)
    os.execve(command[0], command, environment)


if __name__ == "__main__":
    main()
