# Interactive figure helper: the single source of the cell tagged
# "interactive-figure-helper" in every chapter (`make sync-helper` copies it in).
# Every frame over the slider grid is rendered once, as a compact PNG.  A live
# kernel shows ipywidgets sliders that swap those frames; the same output also
# carries a kernel-free HTML version (range inputs + a few lines of JavaScript)
# that the static book shows instead.
import base64
import hashlib
import io
import itertools
import json

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display
from PIL import Image


def _png(fig, dpi):
    """Render `fig` to a palette PNG (about 3x smaller than matplotlib's RGBA)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    image = Image.open(buf).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="png", optimize=True)
    return out.getvalue()


def interactive_figure(draw, sliders, title, figsize=(8, 3.5), dpi=80):
    """Show `draw(fig, **values)` for every combination of slider values.

    sliders: {name: list of values}, e.g. {"depth": [5, 10, 20], "act": ["tanh", "relu"]}.
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

    # Live kernel: ipywidgets sliders swap the pre-rendered frames.
    image = widgets.Image(value=frames[0], format="png")
    controls = [widgets.SelectionSlider(options=[(str(v), i) for i, v in enumerate(options)],
                                        description=name, continuous_update=True,
                                        style={"description_width": "8em"})
                for name, options in sliders.items()]

    def update(_change):
        image.value = frames[frame_index([c.value for c in controls])]

    for control in controls:
        control.observe(update, names="value")
    live = widgets.VBox([widgets.HTML(f"<b>{title}</b>"), *controls, image])

    # Static page: the same frames behind native range inputs.
    uid = "ifig-" + hashlib.sha1(b"".join(frames)).hexdigest()[:10]
    inputs = "".join(
        f'<label style="display:flex;gap:0.75em;align-items:center"><span style="min-width:8em">{name}</span>'
        f'<input type="range" min="0" max="{len(options) - 1}" step="1" value="0" aria-label="{name}">'
        f'<output>{options[0]}</output></label>'
        for name, options in sliders.items())
    data = json.dumps({"frames": [base64.b64encode(f).decode() for f in frames],
                       "labels": [[str(v) for v in options] for options in choices]})
    fallback = f"""<div class="interactive-figure" id="{uid}">
<p><b>{title}</b></p>{inputs}
<img alt="{title}" style="max-width:100%" src="data:image/png;base64,{base64.b64encode(frames[0]).decode()}">
<script type="application/json">{data}</script>
<script>(function () {{
  const root = document.getElementById("{uid}");
  const data = JSON.parse(root.querySelector('script[type="application/json"]').textContent);
  const inputs = Array.from(root.querySelectorAll("input[type=range]"));
  const show = () => {{
    let index = 0;
    inputs.forEach((input, k) => {{
      index = index * data.labels[k].length + Number(input.value);
      input.nextElementSibling.textContent = data.labels[k][Number(input.value)];
    }});
    root.querySelector("img").src = "data:image/png;base64," + data.frames[index];
    root.dataset.frame = index;
  }};
  inputs.forEach((input) => input.addEventListener("input", show));
}})();</script></div>"""

    bundle = live._repr_mimebundle_()
    bundle["text/html"] = fallback
    bundle["text/plain"] = f"Interactive figure: {title} ({len(frames)} frames)"
    display(bundle, raw=True)
    return frames
