"""The static book in a real browser, with the network unused: no JavaScript errors,
math typeset, and every kernel-free slider shows the right pre-rendered frame. With
--screenshots (make test-browser-matrix) the layout check saves every chapter's page,
whole, at each width and colour scheme into _build/test-artifacts/screenshots for a
person to look at."""

import gzip
import json
import re
from pathlib import Path

import pytest

from conftest import require, serve, toc_files

CHAPTERS = [e for e in toc_files() if e.startswith("notebooks/")]
WIDTHS, SCHEMES = (390, 1400), ("light", "dark")


def matrix(entries, chosen):
    """(entry, width, scheme) for every page, width and colour scheme. `make test` runs
    the combinations chosen(k, width, scheme) picks for the k-th page; the others are
    marked browser_matrix (`make test-browser-matrix` runs the whole matrix)."""
    return [
        pytest.param(
            entry,
            width,
            scheme,
            id=f"{entry}-{width}-{scheme}",
            marks=[] if chosen(k, width, scheme) else [pytest.mark.browser_matrix],
        )
        for k, entry in enumerate(entries)
        for width in WIDTHS
        for scheme in SCHEMES
    ]


def phone_light_desktop_dark(k, width, scheme):
    """The layout check: every chapter on a phone in the light scheme and on a desktop
    in the dark one."""
    return (width == 390) == (scheme == "light")


def desktop_light_and_dark_in_turn(k, width, scheme):
    """axe: every page once, on a desktop, light and dark in turn page by page."""
    return width == 1400 and k % 2 == (scheme == "dark")


# Visible text outside code blocks must not contain raw TeX once MathJax has run.
VISIBLE_TEXT = """() => {
  const main = document.querySelector('main').cloneNode(true);
  main.querySelectorAll('pre, code, script, style, mjx-container, .interactive-figure').forEach(e => e.remove());
  return main.textContent;
}"""


@pytest.fixture(scope="module")
def site(built_book):
    with serve(built_book) as url:
        yield url


def recording_page(browser, site):
    """A page that may only talk to the local server; records errors and outside
    requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors, page.outside, page.requests = [], [], []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))

    def route(request_route):
        url = request_route.request.url
        if url.startswith(site) or url.startswith("data:"):
            request_route.continue_()
        else:
            page.outside.append(url)
            request_route.abort()

    page.route("**/*", route)
    return page


@pytest.fixture
def page(browser, site):
    page = recording_page(browser, site)
    yield page
    page.context.close()


def offline(page, site):
    """Let the page load what the site serves and nothing else."""
    page.route(
        "**/*", lambda r: r.continue_() if r.request.url.startswith(site) else r.abort()
    )


def open_page(page, site, entry):
    page.goto(f"{site}/{entry}.html", wait_until="load")
    page.evaluate("() => document.fonts.ready")
    if page.locator(
        "script[src*='mathjax']"
    ).count():  # Sphinx loads MathJax only where there is math
        page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
        )
        page.evaluate("() => MathJax.startup.promise")


# Layout shifts caused by images (MathJax typesetting text also moves it; not counted).
IMAGE_SHIFTS = """window.__shift = 0; new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      if (!e.hadRecentInput && (e.sources || []).some(s => s.node
          && (s.node.nodeName === 'IMG' || (s.node.querySelector
              && s.node.querySelector(':scope > img')))))
        window.__shift += e.value;
    }}).observe({type: 'layout-shift', buffered: true});"""


def read_as_a_reader(browser, site, entry):
    """A page as the reading checks open it: 1280 px, errors and requests recorded."""
    page = recording_page(browser, site)
    open_page(page, site, entry)
    return page


def read_on_a_desktop(browser, site, entry):
    """A page at 1400 px, offline; every request and image layout shift recorded."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.requested = []
    page.on("request", lambda request: page.requested.append(request.url))
    offline(page, site)
    page.add_init_script(IMAGE_SHIFTS)
    open_page(page, site, entry)
    page.wait_for_timeout(500)
    return page


# Checks that only read a page share one load of it (conftest.py's SHARED_LOAD hands a
# page's reading checks of one kind to one worker, one after the other).
READINGS = {"reader": read_as_a_reader, "desktop": read_on_a_desktop}


@pytest.fixture(scope="module")
def opened(browser, site):
    """opened(entry, kind): the page as READINGS[kind] opens it, opened by the first
    check that asks and kept for the next ones; another page closes it."""
    current = {}

    def open_for(entry, kind):
        if (entry, kind) not in current:
            for page in current.values():
                page.context.close()
            current.clear()
            current[(entry, kind)] = READINGS[kind](browser, site, entry)
        return current[(entry, kind)]

    yield open_for
    for page in current.values():
        page.context.close()


@pytest.mark.parametrize("entry", toc_files())
def test_page_loads_offline_without_errors(opened, entry):
    page = opened(entry, "reader")
    assert page.errors == [], page.errors
    assert page.outside == [], f"the page asked the network for {page.outside}"


@pytest.mark.parametrize("entry", CHAPTERS)
def test_math_is_typeset(opened, entry):
    page = opened(entry, "reader")
    assert page.locator("mjx-container").count() > 0, "MathJax produced no output"
    text = page.evaluate(VISIBLE_TEXT)
    for raw in ("\\frac", "\\sigma", "$$"):
        assert raw not in text, f"raw TeX {raw!r} visible on the page"


@pytest.mark.parametrize("entry", CHAPTERS)
def test_controls_show_the_right_frames(page, site, entry):
    """Every slider (by keyboard) and every radio group selects the right frame."""
    open_page(page, site, entry)
    figures = page.locator(".interactive-figure")
    assert figures.count() >= 1
    for k in range(figures.count()):
        figure = figures.nth(k)
        data = json.loads(
            figure.locator('script[type="application/json"]').text_content()
        )
        controls = figure.locator("[data-control]")
        assert controls.count() == len(data["labels"])
        for i, labels in enumerate(data["labels"]):
            if len(labels) < 2:
                continue
            control = figure.locator(f"[data-control='{i}']")
            before = figure.locator("img").get_attribute("src")
            if control.evaluate("e => e.tagName") == "INPUT":
                control.focus()
                page.keyboard.press(
                    "End"
                )  # keyboard use, as a reader without a mouse would
                assert control.get_attribute("aria-valuetext") == labels[-1]
                shown = control.locator(
                    "xpath=following-sibling::output"
                ).text_content()
                assert shown == labels[-1], "the slider's value label did not update"
            else:
                control.locator("input[type=radio]").last.check()
            positions = figure.evaluate("""root => [...root.querySelectorAll('[data-control]')]
                .map(c => c.tagName === 'INPUT' ? Number(c.value)
                     : Number(c.querySelector('input:checked').value))""")
            assert positions[i] == len(labels) - 1
            index = 0
            for position, options in zip(positions, data["labels"]):
                index = index * len(options) + position
            after = figure.locator("img").get_attribute("src")
            assert after != before, (
                f"figure {k}: moving control {i} did not change the image"
            )
            assert after == data["frames"][index]
            loaded = figure.locator("img").evaluate(
                "img => img.decode().then(() => img.naturalWidth)"
            )
            assert loaded > 0, f"figure {k}: frame {after} did not load"


@pytest.mark.parametrize(
    "entry, width, scheme", matrix(CHAPTERS, phone_light_desktop_dark)
)
def test_layout_fits_phone_and_desktop(
    browser, site, entry, width, scheme, screenshots
):
    """No horizontal overflow of the page, nor of a display equation on a desktop; with
    --screenshots (make test-browser-matrix), a screenshot of every chapter at each
    width and scheme."""
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme
    )
    page = context.new_page()
    offline(page, site)
    open_page(page, site, entry)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a {width} px screen"
    if width >= 1000:
        wide = page.evaluate("""() => [...document.querySelectorAll(
            'mjx-container[display="true"]')].filter(e => e.scrollWidth > e.clientWidth + 1)
            .map(e => e.textContent.slice(0, 60))""")
        assert wide == [], f"display equations overflow their column: {wide}"
    theme = page.evaluate("() => document.documentElement.dataset.theme")
    assert theme == scheme
    if screenshots:
        name = f"{entry.split('/')[-1]}-{width}-{scheme}.png"
        page.screenshot(path=str(screenshots / name), full_page=True, timeout=180_000)
    context.close()


# Height of the code a reader sees: open code cells in full, folded ones by their fold bar.
CODE_HEIGHT = """() => {
  const article = document.querySelector('article');
  let code = 0;
  for (const input of article.querySelectorAll('div.cell_input')) {
    const fold = input.closest('details');
    code += (fold && !fold.open ? fold : input).getBoundingClientRect().height;
  }
  return [code, article.getBoundingClientRect().height];
}"""


@pytest.mark.parametrize("entry", CHAPTERS)
def test_code_is_at_most_a_third_of_the_page(opened, entry):
    """Plumbing is folded: on a desktop, code takes at most a third of a chapter's height."""
    code, total = opened(entry, "desktop").evaluate(CODE_HEIGHT)
    assert code <= total / 3, f"code is {code / total:.0%} of the page's height"


@pytest.mark.parametrize("entry", CHAPTERS)
def test_reader_sees_no_tooling_and_every_figure_is_described(opened, entry):
    page = opened(entry, "reader")
    html = page.content()
    for marker in ("NBVAL", "BEGIN HIDDEN", "BEGIN SOLUTION", "END SOLUTION"):
        assert marker not in html, f"{marker!r} reaches the reader"
    alts = page.evaluate(
        "() => [...document.querySelectorAll('main img')].map(i => i.alt)"
    )
    assert alts and all(
        a and not re.search(r"(\.png|\.svg|_images/)$", a) for a in alts
    ), [a for a in alts if not a or a.endswith((".png", ".svg"))]
    figures = page.evaluate("""() => [...document.querySelectorAll('.cell_output img')]
        .filter(i => !i.closest('.interactive-figure'))
        .map(i => !!(i.closest('figure') && i.closest('figure').querySelector('figcaption')))""")
    assert figures and all(figures), "every static figure has a numbered caption"
    lines = page.evaluate("""() => [...document.querySelectorAll('.cell_input pre')]
        .flatMap(p => p.textContent.split('\\n')).filter(l => l.length > 88)""")
    assert lines == [], f"code lines longer than 88 characters: {lines[:3]}"


PAGE_BUDGET = 700_000  # bytes transferred, gzip-compressed, on first load


@pytest.mark.parametrize("entry", CHAPTERS)
def test_page_weight_and_no_layout_shift(opened, site, built_book, entry):
    page = opened(entry, "desktop")
    total = 0
    for url in set(page.requested):
        path = built_book / url[len(site) + 1 :].split("#")[0].split("?")[0]
        if path.is_file():
            total += len(gzip.compress(path.read_bytes(), 6))
    assert total <= PAGE_BUDGET, f"{entry}: {total / 1e6:.2f} MB on first load"
    unsized = page.evaluate("""() => [...document.querySelectorAll('article img')]
        .filter(i => !(i.getAttribute('width') && i.getAttribute('height')))
        .map(i => i.src.slice(-40))""")
    assert unsized == [], f"images without width and height: {unsized}"
    shift = page.evaluate("() => window.__shift")
    assert shift < 0.01, f"images shift the layout by {shift:.2f}"


def test_live_code_offline(page, site):
    """Live Code loads Thebe from the site itself; when Binder cannot be reached the page
    says so clearly within 30 s instead of spinning forever."""
    entry = CHAPTERS[0]
    open_page(page, site, entry)
    # The "Live Code" item of the launch menu (a click, as from the opened menu).
    page.locator(".btn-launch-thebe").first.dispatch_event("click")
    page.wait_for_selector(".live-code-message", timeout=35_000)
    message = page.locator(".live-code-message").text_content()
    assert "Binder" in message and "Colab" in message
    assert any(
        u.startswith(site) and "/_static/thebe/index.js" in u for u in page.requests
    )
    # Only Binder is asked for (Thebe's MathJax 2 loader from a CDN is off).
    assert all(u.startswith("https://mybinder.org/") for u in page.outside), (
        page.outside
    )
    # The launch button agrees with the message: no spinner, no "launching".
    button = page.locator(".thebe-launch-button").first
    if button.count():
        assert button.locator(".spinner").count() == 0
        assert "launching" not in button.text_content().lower()


@pytest.fixture
def phone(browser, site):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    offline(page, site)
    yield page
    context.close()


def test_phone_drawers_open(phone, site, artifacts):
    """At 390 px both drawers open from the visible toggles: the chapter list and the page
    contents become visible (pydata-sphinx-theme#2451 bound them to hidden buttons)."""
    entry = CHAPTERS[1]
    open_page(phone, site, entry)
    for kind, dialog, shown in [
        ("primary", "#pst-primary-sidebar-modal", "nav.bd-docs-nav a.reference"),
        ("secondary", "#pst-secondary-sidebar-modal", "nav.page-toc a.nav-link"),
    ]:
        toggle = phone.locator(f"button.{kind}-toggle").filter(visible=True)
        assert toggle.count() >= 1, f"no visible {kind} toggle at 390 px"
        toggle.first.tap()
        phone.wait_for_selector(f"{dialog}[open]", timeout=5_000)
        links = phone.locator(f"{dialog} {shown}")
        assert links.count() > 3 and links.first.is_visible(), f"{kind} drawer is empty"
        box = links.first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] < 390, f"{kind} drawer off screen"
        phone.screenshot(path=str(artifacts / f"phone-drawer-{kind}.png"))
        phone.keyboard.press("Escape")
        phone.wait_for_selector(f"{dialog}[open]", state="detached", timeout=5_000)


# The smallest text in the book's figures: 7 pt (fontsize=7). A figure is drawn for
# 96 CSS px an inch at twice the pixels (normbook/figures.py), so shown at its drawn
# size 7 pt is 9.3 px.
SMALLEST_PT = 7
DENSITY = 2
# Every figure's picture as the page chose it, loaded: [drawn width, shown width,
# column width, its source's end], in CSS px.
FIGURES = """async () => {
  const shown = [...document.querySelectorAll('article .cell_output img')]
    .filter(i => i.offsetParent);
  shown.forEach(i => { i.loading = 'eager'; });
  await Promise.all(shown.map(i => i.decode().catch(() => null)));
  return shown.map(i => [i.naturalWidth / DENSITY, i.getBoundingClientRect().width,
    i.closest('.cell_output').clientWidth, i.currentSrc.slice(-30)]);
}""".replace("DENSITY", str(DENSITY))


@pytest.mark.parametrize("entry", CHAPTERS)
def test_figures_whole_on_a_phone(phone, site, entry, artifacts):
    """At 390 px every figure, static or interactive, is shown whole at its drawn
    size: no picture is wider than the column (a multi-panel figure shows its panels
    stacked), none is shrunk (its smallest text >= 9 px), nothing scrolls sideways.
    The page's first figure is kept as a screenshot."""
    open_page(phone, site, entry)
    pictures = phone.evaluate(FIGURES)
    assert pictures
    wider = [
        (drawn, column, src) for drawn, _, column, src in pictures if drawn > column
    ]
    assert wider == [], f"pictures wider than the column: {wider[:3]}"
    small = [
        (round(SMALLEST_PT * 96 / 72 * width / drawn, 1), src)
        for drawn, width, _, src in pictures
        if SMALLEST_PT * 96 / 72 * width / drawn < 9
    ]
    assert small == [], f"figure text below 9 px: {small[:3]}"
    overflow = phone.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    first = phone.locator("article figure").first
    first.scroll_into_view_if_needed()
    first.screenshot(path=str(artifacts / f"phone-{Path(entry).name}-figure.png"))


# Display equations and tables, shown: [kind, overflows, cue, focusable, font px].
WIDE = """() => [...document.querySelectorAll(
    'mjx-container[display="true"], .bd-article table')].filter(b => b.offsetParent)
  .map(b => [b.tagName.toLowerCase(), b.scrollWidth > b.clientWidth + 1,
    b.classList.contains('scrolls')
      && getComputedStyle(b).backgroundImage.includes('gradient'),
    b.tabIndex >= 0, parseFloat(getComputedStyle(b).fontSize)])"""


@pytest.mark.parametrize("entry", CHAPTERS + ["book/instructors", "book/notation"])
def test_wide_equations_and_tables_on_a_phone(phone, site, entry):
    """At 390 px a display equation wider than the column is set smaller (down to 0.6
    of its size, text >= 9 px); what still does not fit, and every wide table, scrolls
    in a keyboard-reachable box with a visible cue (a shadow at the hidden side)."""
    open_page(phone, site, entry)
    phone.wait_for_function("() => document.body.dataset.fitted === 'true'")
    shown = phone.evaluate(WIDE)
    hidden = [s for s in shown if s[1] and not (s[2] and s[3])]
    assert hidden == [], f"scrolls without a cue or a keyboard stop: {hidden[:3]}"
    small = [s for s in shown if s[0] == "mjx-container" and s[4] < 9]
    assert small == [], f"equations set below 9 px: {small[:3]}"


def test_code_folds_named_by_their_label(page, site):
    open_page(page, site, CHAPTERS[1])
    assert "Toggle hidden content" not in page.content()
    names = page.evaluate("""() => [...document.querySelectorAll('details.hide summary')]
        .map(s => s.innerText.trim())""")
    assert names and all(names), "a code fold has no visible label"


AXE_VERSION = "4.11.0"


@pytest.fixture(scope="session")
def axe_source():
    """axe-core from the npm registry (`npm pack`, integrity-checked), cached in _build."""
    import shutil
    import subprocess
    import tarfile
    import tempfile

    from conftest import ROOT

    cached = ROOT / "_build" / "vendor" / f"axe-core-{AXE_VERSION}.min.js"
    if not cached.is_file():
        require(shutil.which("npm"), "no npm, which fetches axe-core")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                ["npm", "pack", f"axe-core@{AXE_VERSION}", "--silent"],
                cwd=tmp,
                check=True,
                capture_output=True,
            )
            with tarfile.open(next(Path(tmp).glob("*.tgz"))) as tar:
                member = tar.extractfile("package/axe.min.js")
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_bytes(member.read())
    return cached.read_text()


SETTLED = "*, *::before, *::after { transition: none !important; animation: none !important; }"
AXE_RUN = """() => axe.run(document, {resultTypes: ['violations']}).then(r =>
  r.violations.filter(v => ['serious', 'critical'].includes(v.impact))
   .map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')]))"""


@pytest.mark.parametrize(
    "entry, width, scheme", matrix(toc_files(), desktop_light_and_dark_in_turn)
)
def test_no_serious_accessibility_violations(
    browser, site, axe_source, entry, width, scheme
):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme
    )
    page = context.new_page()
    offline(page, site)
    open_page(page, site, entry)
    # The theme fades colours in after it applies the scheme; axe checks the colours
    # a reader sees once that is done, not a frame of the fade.
    page.add_style_tag(content=SETTLED)
    page.add_script_tag(content=axe_source)
    violations = page.evaluate(AXE_RUN)
    context.close()
    assert violations == [], violations
