"""`make lab`: JupyterLab for a reader, on copies of the chapters.

The reader copies that `make book` writes (_build/html/notebooks/: the chapters with
their MyST turned into Markdown that JupyterLab renders) are copied into _build/lab/ (a
copy already there is kept: it holds the reader's own edits and outputs), so
JupyterLab's autosave never rewrites a tracked notebook. nbgrader's extensions are
switched off for this server only: a reader needs no formgrader. As root, JupyterLab
refuses to start without --allow-root.
"""

import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "_build" / "lab"
READER_COPIES = ROOT / "_build" / "html" / "notebooks"
NBGRADER_SERVER = [
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
]


def prepare():
    """Copy the reader copies that are not yet in LAB; return the command to start the
    lab."""
    chapters = sorted(READER_COPIES.glob("*.ipynb"))
    if not chapters:
        raise SystemExit(
            f"lab: no reader copies in {READER_COPIES}: "
            "`make book` writes them (`make lab` runs it first)"
        )
    LAB.mkdir(parents=True, exist_ok=True)
    for chapter in chapters:
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
    # No "get notified about Jupyter news?" prompt: the reader came to read a chapter.
    settings = config / "lab-settings"
    news = (
        settings
        / "@jupyterlab"
        / "apputils-extension"
        / "notification.jupyterlab-settings"
    )
    if not news.exists():
        news.parent.mkdir(parents=True, exist_ok=True)
        news.write_text(json.dumps({"fetchNews": "false"}))
    command = [
        str(Path(sys.executable).parent / "jupyter"),
        "lab",
        f"--notebook-dir={LAB}",
    ]
    command += sys.argv[1:]
    if os.geteuid() == 0:
        command.append("--allow-root")
    environment = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
    }
    return command, environment


def main():
    command, environment = prepare()
    print(f"JupyterLab on copies of the chapters in {LAB.relative_to(ROOT)}/")
    print("(your edits stay there; delete a copy to get a fresh one)", flush=True)
    os.execve(command[0], command, environment)


if __name__ == "__main__":
    main()
