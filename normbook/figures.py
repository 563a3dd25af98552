# Figure helpers (the same in every chapter; see CONTRIBUTING.md).
# show_figure(fig) draws a figure twice: as laid out, and with its panels stacked
# for a phone's column; the page shows the one that fits, at twice the pixels for
# sharp screens. interactive_figure renders every frame over a control grid once,
# in both layouts. In a live kernel, ipywidgets controls swap the frames (only API
# shared by ipywidgets 7.7 and 8). The same output carries a kernel-free HTML
# version (range inputs, radio buttons and a few lines of JavaScript) that the
# static book shows instead.
import base64
import hashlib
import html
import io
import itertools
import json
import math
import re

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display
from matplotlib.transforms import ScaledTranslation
from PIL import Image

_CONTROLS_CSS = "display:flex;gap:0.75em;align-items:center;margin:0.2em 0"
PX_PER_INCH = 96  # a figure is shown at 96 CSS px per inch: 7 pt text is 9.3 px
DENSITY = 2  # rendered at twice that, for high-density screens
NARROW = 3.7  # inches: the book's column on a 390 px phone is 358 px


def _png(fig, crop=True):
    """Render `fig` to a palette PNG (about 3x smaller than matplotlib's RGBA),
    cropped to what it draws as Jupyter's inline backend crops it (or not: a stacked
    figure fills its width exactly)."""
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=PX_PER_INCH * DENSITY,
        facecolor="white",
        bbox_inches="tight" if crop else None,
    )
    image = Image.open(buf).convert("RGB")
    image = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="png", optimize=True)
    return out.getvalue()


def _css_size(png):
    """The size in CSS px at which a rendered PNG is shown."""
    width, height = Image.open(io.BytesIO(png)).size
    return width // DENSITY, height // DENSITY


def _wrap(text, chars):
    """Wrap a label at spaces into lines of about `chars` characters; math stays
    whole."""
    words, lines = re.findall(r"\$[^$]*\$\S*|\S+", text), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > chars:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    return "\n".join(lines)


def _fit_text(fig):
    """Wrap every title and axis label that is longer than its panel, and a
    figure title longer than the figure."""
    renderer = fig.canvas.get_renderer()
    labels = [(fig._suptitle, fig.bbox.width, "width")] if fig._suptitle else []
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        labels += [
            (ax.title, box.width, "width"),
            (ax.xaxis.label, box.width, "width"),
            (ax.yaxis.label, box.height, "height"),
        ]
    for label, room, along in labels:
        lines = label.get_text().split("\n")
        size = getattr(label.get_window_extent(renderer), along)
        if any(lines) and size > room:
            chars = int(max(map(len, lines)) * room / size)
            label.set_text("\n".join(_wrap(line, chars) for line in lines))


def _outside(legend, ax):
    """Whether an axes' legend is anchored outside its panel."""
    box = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    return box.x0 >= 1 or box.x1 <= 0 or box.y0 >= 1 or box.y1 <= 0


def _replace(legend, make, room):
    """Replace `legend` by make(handles, labels, ncol=..., **its style), in as many
    columns as fit `room` pixels wide."""
    texts, renderer = legend.get_texts(), legend.figure.canvas.get_renderer()
    labels, size = [t.get_text() for t in texts], texts[0].get_fontsize()
    style = dict(
        fontsize=size,
        title=legend.get_title().get_text() or None,
        title_fontsize=size,
        frameon=False,
        markerscale=legend.markerscale,
        handlelength=legend.handlelength,
    )
    handles = legend.legend_handles
    legend.remove()
    for ncol in range(len(labels), 0, -1):
        new = make(handles, labels, ncol=ncol, **style)
        if ncol == 1 or new.get_window_extent(renderer).width <= room:
            return new
        new.remove()


def _under(ax, legend):
    """Move an axes' legend (hidden) under its panel, below the tick labels and the
    axis label."""
    fig, renderer = ax.figure, ax.figure.canvas.get_renderer()
    gap = ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0
    shift = ScaledTranslation(0, -(gap / fig.dpi + 0.05), fig.dpi_scale_trans)
    place = dict(loc="upper center", bbox_to_anchor=(0.5, 0))
    place["bbox_transform"] = ax.transAxes + shift
    return _replace(legend, lambda *a, **k: ax.legend(*a, **place, **k), ax.bbox.width)


def _grid(panels):
    """The rows and columns the panels are laid out in, and their reading order:
    from their subplot specs, or from where they sit for panels placed by hand."""
    specs = [ax.get_subplotspec() for ax in panels]
    if None not in specs:
        rows, cols = specs[0].get_gridspec().get_geometry()
        cells = [(spec.rowspan.start, spec.colspan.start) for spec in specs]
    else:
        boxes = [ax.get_position() for ax in panels]
        tops = sorted({round(-box.y1, 2) for box in boxes})
        lefts = sorted({round(box.x0, 2) for box in boxes})
        rows, cols = len(tops), len(lefts)
        cells = [
            (tops.index(round(-b.y1, 2)), lefts.index(round(b.x0, 2))) for b in boxes
        ]
    return rows, cols, sorted(range(len(panels)), key=cells.__getitem__)


def stack(fig, width=NARROW):
    """Lay `fig` out again for a phone: its panels in reading order, as many to a row
    as fit `width` inches at their width, each row as tall as before; every tick
    label shown; colorbars beside their panel; figure legends under the panels, an
    axes' legend outside its panel or wider than most of it under that panel; labels
    longer than their panel wrapped."""
    colorbars = [ax._colorbar for ax in fig.axes if hasattr(ax, "_colorbar")]
    bars = [(cb.mappable, cb.ax.get_ylabel() or cb.ax.get_xlabel()) for cb in colorbars]
    for colorbar in colorbars:  # drawn again beside their panel once it has moved
        colorbar.remove()
    panels = [ax for ax in fig.axes if not hasattr(ax, "_colorbar")]
    if not panels:
        return fig
    rows, cols, order = _grid(panels)
    fig_width, fig_height = fig.get_size_inches()
    per_row = max(1, min(cols, math.floor((width + 0.2) / (fig_width / cols))))
    new_rows, row_height = math.ceil(len(panels) / per_row), fig_height / rows
    renderer = fig.canvas.get_renderer()
    room = 0.8 * width / per_row * fig.dpi  # most of a stacked panel, in pixels
    under = [
        (ax, legend)
        for ax in panels
        if (legend := ax.get_legend())
        and (_outside(legend, ax) or legend.get_window_extent(renderer).width > room)
    ]
    for _, legend in under:  # out of the layout until it has its place
        legend.set_visible(False)
    fig.set_layout_engine("constrained")
    fig.set_size_inches(width, new_rows * row_height)
    grid = fig.add_gridspec(new_rows, per_row)
    for slot, k in enumerate(order):
        ax = panels[k]
        ax.set_subplotspec(grid[slot // per_row, slot % per_row])
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.yaxis.set_tick_params(labelleft=True)
    for mappable, label in bars:
        fig.colorbar(mappable, ax=mappable.axes, label=label)
    for legend in list(fig.legends):
        below = dict(loc="outside lower center")
        _replace(legend, lambda *a, **k: fig.legend(*a, **below, **k), fig.bbox.width)
    fig.draw_without_rendering()
    extra = {}  # inches each row of panels needs for the legends under them
    for ax, legend in under:
        moved = _under(ax, legend)
        row = order.index(panels.index(ax)) // per_row
        need = moved.get_window_extent(renderer).height / fig.dpi + 0.1
        extra[row] = max(extra.get(row, 0), need)
    legends = sum(legend.get_window_extent(renderer).height for legend in fig.legends)
    height = new_rows * row_height + sum(extra.values()) + legends / fig.dpi
    fig.set_size_inches(width, height)
    fig.draw_without_rendering()
    _fit_text(fig)
    return fig


def _layouts(fig, phone=None):
    """The figure as laid out and for a phone (`phone`, or `fig` stacked), as PNGs;
    closes them. The phone's is None when the figure already fits its column."""
    wide = _png(fig)
    narrow = None
    if phone is not None:
        narrow = _png(phone, crop=False)
        plt.close(phone)
    elif _css_size(wide)[0] > NARROW * PX_PER_INCH:
        narrow = _png(stack(fig), crop=False)
    plt.close(fig)
    return wide, narrow


def _data_url(png):
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _phone(wide_width):
    """The media query of the screens that show a figure's stacked layout: those on
    which the laid-out one would be narrower than drawn (the column has 32 px of
    margins; print always gets the laid-out one)."""
    return f"screen and (max-width: {wide_width + 31}px)"


def show_figure(fig, phone=None):
    """Show `fig` whole on any screen: the laid-out figure, and on a phone the same
    figure with its panels stacked (a <picture> the page and JupyterLab pick from).
    `phone`: a figure drawn for a phone's column (NARROW inches wide) to show there
    instead, for a picture that stacking cannot rearrange (a diagram). The book adds
    the alt text from the cell's metadata (mystnb.image.alt)."""
    wide, narrow = _layouts(fig, phone)
    width, height = _css_size(wide)
    source = ""
    if narrow is not None:
        n_width, n_height = _css_size(narrow)
        source = (
            f'<source media="{_phone(width)}" srcset="{_data_url(narrow)}" '
            f'width="{n_width}" height="{n_height}">'
        )
    display(
        {
            "text/html": f'<picture class="figure-pair">{source}<img src='
            f'"{_data_url(wide)}" width="{width}" height="{height}" alt=""></picture>',
            "text/plain": f"Figure ({width}x{height} px"
            + (", stacked on a phone)" if narrow else ")"),
        },
        raw=True,
    )


def _is_category(options):
    return all(isinstance(value, str) for value in options)


def _static_control(k, name, labels, category):
    """A native control: radio buttons for categories, a range input for numbers."""
    labels = [html.escape(label) for label in labels]
    if category:
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
        f'<input data-control="{k}" type="range" min="0" max="{len(labels) - 1}" '
        f'step="1" value="0" aria-valuetext="{labels[0]}" style="flex:1">'
        f'<output style="min-width:4em">{labels[0]}</output></label>'
    )


def _live_control(name, labels, category):
    pairs = [(label, i) for i, label in enumerate(labels)]
    if category:
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
  const source = root.querySelector("source");
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
    if (source) source.srcset = data.stacked[index];
    img.src = data.frames[index];
    img.alt = data.alt + " (" + data.labels.map((l, k) => data.names[k] + ": "
      + l[position(k)]).join(", ") + ")";
    root.dataset.frame = index;
  };
  root.querySelectorAll("input").forEach((el) => el.addEventListener("input", show));
  root.querySelectorAll("input").forEach((el) => el.addEventListener("change", show));
})();"""


def interactive_figure(
    draw, sliders, title, figsize=(7.5, 3.2), alt=None, formats=None
):
    """Show `draw(fig, **values)` for every combination of control values.

    sliders: {name: list of values}, e.g. {"depth": [5, 10, 20], "act": ["tanh",
    "relu"]}; lists of strings become radio buttons, others sliders. A name is the
    keyword `draw` receives; readers see it with spaces for underscores ("branch_scale"
    reads "branch scale"). formats: {name: format}, how a control writes its values
    (e.g. "{:.3f}", as the text and tables write them; default str). `alt` describes
    the figure for screen readers (default: the title). Each frame is drawn as laid
    out and, for a phone, stacked (see `show_figure`). Returns the laid-out frames
    (bytes, row-major over `sliders`) for checks.
    """
    names, choices = list(sliders), list(sliders.values())
    formats = formats or {}
    labels = [[formats.get(n, "{}").format(v) for v in vs] for n, vs in sliders.items()]
    categories = [_is_category(options) for options in choices]
    frames, stacked = [], []
    for values in itertools.product(*choices):
        fig = plt.figure(figsize=figsize)
        draw(fig, **dict(zip(names, values)))
        wide, narrow = _layouts(fig)
        frames.append(wide)
        stacked.append(narrow)

    def frame_index(positions):
        index = 0
        for position, options in zip(positions, choices):
            index = index * len(options) + position
        return index

    # Live kernel: ipywidgets controls swap the pre-rendered frames.
    width, height = _css_size(frames[0])
    image = widgets.Image(value=frames[0], format="png")
    image.layout.width = f"{width}px"
    image.layout.max_width = "100%"
    shown = [name.replace("_", " ") for name in names]  # the controls' labels
    controls = [_live_control(*control) for control in zip(shown, labels, categories)]

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
    data = {
        "frames": [_data_url(frame) for frame in frames],
        "names": shown,
        "labels": labels,
        "alt": alt,
    }
    source = ""
    if stacked[0] is not None:
        data["stacked"] = [_data_url(frame) for frame in stacked]
        n_width, n_height = _css_size(stacked[0])
        source = (
            f'<source media="{_phone(width)}" srcset="{data["stacked"][0]}" '
            f'width="{n_width}" height="{n_height}">'
        )
    controls_html = "".join(
        _static_control(k, *control).replace("{uid}", uid)
        for k, control in enumerate(zip(shown, labels, categories))
    )
    first_alt = html.escape(
        alt + " (" + ", ".join(f"{n}: {o[0]}" for n, o in zip(shown, labels)) + ")"
    )
    fallback = (
        f'<div class="interactive-figure" id="{uid}">\n'
        f"<p><b>{html.escape(title)}</b></p>{controls_html}\n"
        f'<picture>{source}<img alt="{first_alt}" width="{width}" height="{height}" '
        f'style="max-width:100%;height:auto" src="{data["frames"][0]}"></picture>\n'
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
