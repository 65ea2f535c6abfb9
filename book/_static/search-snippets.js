/* Search results (search.html): the snippet under each hit shows formulas as plain text ("2S(N-1)/N"), not as
 * the LaTeX source MathJax would typeset ("\(2S(N-1)/N\)"). Sphinx builds each snippet from the hit page's HTML
 * with Search.htmlToText; the page's formulas are replaced before the text is taken. */
(function () {
  "use strict";
  var SYMBOLS = { alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ", sigma: "σ",
    tau: "τ", theta: "θ", rho: "ρ", pi: "π", Psi: "Ψ", Phi: "Φ", Delta: "Δ", Sigma: "Σ", cdot: "·", times: "×",
    le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", approx: "≈", to: "→", infty: "∞", dots: "…",
    ldots: "…", cdots: "⋯", lceil: "⌈", rceil: "⌉", lfloor: "⌊", rfloor: "⌋", pm: "±", equiv: "≡" };
  function plain(tex) {
    return tex
      .replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "")
      .replace(/\\(?:text|mathrm|operatorname|mathbf|mathit|textrm|boldsymbol)\s*\{([^{}]*)\}/g, "$1")
      .replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)")
      .replace(/\\([A-Za-z]+)/g, function (m, name) { return SYMBOLS[name] !== undefined ? SYMBOLS[name] : ""; })
      .replace(/\\[,;:! ]/g, " ").replace(/[{}]/g, "").replace(/\s+/g, " ").trim();
  }
  function patch() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.clusterlab) return;
    var original = Search.htmlToText;
    var wrapped = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll("span.math, div.math").forEach(function (el) {
        // a numbered equation holds its number and a "#" link before the TeX: keep the number, after the formula
        var eqno = el.querySelector(".eqno"), number = "";
        if (eqno) {
          eqno.querySelectorAll("a.headerlink").forEach(function (a) { a.remove(); });
          number = " " + eqno.textContent.trim();
          eqno.remove();
        }
        el.textContent = plain(el.textContent) + number;
      });
      return original(doc.documentElement.outerHTML, anchor);
    };
    wrapped.clusterlab = true;
    Search.htmlToText = wrapped;
  }
  window.clusterlabPlainTex = plain;
  patch();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patch);
})();
