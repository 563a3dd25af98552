// Live Code (Thebe) status: say clearly when Thebe or Binder cannot be reached.
// Thebe itself is served by this site; the kernel comes from Binder, which needs a network.
(function () {
  const LIMIT_MS = 30000;
  const show = (text) => {
    document.querySelectorAll(".live-code-message").forEach((el) => el.remove());
    const box = document.createElement("div");
    box.className = "live-code-message";
    box.setAttribute("role", "status");
    box.textContent = text;
    const article = document.querySelector("article") || document.body;
    article.prepend(box);
    // sphinx-thebe's button keeps its spinner and "launching" text after a failure:
    // make it agree with the message.
    document.querySelectorAll(".thebe-launch-button").forEach((button) => {
      button.querySelectorAll(".spinner").forEach((el) => el.remove());
      const label = button.querySelector(".loading-text") || button;
      label.textContent = "Live Code unavailable (see the message at the top of the page)";
    });
  };
  const start = () => {
    let status = "loading";
    const hook = setInterval(() => {
      if (window.thebe && window.thebe.on) {
        clearInterval(hook);
        window.thebe.on("status", (evt, data) => {
          status = data.status;
          if (status === "failed") {
            show("Live Code could not start a kernel on Binder (" + (data.message || "")
              + "). Check your connection, or open this chapter in Colab or download "
              + "the notebook with the buttons at the top of the page.");
          }
        });
      }
    }, 200);
    setTimeout(() => {
      if (!["ready", "idle", "busy"].includes(status)) {
        show("Live Code could not reach Binder within 30 seconds (last status: " + status
          + "). Live Code needs an internet connection to mybinder.org. You can open "
          + "this chapter in Colab or download the notebook with the buttons at the top "
          + "of the page; everything else on this page works offline.");
      }
    }, LIMIT_MS);
  };
  document.addEventListener("click", (event) => {
    if (event.target.closest(".thebe-launch-button, .btn-launch-thebe")) start();
  }, true);
})();
