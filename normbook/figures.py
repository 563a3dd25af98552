# Interactive figure helper (the same in every chapter; see the book's README).
# Every frame over the control grid is rendered once, as a compact PNG. In a live
# kernel, ipywidgets controls swap the frames (only API shared by ipywidgets 7.7
# and 8). The same output carries a kernel-free HTML version (range inputs, radio
# buttons and a few lines of JavaScript) that the static book shows instead.
import base64
import hashlib
import html
import io
import itertools
import json

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display
from PIL import Image

_CONTROLS_CSS = "display:flex;gap:0.75em;align-items:center;margin:0.2em 0"


def _png(fig, dpi):
    """Render `fig` to a palette PNG (about 3x smaller than matplotlib's RGBA)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    image = Image.open(buf).convert("RGB")
    image = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="png", optimize=True)
    return out.getvalue()


def _is_category(options):
    return all(isinstance(value, str) for value in options)


def _static_control(k, name, options):
    """A native control: radio buttons for categories, a range input for numbers."""
    labels = [html.escape(str(value)) for value in options]
    if _is_category(options):
        radios = "".join(
            f'<label style="margin-right:1em"><input type="radio" name="{{uid}}-{k}" '
            f'value="{i}"{" checked" if i == 0 else ""}> {label}</label>'
            for i, label in enumerate(labels)
        )
        return (
            f'<fieldset data-control="{k}" style="border:0;padding:0;margin:0.2em 0">'
            f'<legend style="float:left;min-width:8em;padding:0">{html.escape(name)}'
            f"</legend>{radios}</fieldset>"
        )
    return (
        f'<label style="{_CONTROLS_CSS}"><span style="min-width:8em">'
        f"{html.escape(name)}</span>"
        f'<input data-control="{k}" type="range" min="0" max="{len(options) - 1}" '
        f'step="1" value="0" aria-valuetext="{labels[0]}" style="flex:1">'
        f'<output style="min-width:4em">{labels[0]}</output></label>'
    )


def _live_control(name, options):
    pairs = [(str(value), i) for i, value in enumerate(options)]
    if _is_category(options):
        return widgets.ToggleButtons(
            options=pairs, description=name, style={"description_width": "8em"}
        )
    return widgets.SelectionSlider(
        options=pairs,
        description=name,
        continuous_update=True,
        style={"description_width": "8em"},
        layout=widgets.Layout(width="100%"),
    )


_SCRIPT = """(function () {
  const root = document.getElementById("UID");
  const data = JSON.parse(root.querySelector("script[type='application/json']").text);
  const img = root.querySelector("img");
  const position = (k) => {
    const box = root.querySelector("[data-control='" + k + "']");
    if (box.tagName === "INPUT") return Number(box.value);
    return Number(box.querySelector("input:checked").value);
  };
  const show = () => {
    let index = 0;
    data.labels.forEach((labels, k) => {
      const p = position(k);
      index = index * labels.length + p;
      const range = root.querySelector("input[type=range][data-control='" + k + "']");
      if (range) {
        range.setAttribute("aria-valuetext", labels[p]);
        range.nextElementSibling.textContent = labels[p];
      }
    });
    img.src = data.frames[index];
    img.alt = data.alt + " (" + data.labels.map((l, k) => data.names[k] + ": "
      + l[position(k)]).join(", ") + ")";
    root.dataset.frame = index;
  };
  root.querySelectorAll("input").forEach((el) => el.addEventListener("input", show));
  root.querySelectorAll("input").forEach((el) => el.addEventListener("change", show));
})();"""


def interactive_figure(draw, sliders, title, figsize=(7.5, 3.2), dpi=144, alt=None):
    """Show `draw(fig, **values)` for every combination of control values.

    sliders: {name: list of values}, e.g. {"depth": [5, 10, 20], "act": ["tanh",
    "relu"]}; lists of strings become radio buttons, others sliders. A name is the
    keyword `draw` receives; readers see it with spaces for underscores ("branch_scale"
    reads "branch scale"). `alt` describes
    the figure for screen readers (default: the title). Frames are rendered at `dpi`
    and shown at half that density, so they stay sharp on high-DPI screens.
    Returns the rendered frames (bytes, row-major over `sliders`) for checks.
    """
    names, choices = list(sliders), list(sliders.values())
    frames = []
    for values in itertools.product(*choices):
        fig = plt.figure(figsize=figsize)
        draw(fig, **dict(zip(names, values)))
        frames.append(_png(fig, dpi))

    def frame_index(positions):
        index = 0
        for position, options in zip(positions, choices):
            index = index * len(options) + position
        return index

    # Live kernel: ipywidgets controls swap the pre-rendered frames.
    image = widgets.Image(value=frames[0], format="png")
    image.layout.width = f"{round(figsize[0] * dpi / 2)}px"
    image.layout.max_width = "100%"
    shown = [name.replace("_", " ") for name in names]  # the controls' labels
    controls = [_live_control(name, options) for name, options in zip(shown, choices)]

    def update(_change):
        image.value = frames[frame_index([c.value for c in controls])]

    for control in controls:
        control.observe(update, names="value")
    live = widgets.VBox(
        [widgets.HTML(f"<b>{html.escape(title)}</b>"), *controls, image]
    )

    # Static page: the same frames behind native controls.
    uid = "ifig-" + hashlib.sha1(b"".join(frames)).hexdigest()[:10]
    alt = alt or title
    urls = ["data:image/png;base64," + base64.b64encode(f).decode() for f in frames]
    data = {
        "frames": urls,
        "names": shown,
        "labels": [[str(v) for v in options] for options in choices],
        "alt": alt,
    }
    controls_html = "".join(
        _static_control(k, name, options).replace("{uid}", uid)
        for k, (name, options) in enumerate(zip(shown, choices))
    )
    width, height = (round(size * dpi / 2) for size in figsize)
    first_alt = html.escape(
        alt + " (" + ", ".join(f"{n}: {o[0]}" for n, o in zip(shown, choices)) + ")"
    )
    fallback = (
        f'<div class="interactive-figure" id="{uid}">\n'
        f"<p><b>{html.escape(title)}</b></p>{controls_html}\n"
        f'<img alt="{first_alt}" width="{width}" height="{height}" '
        f'style="max-width:100%;height:auto" src="{urls[0]}">\n'
        f'<script type="application/json">{json.dumps(data)}</script>\n'
        f"<script>{_SCRIPT.replace('UID', uid)}</script></div>"
    )
    bundle = {
        "application/vnd.jupyter.widget-view+json": live.get_view_spec(),
        "text/html": fallback,
        "text/plain": f"Interactive figure: {title} ({len(frames)} frames)",
    }
    display(bundle, raw=True)
    return frames
