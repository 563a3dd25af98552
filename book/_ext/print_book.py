"""The whole book as one PDF (`make pdf`): Sphinx's single-page build of the same
sources (every chapter with its math, figures, numbered cross-references and the
bibliography) printed by Chromium, the browser the tests already use. An interactive
figure prints as the still it shows first; folded code stays folded.

  python book/_ext/print_book.py [BUILD]   BUILD/singlehtml -> BUILD/html/book.pdf

The PDF goes beside the site, which links to it (intro.md). Printing fails if a figure
did not load, if MathJax reports an error, or if a cross-reference is unresolved.
"""

import shutil
import sys
from pathlib import Path

# Flags a sandboxed, offline machine needs: no sandbox (root), no GPU, no background
# requests to Google's services.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CHROMIUM = next(
    filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))),
    None,
)

# Before printing: every image loads now (the site loads those below the first
# screen lazily), then MathJax finishes typesetting. Returns what did not work.
PREPARE = """async () => {
  for (const img of document.images) img.loading = "eager";
  await Promise.all([...document.images].map(img => img.complete ? null :
    new Promise(done => { img.onload = img.onerror = done; })));
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  return {
    images: document.images.length,
    broken: [...document.images].filter(i => !i.naturalWidth).map(i => i.src),
    math: document.querySelectorAll("mjx-container").length,
    mathErrors: document.querySelectorAll("mjx-merror").length,
    unresolved: [...document.querySelectorAll("span.xref, a.xref")]
      .filter(e => !e.closest("a[href]")).map(e => e.textContent),
  };
}"""

FRAMES = 'src="../_images/frames/'


class PrintError(Exception):
    pass


def print_book(build=Path("_build"), browser=None):
    """Print BUILD/singlehtml's page to BUILD/html/book.pdf; returns the page's facts
    (images, formulas, the PDF's path and its pages). `browser`: a Playwright Chromium
    already running (the tests' own: one sync Playwright per process), else one of its
    own."""
    single = build / "singlehtml"
    # The single page is written as book/intro.html but links its assets as if it
    # stood at the top of the folder: put it there.
    # The interactive figures' frames are the site's files (notebook_filters.py writes
    # them while the site's pages are read, and the single page reuses those pages).
    page = single / "book.html"
    html = (single / "book" / "intro.html").read_text(encoding="utf-8")
    page.write_text(
        html.replace(FRAMES, 'src="../html/_images/frames/'), encoding="utf-8"
    )
    out = build / "html" / "book.pdf"
    out.parent.mkdir(parents=True, exist_ok=True)
    if browser is None:
        from playwright.sync_api import sync_playwright

        if not CHROMIUM:
            raise PrintError("no Chromium (install Debian's chromium: `make browser`)")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            facts = _print(chromium, page, out)
            chromium.close()
    else:
        facts = _print(browser, page, out)
    problems = []
    if facts["broken"]:
        problems.append(
            f"{len(facts['broken'])} figures missing: {facts['broken'][:3]}"
        )
    if facts["mathErrors"]:
        problems.append(f"{facts['mathErrors']} MathJax errors")
    if facts["unresolved"]:
        problems.append(f"unresolved references: {facts['unresolved'][:5]}")
    if problems:
        raise PrintError("; ".join(problems))
    return dict(facts, pdf=out, pages=pdf_pages(out))


def _print(browser, page, out):
    tab = browser.new_page()
    tab.emulate_media(media="print")
    tab.goto(page.resolve().as_uri(), wait_until="load", timeout=180_000)
    facts = tab.evaluate(PREPARE)
    tab.pdf(
        path=str(out),
        format="A4",
        print_background=True,
        margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"},
        display_header_footer=True,
        header_template="<span></span>",
        footer_template=(
            '<div style="font-size:8px;width:100%;text-align:center">'
            '<span class="pageNumber"></span></div>'
        ),
    )
    tab.close()
    return facts


def pdf_pages(path):
    """The page count, read from the PDF's page tree (Chromium writes one /Count)."""
    import re

    counts = re.findall(rb"/Type\s*/Pages\b[^>]*?/Count (\d+)", path.read_bytes())
    counts += re.findall(rb"/Count (\d+)[^>]*?/Type\s*/Pages\b", path.read_bytes())
    if not counts:
        raise PrintError(f"{path}: no page tree")
    return max(int(c) for c in counts)


if __name__ == "__main__":
    build = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("_build")
    try:
        facts = print_book(build)
    except PrintError as error:
        raise SystemExit(f"make pdf: {error}")
    print(
        f"make pdf: {facts['pdf']}: {facts['pages']} pages, {facts['images']} "
        f"figures, {facts['math']} formulas"
    )
