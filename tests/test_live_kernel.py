"""A student's view: JupyterLab (ipywidgets 8) runs a chapter and its slider redraws the figure."""

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.notebook  # and browser (conftest.py: from the fixture)

CHAPTER = "03-layernorm-backward.ipynb"  # a short chapter with a slider figure
KERNEL_IDLE = """() => {
    const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = widget && widget.sessionContext && widget.sessionContext.session
        && widget.sessionContext.session.kernel;
    return !!kernel && kernel.status === 'idle';
}"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path):
    """JupyterLab on 127.0.0.1 with a token, serving a copy of one chapter; yields its URL."""
    work, settings = (
        tmp_path / "work",
        tmp_path / "settings" / "@jupyterlab" / "notebook-extension",
    )
    work.mkdir()
    settings.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / CHAPTER, work / CHAPTER)
    # Render every cell (no windowing) so the test can see all outputs.
    (settings / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"})
    )
    port, token = free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"),
    )
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "jupyter"),
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={work}",
            f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "lab.log", "w"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            if server.poll() is not None:
                break
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(
                "JupyterLab did not start:\n"
                + (tmp_path / "lab.log").read_text()[-3000:]
            )
        yield url, token
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_slider_redraws_in_jupyterlab(browser, jupyterlab):
    url, token = jupyterlab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/lab/tree/{CHAPTER}?token={token}")
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # Every code cell has run once its model has an execution count (collapsed cells show
    # no prompt, so the notebook model is asked rather than the page).
    page.wait_for_function(
        """() => {
        const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
        let ran = cells.length > 0;
        for (let i = 0; i < cells.length; i++) {
            const cell = cells.get(i);
            if (cell.type === 'code' && !cell.executionCount) ran = false;
        }
        return ran;
    }""",
        timeout=600_000,
        polling=1000,
    )
    assert (
        page.locator(
            ".jp-Notebook .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"
        ).count()
        == 0
        and "Traceback" not in page.locator(".jp-Notebook").inner_text()
    ), "a cell raised an error"
    image = page.locator(".jp-Notebook img.widget-image").first
    image.wait_for(timeout=60_000)
    before = image.get_attribute("src")
    handle = page.locator(".jp-Notebook .widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([img, old]) => img.getAttribute('src') !== old",
        arg=[image.element_handle(), before],
        timeout=30_000,
    )
    assert image.get_attribute("src") != before
    assert errors == [], errors
    page.close()
