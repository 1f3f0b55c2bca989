// posenc site: display math and figures too wide for the column scroll in a box a keyboard can
// reach. A box that scrolls sideways gets tabindex=0 and a name (axe-core:
// scrollable-region-focusable); one that fits loses them again, so a wide screen has no extra tab
// stops. A figure's box (sitetools.scroll_figures) is a named region, numbered so that no two have
// the same name, and shows its "scroll sideways" hint while it scrolls. Runs once MathJax has
// typeset the page (pages without math load no MathJax) and again when the window is resized.
(() => {
  const scrollable = (box, role, label) => {
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (wide) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", role);
      box.setAttribute("aria-label", label);
    } else if (box.getAttribute("tabindex") === "0") {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
    return wide;
  };
  const mark = () => {
    document.querySelectorAll('div.math, mjx-container[display="true"]').forEach((box) => {
      scrollable(box, "group", "equation, scrolls sideways");
    });
    document.querySelectorAll(".posenc-figure-scroll").forEach((box, n) => {
      const label = `Figure ${n + 1}, wider than the screen: scroll sideways to see all of it`;
      box.parentElement.classList.toggle("posenc-scrolls", scrollable(box, "region", label));
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

// Search snippets: Sphinx's search downloads each result's whole page to cut a snippet from it
// (the API page alone is 0.8 MB). The build writes a light copy of every page's text,
// _search/NAME.html (sitetools.search_page: no launch bar, outputs or TeX source), and the search
// page fetches that instead; the result still links to the page itself.
(() => {
  if (!/(^|\/)search\.html$/.test(window.location.pathname)) return;
  const root = new URL(document.documentElement.dataset.content_root || "./", window.location.href);
  const fetchPage = window.fetch.bind(window);
  window.fetch = (resource, options) => {
    const url = new URL(typeof resource === "string" ? resource : resource.url, window.location.href);
    const name = url.href.startsWith(root.href) ? url.href.slice(root.href.length) : "";
    if (/^[\w.-]+\.html$/.test(name) && name !== "search.html") {
      return fetchPage(new URL(`_search/${name}`, root).href, options);
    }
    return fetchPage(resource, options);
  };
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
