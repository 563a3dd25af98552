"""The static book in a real browser, with the network unused: no JavaScript errors, math typeset,
and every kernel-free slider shows the right pre-rendered frame. Screenshots go to
_build/test-artifacts/screenshots for a person to look at."""
import json

import pytest

from conftest import serve, toc_files

CHAPTERS = [e for e in toc_files() if e.startswith("notebooks/")]

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


@pytest.fixture
def page(browser, site):
    """A page that may only talk to the local server; records errors and outside requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors, page.outside = [], []
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
    yield page
    context.close()


def open_page(page, site, entry):
    page.goto(f"{site}/{entry}.html", wait_until="load")
    if page.locator("script[src*='mathjax']").count():  # Sphinx loads MathJax only where there is math
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")


@pytest.mark.parametrize("entry", toc_files())
def test_page_loads_offline_without_errors(page, site, entry):
    open_page(page, site, entry)
    assert page.errors == [], page.errors
    assert page.outside == [], f"the page asked the network for {page.outside}"


@pytest.mark.parametrize("entry", CHAPTERS)
def test_math_is_typeset(page, site, entry, artifacts):
    open_page(page, site, entry)
    assert page.locator("mjx-container").count() > 0, "MathJax produced no output"
    text = page.evaluate(VISIBLE_TEXT)
    for raw in ("\\frac", "\\sigma", "$$"):
        assert raw not in text, f"raw TeX {raw!r} visible on the page"
    folder = artifacts / "screenshots"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / (entry.split("/")[-1] + ".png")), full_page=True)


@pytest.mark.parametrize("entry", CHAPTERS)
def test_sliders_show_the_right_frames(page, site, entry):
    open_page(page, site, entry)
    figures = page.locator(".interactive-figure")
    assert figures.count() >= 1
    for k in range(figures.count()):
        figure = figures.nth(k)
        data = json.loads(figure.locator('script[type="application/json"]').text_content())
        inputs = figure.locator("input[type=range]")
        assert inputs.count() == len(data["labels"])
        for i in range(inputs.count()):
            if len(data["labels"][i]) < 2:
                continue
            before = figure.locator("img").get_attribute("src")
            inputs.nth(i).focus()
            page.keyboard.press("End")  # keyboard use, as a reader without a mouse would
            positions = [int(inputs.nth(j).input_value()) for j in range(inputs.count())]
            assert positions[i] == len(data["labels"][i]) - 1
            index = 0
            for position, labels in zip(positions, data["labels"]):
                index = index * len(labels) + position
            after = figure.locator("img").get_attribute("src")
            assert after != before, f"figure {k}: moving slider {i} did not change the image"
            assert after == "data:image/png;base64," + data["frames"][index]
            shown = inputs.nth(i).locator("xpath=following-sibling::output").text_content()
            assert shown == data["labels"][i][-1], "the slider's value label did not update"
