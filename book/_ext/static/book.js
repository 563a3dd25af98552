// Small fixes to the theme, on every page (see page_polish.py).
(function () {
  // Phone drawers. pydata-sphinx-theme 0.17.1 binds its dialogs to the first
  // .primary-toggle / .secondary-toggle of the page, a header button the book theme hides
  // (pydata/pydata-sphinx-theme#2451), so the visible toggles did nothing. A tap on a
  // visible toggle is handed to the bound one.
  const forwardToggles = () => {
    for (const kind of ["primary", "secondary"]) {
      const toggles = [...document.querySelectorAll(`.${kind}-toggle`)];
      const bound = toggles[0];
      toggles.slice(1).forEach((toggle) => {
        toggle.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopImmediatePropagation();
          bound.click();
        }, true);
      });
    }
  };

  // Figures keep >= 9 px text on a phone: interactive-figure frames are drawn at 72 dpi
  // (normbook/figures.py), so they are shown at 96 dpi like the static figures; on a
  // narrow screen a figure keeps that size and scrolls sideways in its box (book.css).
  const sizeFrames = () => {
    document.querySelectorAll(".interactive-figure img[width]").forEach((img) => {
      const width = Number(img.getAttribute("width"));
      img.style.width = `${Math.round((width * 4) / 3)}px`;
      if (!img.parentElement.classList.contains("figure-scroll")) {
        const box = document.createElement("div");
        box.className = "figure-scroll";
        img.replaceWith(box);
        box.appendChild(img);
      }
    });
  };

  // A box that scrolls sideways can be scrolled with the keyboard (focusable, named).
  const scrollStops = () => {
    document.querySelectorAll(
      ".figure-scroll, .cell_output figure, .bd-article table"
    ).forEach((box) => {
      if (box.scrollWidth > box.clientWidth + 1) {
        if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
        if (!box.hasAttribute("aria-label") && box.tagName !== "TABLE") {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", "Figure (scrolls sideways)");
        }
      }
    });
  };

  const ready = (f) =>
    document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", f) : f();
  ready(() => {
    forwardToggles();
    sizeFrames();
    scrollStops();
    window.addEventListener("resize", scrollStops);
  });
})();
