// clusterlab quiz checker: the same script follows every quiz; its data sits in the sibling script.clq-data.
// The rules mirror clusterlab/quiz.py (parse_number, Numeric.judge, Choice.accepts) and are tested against it.
// When embedded, full-line comments, indentation, line breaks and spaces next to punctuation are removed
// (outside "..." strings), so: double-quoted strings only, a semicolon after every statement, \x20 for a
// space inside a regular expression.
(function (w) {
"use strict";
if (!w.clq) {
  w.clq = (function () {
    var WS = /[\x20\t\n\r\u00a0\u2009\u202f\u3000]/g;
    var NUM = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
    var TEN = /^(.+?)[x×*·]10(?:\^|\*\*)([+-]?[0-9]+)$/;
    var THOU = /^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?$/;
    var TYPED = /^(.*[0-9.])([A-Za-z\u00b5\u03bc][A-Za-z\u00b5\u03bc/]*)$/, UNITS = Object.create(null);
    [["", 1], ["k", 1e3], ["K", 1e3], ["M", 1e6], ["G", 1e9], ["T", 1e12], ["P", 1e15], ["Ki", 1024], ["Mi", 1048576], ["Gi", 1073741824], ["Ti", 1099511627776]].forEach(function (p) {
      ["B", "b", "B/s", "b/s"].forEach(function (q) {
        UNITS[p[0] + q] = [q, p[1]];
      });
    });
    [["s", 1], ["ms", 1e-3], ["\u00b5s", 1e-6], ["\u03bcs", 1e-6], ["us", 1e-6], ["ns", 1e-9], ["min", 60], ["h", 3600]].forEach(function (t) {
      UNITS[t[0]] = ["s", t[1]];
    });
    var WRONG = "不对，再想想。", OK = "正确！", count = 0;
    function norm(t) {
      return String(t).replace(/[\uff01-\uff5e]/g, function (c) {
        return String.fromCharCode(c.charCodeAt(0) - 0xfee0);
      }).replace(/\u2212/g, "-").replace(WS, "");
    }
    function dec(p) {
      var m = TEN.exec(p);
      if (m) p = m[1] + "e" + m[2];
      if (THOU.test(p)) p = p.replace(/,/g, "");
      else if (p.split(",").length == 2 && p.indexOf(".") < 0) p = p.replace(",", ".");
      return NUM.test(p) ? parseFloat(p) : null;
    }
    function factor(typed, unit) {
      var low = typed.toLowerCase(), want = UNITS[unit], sizes = [];
      if (typed === unit) return 1;
      if (!want) return typed === low && low === unit.toLowerCase() ? 1 : null;
      (typed === low ? Object.keys(UNITS) : [typed]).forEach(function (k) {
        var v = UNITS[k];
        if (v && v[0] === want[0] && k.toLowerCase() === low && sizes.indexOf(v[1]) < 0) sizes.push(v[1]);
      });
      return sizes.length == 1 ? sizes[0] / want[1] : null;
    }
    function parse(text, unit) {
      var s = norm(text), u = norm(unit || ""), n = s.length - u.length, f = 1, m;
      if ((m = TYPED.exec(s))) {
        f = factor(m[2], u);
        if (f === null) return null;
        s = m[1];
      } else if (u && n >= 0 && s.slice(n) === u) s = s.slice(0, n);
      var p = s.split("/"), x = p.length < 3 ? dec(p[0]) : null, d = p.length == 2 ? dec(p[1]) : 1;
      if (x === null || !d) return null;
      x = x / d * f;
      return isFinite(x) ? x : null;
    }
    function near(c, x, q) {
      return Math.abs(x - c) <= Math.max(q.abs_tol, q.rel_tol * Math.abs(c));
    }
    function judgeNumeric(q, text) {
      if (!norm(text)) return {status: "empty"};
      var x = parse(text, q.unit);
      if (x === null) return {status: "invalid"};
      if (near(q.answer, x, q)) return {status: "correct", value: x};
      for (var i = 0; i < q.wrong.length; i++) {
        if (near(q.wrong[i].value, x, q)) return {status: "anticipated", value: x, index: i};
      }
      return {status: "wrong", value: x};
    }
    function judgeChoice(q, sel) {
      if (!sel.length) return {status: "empty"};
      for (var i = 0; i < q.options.length; i++) {
        if ((sel.indexOf(i) >= 0) !== q.options[i].correct) return {status: "wrong"};
      }
      return {status: "correct"};
    }
    function typeset(e) {
      var mj = w.MathJax;
      if (mj && mj.typesetPromise) {
        (mj.startup && mj.startup.promise || Promise.resolve()).then(function () {
          return mj.typesetPromise([e]);
        }).catch(function () {});
      } else if (mj && mj.Hub) mj.Hub.Queue(["Typeset", mj.Hub, e]);
    }
    function attr(e, k, v) {
      e.setAttribute(k, v);
    }
    function el(tag, cls, parent, html, text) {
      var e = document.createElement(tag);
      e.className = cls;
      if (html) e.innerHTML = html;
      if (text) e.textContent = text;
      if (parent) parent.appendChild(e);
      return e;
    }
    function say(box, ok, html) {
      box.className = "clq-fb clq-" + (ok ? "ok" : "bad");
      box.innerHTML = html;
      typeset(box);
    }
    function explain(ex, q, reveal) {
      var h = (reveal ? "<strong>答案：</strong>" + (q.answer_text || "正确选项已在上方用绿框标出") + "<br>" : "") + q.explanation_html;
      ex.innerHTML = h ? "<strong>解析</strong><br>" + h : "";
      ex.hidden = !h;
      typeset(ex);
    }
    function numeric(q, id, box, fb, ex) {
      var row = el("div", "clq-row", box), lab = el("label", "clq-lab", row, "", "你的答案");
      var inp = el("input", "clq-in", row);
      inp.type = "text";
      inp.id = lab.htmlFor = id + "-x";
      inp.autocomplete = "off";
      inp.spellcheck = false;
      attr(inp, "aria-describedby", id + "-h");
      if (q.unit) el("span", "clq-unit", row, "", q.unit);
      el("div", "clq-help", box, "", "可填小数、分数（如 7/4）或科学计数法（如 2.45e10）；" + q.tolerance_text + "。").id = id + "-h";
      function check() {
        var r = judgeNumeric(q, inp.value), s = r.status;
        say(fb, s == "correct", s == "empty" ? "请先填写答案。" : s == "invalid" ? "无法识别这个数。请填写数字，例如 1.75、7/4 或 2.45e10。" : s == "correct" ? OK : s == "anticipated" ? q.wrong[r.index].feedback_html : WRONG);
        attr(inp, "aria-invalid", s != "correct");
        if (s == "correct") explain(ex, q, false);
      }
      inp.addEventListener("keydown", function (e) {
        if (e.key == "Enter") {
          e.preventDefault();
          check();
        }
      });
      return check;
    }
    function choice(q, id, box, fb, ex) {
      var list = el("div", "clq-opts", box), inputs = [], marks = [], notes = [], labels = [];
      attr(list, "role", q.multiple ? "group" : "radiogroup");
      attr(list, "aria-labelledby", id + "-n");
      q.options.forEach(function (o) {
        var lab = el("label", "clq-opt", list), inp = el("input", "", lab);
        inp.type = q.multiple ? "checkbox" : "radio";
        inp.name = id;
        el("span", "clq-opt-text", lab, o.html);
        marks.push(el("span", "clq-mark", lab));
        notes.push(el("span", "clq-opt-fb", lab));
        inputs.push(inp);
        labels.push(lab);
      });
      if (q.multiple) el("div", "clq-help", box, "", "本题可多选。");
      function check() {
        var sel = [], m = q.multiple;
        inputs.forEach(function (inp, i) {
          if (inp.checked) sel.push(i);
        });
        var s = judgeChoice(q, sel).status;
        labels.forEach(function (lab, i) {
          var on = sel.indexOf(i) >= 0, o = q.options[i];
          lab.className = "clq-opt" + (on ? (o.correct ? " clq-ok" : " clq-bad") : "");
          marks[i].textContent = on ? (o.correct ? "✓" : "✗") : "";
          notes[i].innerHTML = on ? o.feedback_html || (o.correct ? "" : WRONG) : "";
        });
        say(fb, s == "correct", s == "empty" ? (m ? "请至少选择一个选项。" : "请先选择一个选项。") : s == "correct" ? OK : m ? "不完全对：有选错或漏选的选项。" : WRONG);
        typeset(list);
        if (s == "correct") explain(ex, q, false);
      }
      check.reveal = function () {
        labels.forEach(function (lab, i) {
          if (q.options[i].correct) lab.className += " clq-key";
        });
      };
      return check;
    }
    function question(q, i, id) {
      var box = el("div", "clq-q"), fb = el("div", "clq-fb"), ex = el("div", "clq-expl");
      attr(box, "role", "group");
      attr(box, "aria-labelledby", id + "-n");
      el("div", "clq-num", box, "", "第 " + (i + 1) + " 题").id = id + "-n";
      el("div", "clq-prompt", box, q.prompt_html);
      attr(fb, "role", "status");
      attr(fb, "aria-live", "polite");
      ex.hidden = true;
      var check = (q.type == "numeric" ? numeric : choice)(q, id, box, fb, ex);
      var btns = el("div", "clq-btns", box), b1 = el("button", "clq-check", btns, "", "检查");
      var b2 = el("button", "clq-show", btns, "", "显示答案");
      b1.type = b2.type = "button";
      b1.addEventListener("click", check);
      b2.addEventListener("click", function () {
        if (check.reveal) check.reveal();
        explain(ex, q, true);
      });
      box.appendChild(fb);
      box.appendChild(ex);
      return box;
    }
    function mount(root) {
      var data = root.querySelector("script.clq-data");
      if (!data || root.getAttribute("data-clq-ready")) return;
      attr(root, "data-clq-ready", "1");
      var body = el("div", "clq-body", root), n = ++count;
      JSON.parse(data.textContent).questions.forEach(function (q, i) {
        body.appendChild(question(q, i, "clq" + n + "-" + (i + 1)));
      });
      typeset(body);
    }
    return {parse: parse, judgeNumeric: judgeNumeric, judgeChoice: judgeChoice, mount: mount};
  })();
}
if (typeof document == "undefined") return;
// mount every quiz not mounted yet (this script's own quiz is in the document while the script runs)
var all = document.querySelectorAll("div.clq");
for (var k = 0; k < all.length; k++) w.clq.mount(all[k]);
})(typeof window != "undefined" ? window : globalThis);
