"""Small fixes to every HTML page of the book.

- sphinx-thebe registers its inline configuration script twice under Jupyter Book 1, which
  redeclares `const THEBE_JS_URL` and throws a JavaScript error: keep one copy, and point it
  at the Thebe bundle served by the site (see vendor_assets.py) instead of a CDN.
- Image sizes become `width`/`height` attributes (the browser reserves the space, so the
  page does not jump while images load) instead of a fixed CSS size that distorts images
  in a narrow column; images below the first screen load lazily.
- The theme's Font Awesome script is dropped: its icon font (already loaded) draws the same
  icons, and the script alone is half of a chapter's first-load budget.
- The book's stylesheet and the Live Code status script are added to every page.
"""

import re
from pathlib import Path

from sphinx.application import Sphinx

STATIC = Path(__file__).parent / "static"
THEBE_URL = re.compile(r'const THEBE_JS_URL = "[^"]*"')
SIZED_IMG = re.compile(
    r'<img (?P<before>[^>]*?)style="width: (?P<w>[\d.]+)px; height: (?P<h>[\d.]+)px;"'
)


def _fix_scripts(app, pagename, templatename, context, doctree):
    thebe = context["pathto"]("_static/thebe/index.js", 1)
    seen, unique = set(), []
    for script in context.get("script_files", []):
        body = getattr(script, "attributes", {}).get("body")
        if body and "THEBE_JS_URL" in body:
            script.attributes["body"] = THEBE_URL.sub(
                f'const THEBE_JS_URL = "{thebe}"', body
            )
        # The copies differ only in filename None versus "".
        key = (
            getattr(script, "filename", script) or "",
            tuple(sorted(getattr(script, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique
    if "body" in context:
        context["body"] = SIZED_IMG.sub(
            lambda m: (
                f'<img {m["before"]}width="{round(float(m["w"]))}" '
                f'height="{round(float(m["h"]))}" loading="lazy" '
            ),
            context["body"],
        )


FONTAWESOME_JS = re.compile(
    r"<(script|link)[^>]*scripts/fontawesome\.js[^>]*>(</script>)?\n?"
)


def _drop_fontawesome_js(app, exception):
    """The theme's template loads this script directly, so remove it from the pages."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        slim = FONTAWESOME_JS.sub("", html)
        if slim != html:
            page.write_text(slim, encoding="utf-8")


def setup(app: Sphinx):
    app.connect("build-finished", _drop_fontawesome_js)
    app.connect("html-page-context", _fix_scripts, priority=900)
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("book.css")
    app.add_js_file("live-code-status.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
