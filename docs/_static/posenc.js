// posenc site: display math too wide for the column scrolls in a box a keyboard can reach.
// A box that scrolls sideways gets tabindex=0 and a name (axe-core: scrollable-region-focusable);
// one that fits loses them again, so a wide screen has no extra tab stops. Runs once MathJax has
// typeset the page (pages without math load no MathJax) and again when the window is resized.
(() => {
  const mark = () => {
    document.querySelectorAll('div.math, mjx-container[display="true"]').forEach((box) => {
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

// Search snippets: Sphinx looks for the *stemmed* query ("rotari") in a page's text, finds nothing
// and shows the page's first 240 characters, which here are the launch bar's whitespace and
// "Binder". The words as typed are looked for too, and the text's whitespace is collapsed, so
// a snippet shows the query in its sentence.
(() => {
  const patch = () => {
    if (typeof Search === "undefined" || Search.posencPatched) return;
    const typed = (new URLSearchParams(window.location.search).get("q") || "")
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word && !word.startsWith("-"));
    const toText = Search.htmlToText;
    Search.htmlToText = (html, anchor) => toText(html, anchor).replace(/\s+/g, " ").trim();
    const summary = Search.makeSearchSummary;
    Search.makeSearchSummary = (html, keywords, anchor) => {
      const text = Search.htmlToText(html, anchor).toLowerCase();
      const words = [...typed, ...keywords].filter((word) => text.includes(word));
      // a section that does not hold the word: the page's text around it instead
      if (anchor && words.length === 0) return summary(html, new Set(typed), "");
      return summary(html, new Set(words.length ? words : keywords), anchor);
    };
    Search.posencPatched = true;
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patch);
  else patch();
})();
