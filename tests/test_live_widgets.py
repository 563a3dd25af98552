"""The interactive-figure helper in a live kernel, as a front end drives it.

For each environment (the pinned one, with ipywidgets 8, and the Colab stack, with
ipywidgets 7.7.1) a kernel runs the helper on a small figure with a slider and radio
buttons. The test then talks the widget protocol as JupyterLab or Colab would: it checks the
displayed view points at a live widget, moves the slider and the radio buttons by sending
state updates, and checks that the kernel answers with the right pre-rendered frame.
(tests/test_live_kernel.py drives a real JupyterLab with ipywidgets 8 in a browser.)
"""

import hashlib
import json
import os
import queue
import sys

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import ROOT, require

FIGURE = """
import matplotlib
matplotlib.use("Agg")
import numpy as np
def draw(fig, gain, kind):
    ax = fig.add_subplot()
    x = np.linspace(-3, 3, 50)
    ax.plot(x, np.tanh(gain * x) if kind == "tanh" else np.maximum(gain * x, 0))
    ax.set_ylim(-1, 6)
frames = interactive_figure(draw, {"gain": [0.5, 1, 2], "kind": ["tanh", "relu"]}, "test")
"""


pytestmark = pytest.mark.notebook


def python_of(name):
    if name == "pinned":
        return sys.executable
    python = os.environ.get("STANDALONE_PYTHON")
    require(python, "STANDALONE_PYTHON is not set (`make test` sets it)")
    return python


def drain(client, timeout=60):
    messages = []
    while True:
        try:
            messages.append(client.get_iopub_msg(timeout=timeout))
        except queue.Empty:
            return messages
        if (
            messages[-1]["msg_type"] == "status"
            and messages[-1]["content"]["execution_state"] == "idle"
        ):
            return messages


def run(client, code):
    client.execute(code)
    return drain(client)


def sha1_of(client, expression):
    messages = run(client, f"print(hashlib.sha1({expression}).hexdigest())")
    return next(
        m["content"]["text"].strip() for m in messages if m["msg_type"] == "stream"
    )


@pytest.mark.parametrize(
    "name", ["pinned", pytest.param("colab-stack", marks=pytest.mark.colab)]
)
def test_controls_swap_frames_in_a_live_kernel(tmp_path, name):
    python = python_of(name)
    kernels = tmp_path / "kernels" / "live"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [
            python,
            "-Xfrozen_modules=off",
            "-m",
            "ipykernel_launcher",
            "-f",
            "{connection_file}",
        ],
        "display_name": name,
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    os.environ["JUPYTER_PATH"] = str(tmp_path)
    manager, client = start_new_kernel(kernel_name="live")
    try:
        helper = (ROOT / "normbook" / "figures.py").read_text()
        assert not [m for m in run(client, helper) if m["msg_type"] == "error"]
        messages = run(client, FIGURE + "import hashlib")
        errors = [m["content"] for m in messages if m["msg_type"] == "error"]
        assert not errors, errors
        models = {
            m["content"]["comm_id"]: m["content"]["data"]["state"]
            for m in messages
            if m["msg_type"] == "comm_open"
        }
        shown = [
            m["content"]["data"] for m in messages if m["msg_type"] == "display_data"
        ]
        assert len(shown) == 1 and "text/html" in shown[0]
        view = shown[0]["application/vnd.jupyter.widget-view+json"]
        assert models[view["model_id"]]["_model_name"] == "VBoxModel"
        by_kind = {state["_model_name"]: comm for comm, state in models.items()}
        slider, radio = by_kind["SelectionSliderModel"], by_kind["ToggleButtonsModel"]
        image = by_kind["ImageModel"]

        for control, index, frame in [(slider, 2, 4), (radio, 1, 5), (slider, 0, 1)]:
            # What a front end sends when the reader moves a control.
            content = {
                "comm_id": control,
                "data": {
                    "method": "update",
                    "state": {"index": index},
                    "buffer_paths": [],
                },
            }
            client.shell_channel.send(client.session.msg("comm_msg", content))
            updates = [
                m
                for m in drain(client, timeout=10)
                if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == image
            ]
            assert updates, f"{name}: moving a control did not update the image"
            sent = updates[-1]["buffers"][0]
            assert hashlib.sha1(sent).hexdigest() == sha1_of(
                client, f"frames[{frame}]"
            ), f"{name}: the image shows the wrong frame after a control moved"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
