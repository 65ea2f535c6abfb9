// clusterlab self-check scores for the book's site (loaded once per page by book/_ext/progress.py).
//
// Each quiz (div.clq, built by quiz.js) gets a score line — "已答 3/5 · 首次答对 2" — and a 重新作答 button. A
// question counts as answered at its first checked answer that is a number or a selection (not an empty or
// unreadable one), and as right at the first try when that answer was right and the answer had not been shown.
// The record is kept in localStorage under "clq:" + quiz key as {h: hash of the quiz data, q: [entry or null]},
// entry {f: 1 or 0 (first try right), a: last checked answer, r: 1 if 显示答案 was pressed}; a quiz whose
// questions changed (other hash) starts afresh. After a reload the last answers are put back and checked again,
// so the page shows what was answered and how. Without localStorage (private mode, some browsers on file://)
// scores last as long as the page.
//
// The progress page (div#clq-progress) lists every quiz of the book from window.clqManifest (a script written
// by the build), with its score, a link to it, and a button that clears every record.
//
// quiz.js is not changed for this: answers are read from the quiz's inputs and judged with window.clq's own
// checker, after quiz.js's click and Enter handlers have run.
(function (w, d) {
  "use strict";
  if (w.clqScore) return;
  var PRE = "clq:";

  function store() {
    try {
      var s = w.localStorage;
      s.setItem(PRE, "1");
      s.removeItem(PRE);
      return s;
    } catch (e) {
      return null;
    }
  }
  function load(key) {
    try {
      var v = JSON.parse(store().getItem(PRE + key));
      return v && typeof v == "object" && v.q instanceof Array ? v : null;
    } catch (e) {
      return null;
    }
  }
  function save(key, v) {
    try {
      store().setItem(PRE + key, JSON.stringify(v));
    } catch (e) {}
  }
  function forget(key) {
    try {
      store().removeItem(PRE + key);
    } catch (e) {}
  }
  function hash(t) {
    for (var h = 5381, i = 0; i < t.length; i++) h = (h * 33 + t.charCodeAt(i)) | 0;
    return h;
  }
  function tally(rec, n) {
    var t = {done: 0, first: 0};
    if (rec && rec.q instanceof Array && rec.q.length == n) {
      rec.q.forEach(function (e) {
        if (e && e.f !== undefined) {
          t.done++;
          if (e.f) t.first++;
        }
      });
    }
    return t;
  }
  function scoreText(t, n) {
    return "已答 " + t.done + "/" + n + " · 首次答对 " + t.first;
  }
  function tagText(e) {
    return !e ? "" : e.f === undefined ? "已看答案" : e.f ? "✓ 首次答对" : "已答 · 首次未答对";
  }
  function el(tag, cls, parent, text) {
    var e = d.createElement(tag);
    e.className = cls;
    if (text) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function button(cls, parent, text) {
    var b = el("button", cls, parent, text);
    b.type = "button";
    return b;
  }

  // ---- one quiz
  function attach(root) {
    var data = root.querySelector("script.clq-data"), body = root.querySelector(".clq-body");
    if (!data || !body || !w.clq || root.getAttribute("data-clq-scored")) return;
    var qs = JSON.parse(data.textContent).questions, n = qs.length, h = hash(data.textContent);
    var boxes = body.querySelectorAll(".clq-q");
    if (boxes.length != n) return;
    root.setAttribute("data-clq-scored", "1");
    var key = root.getAttribute("data-clq-key") || root.id.replace(/^quiz-/, "");
    var rec = load(key), quiet = false, tags = [];
    if (!rec || rec.h !== h || rec.q.length != n) rec = {h: h, q: qs.map(function () { return null; })};

    var bar = el("div", "clq-score");
    body.insertBefore(bar, body.firstChild);
    var txt = el("span", "clq-score-text", bar), reset = button("clq-reset", bar, "重新作答");
    txt.setAttribute("role", "status");
    reset.title = "清除本组自测题的作答记录";
    for (var i = 0; i < n; i++) tags.push(boxes[i].insertBefore(el("div", "clq-tag"), boxes[i].firstChild));

    function show() {
      txt.textContent = scoreText(tally(rec, n), n);
      reset.disabled = !rec.q.some(function (e) { return e; });
      rec.q.forEach(function (e, i) { tags[i].textContent = tagText(e); });
    }
    function current(i) {
      var q = qs[i], b = boxes[i];
      if (q.type == "numeric") {
        var v = b.querySelector("input.clq-in").value;
        return {a: v, s: w.clq.judgeNumeric(q, v).status};
      }
      var sel = [];
      b.querySelectorAll(".clq-opts input").forEach(function (inp, k) {
        if (inp.checked) sel.push(k);
      });
      return {a: sel, s: w.clq.judgeChoice(q, sel).status};
    }
    function note(i, shown) {
      var e = rec.q[i] || {}, r = shown ? null : current(i);
      if (shown) e.r = 1;
      else if (r.s == "empty" || r.s == "invalid") return;
      else {
        if (e.f === undefined) e.f = r.s == "correct" && !e.r ? 1 : 0;
        e.a = r.a;
      }
      rec.q[i] = e;
      save(key, rec);
      show();
    }
    function which(target) {
      var box = target.closest && target.closest(".clq-q");
      return Array.prototype.indexOf.call(boxes, box);
    }
    // bubbling listeners run after quiz.js's own handlers on the button or the input (on body, which a reset
    // replaces together with them)
    body.addEventListener("click", function (e) {
      var b = e.target.closest && e.target.closest("button.clq-check, button.clq-show"), i = which(e.target);
      if (!quiet && b && i >= 0) note(i, b.classList.contains("clq-show"));
    });
    body.addEventListener("keydown", function (e) {
      var i = which(e.target);
      if (!quiet && e.key == "Enter" && e.target.classList.contains("clq-in") && i >= 0) note(i, false);
    });
    reset.addEventListener("click", function () {
      forget(key);
      root.removeChild(body);
      root.removeAttribute("data-clq-ready");
      root.removeAttribute("data-clq-scored");
      w.clq.mount(root);
      attach(root);
      var first = root.querySelector(".clq-q input");
      if (first) first.focus();
    });

    // put the last answers back and let quiz.js check them again (without counting them twice)
    quiet = true;
    rec.q.forEach(function (e, i) {
      if (!e) return;
      var b = boxes[i];
      try {
        if (qs[i].type == "numeric" && typeof e.a == "string") b.querySelector("input.clq-in").value = e.a;
        if (qs[i].type == "choice" && e.a instanceof Array) {
          b.querySelectorAll(".clq-opts input").forEach(function (inp, k) {
            inp.checked = e.a.indexOf(k) >= 0;
          });
        }
        if (e.a !== undefined) b.querySelector("button.clq-check").click();
        if (e.r) b.querySelector("button.clq-show").click();
      } catch (err) {
        rec.q[i] = null;
      }
    });
    quiet = false;
    show();
  }

  // ---- the progress page
  function progress(box) {
    var m = w.clqManifest, list = m && m.quizzes, s = d.querySelector('script[src*="clq-manifest.js"]');
    box.textContent = "";
    if (!(list instanceof Array)) {
      el("p", "clq-pnote", box, "未找到自测题清单（_static/clq-manifest.js），请重新构建本书。");
      return;
    }
    // links in the manifest are relative to the site root; the manifest script's own src leads there
    var base = s ? s.getAttribute("src").replace(/_static\/clq-manifest\.js.*$/, "") : "";
    var sum = el("p", "clq-psum", box), ol = el("ol", "clq-plist", box), all = {done: 0, first: 0}, total = 0;
    list.forEach(function (q) {
      var t = tally(load(q.key), q.n), li = el("li", "clq-pitem", ol), a = el("a", "clq-plink", li, q.title);
      var meter = el("progress", "clq-pbar", li), sc = el("span", "clq-pscore", li, scoreText(t, q.n));
      a.href = base + q.url;
      li.setAttribute("data-clq-key", q.key);
      meter.max = q.n;
      meter.value = t.done;
      meter.setAttribute("aria-label", q.title + "：" + sc.textContent);
      all.done += t.done;
      all.first += t.first;
      total += q.n;
    });
    sum.textContent = "全书 " + list.length + " 组自测，共 " + total + " 题：" + scoreText(all, total) + "。";
    var b = button("clq-reset clq-reset-all", el("p", "clq-pbtns", box), "清除全部记录");
    if (!store()) el("p", "clq-pnote", box, "此浏览器不允许本地存储（例如隐私模式），作答记录不会保存。");
    b.addEventListener("click", function () {
      if (w.confirm && !w.confirm("清除本书全部自测题的作答记录？")) return;
      list.forEach(function (q) {
        forget(q.key);
      });
      progress(box);
    });
  }

  function start() {
    var quizzes = d.querySelectorAll("div.clq"), p = d.getElementById("clq-progress");
    for (var k = 0; k < quizzes.length; k++) attach(quizzes[k]);
    if (p) progress(p);
  }
  w.clqScore = {start: start, tally: tally};
  if (d.readyState == "loading") d.addEventListener("DOMContentLoaded", start);
  else start();
  // another tab may change the records shown on the progress page
  w.addEventListener("storage", function (e) {
    var p = d.getElementById("clq-progress");
    if (p && (e.key === null || String(e.key).indexOf(PRE) === 0)) progress(p);
  });
})(window, document);
