"""Write the "Open in Colab" badge under each notebook's title, from _config.yml's repository.

The badge is its own markdown cell tagged `remove-cell`: Colab, JupyterLab and GitHub show it,
while the book (which has launch buttons, and must not load outside images) leaves it out.
It opens the chapter's reader copy (plain Markdown, which Colab renders) on the branch
that the book workflow publishes them to (`reader_copies_branch`), not the MyST source.
`--check` only reports notebooks whose badge is missing or stale.
"""

import sys
from pathlib import Path

import nbformat
import yaml

from upkeep.cells import check_or_update

ROOT = Path(__file__).resolve().parent.parent
TAG = "colab-badge"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


def badge_source(notebook_name):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    path = config["repository"]["url"].removeprefix("https://github.com/").rstrip("/")
    branch = config["sphinx"]["config"]["reader_copies_branch"]
    colab = "https://colab.research.google.com/github"
    link = f"{colab}/{path}/blob/{branch}/notebooks/{notebook_name}"
    return f"[![Open In Colab]({BADGE_IMAGE})]({link})"


def place_badge(notebook, path):
    """Put the badge as the second cell; return whether anything changed."""
    wanted = badge_source(path.name)
    cells = [c for c in notebook.cells if TAG in c.metadata.get("tags", [])]
    if len(cells) == 1 and notebook.cells[1] is cells[0]:
        changed = cells[0].source != wanted
        cells[0].source = wanted  # in place: the cell keeps its id, the diff one line
        return changed
    notebook.cells = [
        c for c in notebook.cells if TAG not in c.metadata.get("tags", [])
    ]
    notebook.cells.insert(
        1,
        nbformat.v4.new_markdown_cell(wanted, metadata={"tags": ["remove-cell", TAG]}),
    )
    return True


if __name__ == "__main__":
    sys.exit(
        check_or_update(
            place_badge,
            sys.argv[1:],
            "{name}: Colab badge missing or out of date; run `make badges`",
            "badge written to {name}",
        )
    )
