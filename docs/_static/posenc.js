// posenc site: display math too wide for the column scrolls in a box a keyboard can reach.
// A box that scrolls sideways gets tabindex=0 and a name (axe-core: scrollable-region-focusable);
// one that fits loses them again, so a wide screen has no extra tab stops. Runs once MathJax has
// typeset the page (pages without math load no MathJax) and again when the window is resized.
(() => {
  const mark = () => {
    document.querySelectorAll("div.math").forEach((box) => {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", "equation, scrolls sideways");
      } else if (box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  };
  const start = () => {
    const typeset = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    (typeset || Promise.resolve()).then(mark);
    let pending = null;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(mark, 100);
    });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
