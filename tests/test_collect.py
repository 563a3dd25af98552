"""grading/collect.py: an LMS download, however renamed, into an nbgrader course."""

import json
import zipfile

import pytest

from conftest import NOTEBOOKS

from grading.collect import main

pytestmark = pytest.mark.static


def test_renamed_files_land_by_content_and_nothing_is_dropped(tmp_path, capsys):
    course, download = tmp_path / "course", tmp_path / "download"
    chapters = NOTEBOOKS[2:4]
    for path in chapters:
        (course / "source" / path.stem).mkdir(parents=True)
        (course / "source" / path.stem / path.name).write_bytes(path.read_bytes())
    download.mkdir()
    first, second = (p.read_bytes() for p in chapters)
    files = {
        "doejane_12345_67890_ch3 final (2).ipynb": first,  # Canvas, renamed
        "roe_LATE_555_1_anything.ipynb": second,  # Canvas, late
        "Max Mustermann_777_assignsubmission_file_/copy.ipynb": first,  # Moodle
        "doejane_12345_99_again.ipynb": first,  # a second copy: kept out, reported
        "smith_42_1_notes.txt": b"not a notebook",
        "smith_42_2_other.ipynb": json.dumps({"cells": [], "nbformat": 4}).encode(),
    }
    for name, data in files.items():
        (download / name).parent.mkdir(parents=True, exist_ok=True)
        (download / name).write_bytes(data)
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name in files:
            zipped.write(download / name, name)

    assert main([str(course), str(archive)]) == 1
    out = capsys.readouterr().out
    submitted = course / "submitted"
    assert (submitted / "12345" / chapters[0].stem / chapters[0].name).exists()
    assert (submitted / "555" / chapters[1].stem / chapters[1].name).exists()
    assert (submitted / "777" / chapters[0].stem / chapters[0].name).exists()
    assert "doejane_12345_99_again.ipynb: 12345 already has" in out
    assert "smith_42_1_notes.txt: not a notebook" in out
    assert "smith_42_2_other.ipynb: matches no assignment" in out
    assert out.count("NOT COLLECTED") == 3
