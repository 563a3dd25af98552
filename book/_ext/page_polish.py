"""Small fixes to every HTML page of the book.

- sphinx-thebe registers its inline configuration script twice under Jupyter Book 1, which
  redeclares `const THEBE_JS_URL` and throws a JavaScript error: keep one copy, and point it
  at the Thebe bundle served by the site (see vendor_assets.py) instead of a CDN. Thebe's
  MathJax 2 loader (from a CDN, for LaTeX outputs, which the book has none of) is off.
- Image sizes become `width`/`height` attributes (the browser reserves the space, so the
  page does not jump while images load) instead of a fixed CSS size that distorts images
  in a narrow column; images below the first screen load lazily.
- The theme's Font Awesome script is dropped: its icon font (already loaded) draws the same
  icons, and the script alone is half of a chapter's first-load budget. The icon fonts are
  cut down to the icons used, and the search index loads only on the search page.
- Bibliography entries are list items of their list (axe: aria-required-children).
- Code folds are announced to screen readers by their visible label ("Show the plotting
  code for Fig. 1.1"), not by myst-nb's "Toggle hidden content".
- An exercise heading carries its own number only ("Exercise 2.2: ..."), not the section
  number in front of it ("2.12.2. Exercise 2.2: ..."), in the page and its contents.
- A reference to a chapter without text of its own ({doc}`08-transformer`) reads
  "Chapter 8", not the chapter's whole title (reader_copies.py writes the same).
- The book's stylesheet, its small script (book.js: phone drawers, figure sizes) and the
  Live Code status script are added to every page.
"""

import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import docname_join

from reader_copies import chapter_numbers

STATIC = Path(__file__).parent / "static"
THEBE_URL = re.compile(r'const THEBE_JS_URL = "[^"]*"')
FOLD_LABEL = '<summary aria-label="Toggle hidden content">'
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
        ).replace(FOLD_LABEL, "<summary>")
        # An empty mathjaxUrl makes Thebe skip its CDN MathJax 2 loader.
        context["body"] = context["body"].replace(
            "requestKernel: true,", 'requestKernel: true, mathjaxUrl: "",'
        )
        # The bibliography is a role="list" whose entries carry the deprecated
        # "doc-biblioentry" role (axe: critical): they are list items.
        context["body"] = context["body"].replace(
            'role="doc-biblioentry"', 'role="listitem"'
        )


FONTAWESOME_JS = re.compile(
    r"<(script|link)[^>]*scripts/fontawesome\.js[^>]*>(</script>)?\n?"
)
# The theme loads the search index on every page for search-as-you-type, which the book
# leaves off: the search box opens search.html, which loads the index on the first search.
SEARCH_SCRIPTS = re.compile(
    r'[ \t]*<script src="[^"]*(searchtools|language_data|searchindex)\.js"></script>\n?'
)


# The section number in front of an exercise's own number, in a heading or a contents
# entry.
EXERCISE_SECTION_NUMBER = re.compile(
    r'(?:<span class="section-number">)?\d+(?:\.\d+)*\. (?:</span>)?(?=Exercise \d+\.\d)'
)


def _rewrite_pages(app, exception):
    """What the theme's templates write: the Font Awesome script they load directly,
    and the section numbers of the exercise headings in the pages' contents."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        slim = FONTAWESOME_JS.sub("", html)
        slim = EXERCISE_SECTION_NUMBER.sub("", slim)
        if page.name != "search.html" and not app.config.html_theme_options.get(
            "search_as_you_type"
        ):
            slim = SEARCH_SCRIPTS.sub("", slim)
        if slim != html:
            page.write_text(slim, encoding="utf-8")
    subset_icon_fonts(app.outdir)


class ChapterReferences(SphinxPostTransform):
    """{doc} references to a numbered chapter, with no text of their own: "Chapter N".
    Runs before Sphinx resolves them (its ReferencesResolver has priority 10)."""

    default_priority = 5

    def run(self):
        numbers = chapter_numbers(self.env)
        for xref in self.document.findall(nodes.Element):
            if xref.tagname != "pending_xref" or xref.get("reftype") != "doc":
                continue
            if xref.get("refexplicit"):
                continue
            doc = docname_join(xref.get("refdoc", ""), xref["reftarget"])
            if doc in numbers:
                xref["refexplicit"] = True
                literal = xref.children[0] if xref.children else None
                text = nodes.inline("", f"Chapter {numbers[doc]}", classes=["doc"])
                xref.replace(literal, text) if literal else xref.append(text)


def setup(app: Sphinx):
    app.add_post_transform(ChapterReferences)
    app.connect("build-finished", _rewrite_pages)
    app.connect("html-page-context", _fix_scripts, priority=900)
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("book.css")
    app.add_js_file("live-code-status.js", defer="defer")
    app.add_js_file("book.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}


ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:before,?)+)\{content:"\\([0-9a-f]+)"\}')
FONT_URL = re.compile(r"url\(\.\./vendor/fontawesome/webfonts/(fa-[a-z]+-\d+)\.woff2\)")


def subset_icon_fonts(outdir):
    """Font Awesome's three fonts (about 270 kB gzip) are cut down to the few icons the
    pages and scripts use, saved as WOFF (zlib; WOFF2 would need brotli), and the theme's
    stylesheet points at the subsets. Returns the bytes saved."""
    from fontTools import subset

    outdir = Path(outdir)
    css_path = outdir / "_static" / "styles" / "pydata-sphinx-theme.css"
    fonts = outdir / "_static" / "vendor" / "fontawesome" / "webfonts"
    if not css_path.is_file() or not fonts.is_dir():
        return 0
    css = css_path.read_text(encoding="utf-8")
    if "-book.woff" in css:  # already done (an incremental build)
        return 0
    used = set()
    for path in [*outdir.rglob("*.html"), *(outdir / "_static").rglob("*.js")]:
        used |= set(
            ICON_CLASS.findall(path.read_text(encoding="utf-8", errors="ignore"))
        )
    codepoints = set()
    for selectors, code in ICON_RULE.findall(css):
        if used & set(re.findall(r"\.(fa-[a-z0-9-]+):before", selectors)):
            codepoints.add(int(code, 16))
    saved = 0
    for font in fonts.glob("fa-*.ttf"):
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        source = subset.load_font(str(font), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codepoints)
        subsetter.subset(source)
        target = font.with_name(font.stem + "-book.woff")
        subset.save_font(source, str(target), options)
        saved += font.stat().st_size - target.stat().st_size
    css = FONT_URL.sub(
        r'url(../vendor/fontawesome/webfonts/\1-book.woff) format("woff")'
        r",url(../vendor/fontawesome/webfonts/\1.woff2)",
        css,
    )
    css_path.write_text(css, encoding="utf-8")
    return saved
