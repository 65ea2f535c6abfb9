/* Accessibility fixes that need the rendered page (Jupyter Book adds every script of _static to every page).
 * - Boxes that scroll sideways (wide tables, long code) become Tab stops, so keyboard users can scroll them.
 * - Animation players (matplotlib's to_jshtml): the frame image gets the text alternative of the frame on show, as
 *   clusterlab.viz wrote it from the frame's data (data-alts: one text per frame); a player without them gets the
 *   figure's caption and the frame number. The slider gets a name and a spoken value ("第 k 帧，共 n 帧：…").
 * - A figure drawn smaller than its image (dense figures in a narrow column, on a phone) links to the full-size
 *   image, so it can be opened and enlarged on its own. */
(function () {
  "use strict";
  var SCROLLERS = "div.output.text_html, .pst-scrollable-table-container, div.highlight > pre, " +
    "div.cell_output > .output, mjx-container[display='true']";
  function kind(el) {
    if (el.tagName.toLowerCase() === "mjx-container") return "公式（可横向滚动）";
    return el.querySelector("table") ? "表格（可横向滚动）" : "代码（可横向滚动）";
  }
  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.tabIndex = 0;
        if (!el.hasAttribute("role")) el.setAttribute("role", "region");
        if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", kind(el));
      } else if (el.getAttribute("aria-label") && el.getAttribute("role") === "region") {
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
      }
    });
  }
  function caption(el) {
    var fig = el.closest("figure");
    var text = fig && fig.querySelector("figcaption .caption-text");
    return text ? text.textContent.replace(/\s+/g, " ").trim() : "动画";
  }
  function setupPlayer(player) {
    var img = player.querySelector("img");
    var slider = player.querySelector("input.anim-slider");
    if (!img || !slider) return;
    var what = caption(player);
    var total = parseInt(slider.max, 10) + 1;
    var alts = null;
    try { alts = JSON.parse(img.getAttribute("data-alts") || "null"); } catch (e) { alts = null; }
    if (!Array.isArray(alts) || alts.length !== total) alts = null;
    var update = function () {
      var k = parseInt(slider.value, 10) + 1;
      var where = "第 " + k + " 帧，共 " + total + " 帧";
      if (alts) {
        img.alt = alts[k - 1];
        slider.setAttribute("aria-valuetext", where + "：" + alts[k - 1]);
      } else {
        img.alt = "动画（" + where + "）：" + what;
        slider.setAttribute("aria-valuetext", where);
      }
    };
    slider.setAttribute("aria-label", "动画帧：" + what.slice(0, 40));
    update();
    // the player changes the slider's value from script (buttons, playing): watch the image it swaps
    new MutationObserver(update).observe(img, { attributes: true, attributeFilter: ["src"] });
    slider.addEventListener("input", update);
  }
  function linkLargeFigures() {
    document.querySelectorAll("figure img").forEach(function (img) {
      if (img.closest("a, div.animation") || !img.naturalWidth) return;
      if (img.naturalWidth < img.getBoundingClientRect().width * 1.15) return;
      var a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.target = "_blank";
      a.className = "clusterlab-zoom";
      a.title = "打开原图（可放大）";
      img.parentNode.insertBefore(a, img);
      a.appendChild(img);
    });
  }
  function init() {
    document.querySelectorAll("div.animation").forEach(setupPlayer);
    markScrollers();
    if (document.readyState === "complete") linkLargeFigures();
    else window.addEventListener("load", linkLargeFigures);
    // display formulas exist only once MathJax has typeset them
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(markScrollers);
    var t = null;
    window.addEventListener("resize", function () { clearTimeout(t); t = setTimeout(markScrollers, 200); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
