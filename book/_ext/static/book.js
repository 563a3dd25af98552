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

  // A display equation wider than the column is set smaller, down to 0.6 of its size
  // (MathJax 3 does not break lines); what still does not fit scrolls (below).
  const SMALLEST_MATH = 0.6;
  const fitEquations = () => {
    document.querySelectorAll('mjx-container[display="true"]').forEach((math) => {
      math.style.fontSize = "";
      if (math.scrollWidth > math.clientWidth + 1) {
        const scale = Math.max(SMALLEST_MATH, math.clientWidth / math.scrollWidth);
        math.style.fontSize = `${Math.floor(scale * 100)}%`;
      }
    });
  };

  // A box that scrolls sideways shows it (a shadow at the hidden side, book.css) and
  // can be scrolled with the keyboard (focusable, named).
  const scrollStops = () => {
    document.querySelectorAll('.bd-article table, mjx-container[display="true"]').forEach((box) => {
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("scrolls", scrolls);
      if (scrolls) {
        if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
        if (!box.hasAttribute("aria-label") && box.tagName !== "TABLE") {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", "Equation (scrolls sideways)");
        }
      }
    });
  };
  const fit = () => {
    fitEquations();
    scrollStops();
  };

  const ready = (f) =>
    document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", f) : f();
  ready(() => {
    forwardToggles();
    fit();
    window.addEventListener("resize", fit);
    // MathJax typesets the equations after the page has loaded.
    window.addEventListener("load", () => {
      const startup = window.MathJax && window.MathJax.startup;
      (startup && startup.promise ? startup.promise : Promise.resolve()).then(() => {
        fit();
        document.body.dataset.fitted = "true"; // for the browser tests
      });
    });
  });
})();
