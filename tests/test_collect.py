"""grading/collect.py: an LMS download, however renamed, into an nbgrader course."""

import datetime
import json
import zipfile

import pytest

from conftest import NOTEBOOKS

from grading.collect import main
from grading.export import days_late

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


def test_roster_maps_lms_ids_and_late_work_keeps_its_time(tmp_path, capsys):
    """Canvas names files by its user ids: the roster turns them into the students'
    ids; an id not on the roster is reported; LATE (any case) and the zip's time are
    kept beside the notebook, the time also as nbgrader's timestamp.txt."""
    course, chapter = tmp_path / "course", NOTEBOOKS[2]
    (course / "source" / chapter.stem).mkdir(parents=True)
    (course / "source" / chapter.stem / chapter.name).write_bytes(chapter.read_bytes())
    roster = tmp_path / "students.csv"
    roster.write_text("id,first_name,lms_id\ns1001,Ada,48213\ns1002,Ben,48215\n")
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, when in (
            ("ada_48213_1_mine.ipynb", (2026, 3, 2, 20, 0, 0)),
            ("ben_late_48215_2_mine.ipynb", (2026, 3, 4, 5, 59, 30)),
            ("eve_99999_3_mine.ipynb", (2026, 3, 1, 8, 0, 0)),
        ):
            zipped.writestr(zipfile.ZipInfo(name, when), chapter.read_bytes())

    assert main([str(course), str(archive), "--roster", str(roster)]) == 1
    out = capsys.readouterr().out
    assert "eve_99999_3_mine.ipynb: LMS id 99999 is not on the roster" in out
    assert sorted(p.name for p in (course / "submitted").iterdir()) == [
        "s1001",
        "s1002",
    ]
    folder = course / "submitted" / "s1002" / chapter.stem
    assert (folder / "timestamp.txt").read_text() == "2026-03-04 05:59:30 UTC"
    assert json.loads((folder / "collected.json").read_text()) == {
        "lms_id": "48215",
        "file": "ben_late_48215_2_mine.ipynb",
        "submitted_at": "2026-03-04 05:59:30 UTC",
        "late": True,
    }
    ada = json.loads(
        (course / "submitted" / "s1001" / chapter.stem / "collected.json").read_text()
    )
    assert (ada["lms_id"], ada["late"]) == ("48213", False)

    bad = tmp_path / "bad.csv"
    bad.write_text("student,canvas\ns1,1\n")
    with pytest.raises(SystemExit, match="needs the columns id and lms_id"):
        main([str(course), str(archive), "--roster", str(bad)])


def test_late_policy_counts_started_days():
    due = datetime.datetime(2026, 3, 2, 23, 59)
    hours = datetime.timedelta(hours=1)
    assert days_late(due, False, due) == 0
    assert days_late(due + hours, False, due) == 1
    assert days_late(due + 30 * hours, False, due) == 2
    assert days_late(due - hours, True, due) == 1  # the LMS said LATE
    assert days_late(None, True, None) == 1
    assert days_late(due + 30 * hours, False, None) == 0  # no due date, no flag
