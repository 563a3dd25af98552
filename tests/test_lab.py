"""`make lab` (upkeep/lab.py): JupyterLab for readers, on copies, without nbgrader."""

import json
import re
import secrets
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import NOTEBOOKS


@pytest.fixture
def lab(tmp_path, monkeypatch, built_book):
    from upkeep import lab as module

    monkeypatch.setattr(module, "LAB", tmp_path / "lab")
    monkeypatch.setattr(module, "READER_COPIES", built_book / "notebooks")
    monkeypatch.setattr(module.sys, "argv", ["lab.py"])
    return module


def test_lab_works_on_copies_and_keeps_the_readers_edits(lab):
    lab.prepare()
    copies = sorted(p.name for p in lab.LAB.glob("*.ipynb"))
    assert copies == [p.name for p in NOTEBOOKS]
    for copy in lab.LAB.glob("*.ipynb"):  # the reader copies: no raw MyST
        assert "{numref}`" not in copy.read_text(), copy.name
    edited = lab.LAB / NOTEBOOKS[0].name
    edited.write_text(edited.read_text().replace("# ", "# Edited: ", 1))
    lab.prepare()
    assert "# Edited: " in edited.read_text()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""
    except OSError:  # not listening yet
        return None, ""


def test_lab_without_reader_copies_says_how_to_make_them(lab, tmp_path):
    lab.READER_COPIES = tmp_path / "none"
    with pytest.raises(SystemExit, match="make book"):
        lab.prepare()


def test_lab_starts_as_any_user_without_nbgrader(lab, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(16)
    lab.sys.argv += [
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        f"--IdentityProvider.token={token}",
    ]
    command, environment = lab.prepare()
    environment["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    log = tmp_path / "lab.log"
    server = subprocess.Popen(
        command, env=environment, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):  # as root, this fails fast without --allow-root
            assert server.poll() is None, log.read_text()[-3000:]
            if get(f"{url}/api/status?token={token}")[0] == 200:
                break
            time.sleep(0.5)
        status, page = get(f"{url}/lab?token={token}")
        assert status == 200
        config = json.loads(
            re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S)[1]
        )
        assert "@jupyter/nbgrader" in config["disabledExtensions"]
        assert get(f"{url}/formgrader?token={token}")[0] == 404
    finally:
        server.terminate()
        server.wait(timeout=30)
