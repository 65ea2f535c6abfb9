"""Submit an exercise set's library of typical wrong answers and report which checks catch each one.

Every set folder ``exercises/source/<set>/`` holds ``mistakes.yml``: a list of typical wrong answers, each written
as an edit of the reference solution::

    - id: bits-not-bytes            # unique in the set
      question: q2                  # the question whose public checks must catch it
      mistake: 把 400 Gb/s 当作 400 GB/s，没有除以 8
      replace:                      # applied to the code cells of the built solution notebook
        - old: "bw = 400e9 / 8"     # must occur exactly once in those cells
          new: "bw = 400e9"

``old`` may be copied from the master notebook: its ``# SOLUTION`` markers are dropped before matching.

A mistake may instead give the question's answer cells whole, as a student would fill them in (this is how mistakes
written from the chapter and the student notebook alone, without the answer key, are recorded)::

    - id: floor-not-ceil
      question: q5
      mistake: 用向下取整求最少的卡数
      origin: blind                 # optional: who wrote it ("blind" = from the chapter and student notebook only)
      cells:                        # every answer cell of q5 (cells tagged ``answer`` under "第 5 题"), in order
        - |
          def min_gpus(need, per_gpu):
              return need // per_gpu

A mistake is *caught* when at least one public check of its question fails; the student then learns it before
handing in. The library is a teaching standard, not a formality: a set must ship at least five mistakes and every
one must be caught by a public check (``tests/pipeline/test_mistakes.py``) — unless the entry says, under
``only_hidden``, why no public check may catch it (e.g. the only telling input would give the answer away); such a
mistake must then be caught by a hidden check.

``variants.yml`` (optional, same format with ``cells``) lists *correct* answers in other reasonable forms (a list
for a tuple, numpy scalars, another valid algorithm): each must keep the question's full marks.

Usage: ``python tools/mistakes.py SET_DIR [SET_DIR …]`` prints, per mistake, whether public and hidden checks
catch it (exit status 1 if a mistake is not caught by a public check, or the library is malformed).

A mistake that only shows for some students' data (a check that happens to pass when a number divides evenly,
say) is not caught for the others. ``--ids 3`` judges every entry for the set's sample ID and two more fixed IDs
(``--ids 2024001,A19`` names them instead); a mistake then counts as caught only if it is caught for every ID,
and a correct alternative in ``variants.yml`` must keep full marks for every ID. The report lists the IDs for
which a mistake slipped through. An ID whose data make a mistake coincide with the right answer (the mistake
passes every check of its question there, hidden ones included) is no test of the checks and is set aside. Each
further ID costs one more sandboxed run of the notebook per entry.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_exercises

from clusterlab_grade.judge import Check, Package, grade_cells
from clusterlab_grade.sandbox import Limits

MIN_MISTAKES = 5
# the built solution carries no solution markers; an ``old`` copied from the master may (they are dropped)
_MARKER = re.compile(r"[ \t]*# (?:SOLUTION|BEGIN SOLUTION|END SOLUTION)[ \t]*$", re.M)
LIMITS = Limits(timeout=300, cell_timeout=120, call_timeout=120)
# further student IDs for ``--ids N`` (after the set's sample ID), fixed so that reports are reproducible
EXTRA_IDS = ("2024001", "2024002", "2023117", "A19", "2025042", "S7", "2022318", "B1024")


class LibraryError(ValueError):
    """``mistakes.yml`` is missing or malformed; the message says where."""


@dataclass(frozen=True)
class Mistake:
    id: str
    question: str
    mistake: str
    replace: tuple[tuple[str, str], ...] = ()
    cells: tuple[str, ...] = ()
    only_hidden: str = ""  # why only a hidden check may catch it (empty: a public check must)
    origin: str = ""


@dataclass(frozen=True)
class Verdict:
    """How the checks judged one entry. With several student IDs, ``public_failed`` and ``hidden_failed`` name the
    checks that failed for the first ID (the sample); ``public_missed`` and ``hidden_missed`` list the IDs for which
    no public (hidden) check of the question failed; ``score`` is the highest score over the IDs (for a mistake:
    the most it can earn) and ``lowest`` the lowest (for a correct alternative: the least it keeps). An ID for which
    a mistake passes every check of its question with full marks (its data make the mistaken answer the right one)
    is listed in ``coincident_ids`` and judged no further."""

    mistake: Mistake
    public_failed: tuple[str, ...]  # names of the question's public checks that failed
    hidden_failed: tuple[str, ...]
    score: float  # the question's score with this mistake
    possible: float
    public_missed: tuple[str, ...] = ()
    hidden_missed: tuple[str, ...] = ()
    lowest: float | None = None
    ids: tuple[str, ...] = ()
    coincident_ids: tuple[str, ...] = ()  # IDs for which the entry passes every check: a correct answer there

    @property
    def by_public(self) -> bool:
        """A public check failed, for every ID judged."""
        return bool(self.public_failed) and not self.public_missed

    @property
    def by_hidden(self) -> bool:
        """A hidden check failed, for every ID judged."""
        return bool(self.hidden_failed) and not self.hidden_missed

    @property
    def missed_ids(self) -> tuple[str, ...]:
        """The IDs for which the entry is not caught as the library demands."""
        if self.mistake.only_hidden:
            return tuple(i for i in self.public_missed if i in self.hidden_missed)
        return self.public_missed

    @property
    def caught(self) -> bool:
        """Caught as the library demands — by a public check, or by a hidden one when the entry says why not — for
        every ID judged."""
        return self.by_public or bool(self.mistake.only_hidden and self.by_hidden)

    @property
    def full_marks(self) -> bool:
        """Full marks for every ID judged (what a correct alternative must keep)."""
        return (self.score if self.lowest is None else self.lowest) >= self.possible


_REQUIRED = {"id", "question", "mistake"}
_OPTIONAL = {"only_hidden", "origin"}


def load(set_dir: Path, file: str = "mistakes.yml", *, required: bool = True) -> list[Mistake]:
    """The set's library (or its ``variants.yml``), validated for form (not yet against the notebook)."""
    path = Path(set_dir) / file
    if not path.is_file():
        if not required:
            return []
        raise LibraryError(f"{path}: 缺少典型错误库 {file}")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise LibraryError(f"{path}: 应是一个列表")
    out: list[Mistake] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"{path.name} 第 {i + 1} 条"
        if not isinstance(item, dict) or not _REQUIRED <= set(item) or len({"replace", "cells"} & set(item)) != 1 \
                or set(item) - _REQUIRED - _OPTIONAL - {"replace", "cells"}:
            raise LibraryError(f"{where}: 须含 id、question、mistake 与 replace 或 cells（二者之一）四项，"
                               f"可选 {'、'.join(sorted(_OPTIONAL))}")
        mid = str(item["id"])
        if mid in seen:
            raise LibraryError(f"{where}: id {mid!r} 重复")
        seen.add(mid)
        pairs: list[tuple[str, str]] = []
        cells: list[str] = []
        if "replace" in item:
            reps = item["replace"]
            if not isinstance(reps, list) or not reps:
                raise LibraryError(f"{where}: replace 须是非空列表")
            for r in reps:
                if not isinstance(r, dict) or set(r) != {"old", "new"} or not str(r["old"]):
                    raise LibraryError(f"{where}: replace 的每项须含非空 old 与 new")
                if str(r["old"]) == str(r["new"]):
                    raise LibraryError(f"{where}: old 与 new 相同，什么也没改")
                pairs.append((str(r["old"]), str(r["new"])))
        else:
            if not isinstance(item["cells"], list) or not item["cells"] \
                    or not all(isinstance(c, str) for c in item["cells"]):
                raise LibraryError(f"{where}: cells 须是非空的字符串列表（本题每个答案单元格的完整代码）")
            cells = [str(c) for c in item["cells"]]
        if not str(item["mistake"]).strip():
            raise LibraryError(f"{where}: mistake 须写明是哪种误解")
        only_hidden = str(item.get("only_hidden") or "").strip()
        if "only_hidden" in item and not only_hidden:
            raise LibraryError(f"{where}: only_hidden 须写明为什么公开检查不能发现它")
        out.append(Mistake(mid, str(item["question"]), str(item["mistake"]).strip(), tuple(pairs), tuple(cells),
                           only_hidden, str(item.get("origin") or "")))
    return out


_HEADING = re.compile(r"^#+\s*第\s*(\d+)\s*题", re.M)


def answer_cells(nb: dict[str, Any], question: str) -> list[dict[str, Any]]:
    """The answer cells (tagged ``answer``) under the heading "第 N 题" of question ``qN``, in order."""
    current = None
    out = []
    for c in nb["cells"]:
        if c.get("cell_type") == "markdown":
            m = _HEADING.match(build_exercises._source(c).lstrip())
            if m:
                current = f"q{m.group(1)}"
        elif current == question and "answer" in c.get("metadata", {}).get("tags", []):
            out.append(c)
    return out


def through_question(nb: dict[str, Any], question: str) -> dict[str, Any]:
    """A copy of ``nb`` without the cells after question ``qN``'s block (which ends at the next "第 M 题" heading):
    what the student has run when the question's self-check runs. Later questions' cells cannot change what that
    self-check sees, and the simulations some of them run would only cost time."""
    out = json.loads(json.dumps(nb))
    seen = False
    for k, c in enumerate(out["cells"]):
        m = _HEADING.match(build_exercises._source(c).lstrip()) if c.get("cell_type") == "markdown" else None
        if m:
            if seen and f"q{m.group(1)}" != question:
                out["cells"] = out["cells"][:k]
                break
            seen = seen or f"q{m.group(1)}" == question
    return out


def apply(solution: dict[str, Any], mistake: Mistake) -> dict[str, Any]:
    """A copy of the solution notebook with the mistake's edits; each ``old`` must occur exactly once."""
    nb = json.loads(json.dumps(solution))
    if mistake.cells:
        targets = answer_cells(nb, mistake.question)
        if len(targets) != len(mistake.cells):
            raise LibraryError(f"{mistake.id}: 题目 {mistake.question} 有 {len(targets)} 个答案单元格，"
                               f"cells 给了 {len(mistake.cells)} 个")
        for cell, code in zip(targets, mistake.cells, strict=True):
            cell["source"] = code
        return nb
    cells = [c for c in nb["cells"] if c.get("cell_type") == "code"]
    for old, new in mistake.replace:
        old, new = _MARKER.sub("", old), _MARKER.sub("", new)
        hits = [(c, build_exercises._source(c).count(old)) for c in cells]
        total = sum(n for _, n in hits)
        if total != 1:
            raise LibraryError(f"{mistake.id}: {old!r} 在参考解答的代码中出现 {total} 次（应恰好 1 次）")
        cell = next(c for c, n in hits if n)
        cell["source"] = build_exercises._source(cell).replace(old, new)
    return nb


def student_ids(sample_id: str, ids: int | str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """The IDs to judge for: the sample alone (``None`` or 1), the sample and ``N − 1`` of :data:`EXTRA_IDS`
    (an integer or a string of digits), or the IDs given (a comma-separated string or a sequence)."""
    if ids is None:
        return (sample_id,)
    if isinstance(ids, int) or (isinstance(ids, str) and ids.strip().isdigit() and "," not in ids):
        n = int(ids)
        if not 1 <= n <= 1 + len(EXTRA_IDS):
            raise LibraryError(f"--ids 须在 1 到 {1 + len(EXTRA_IDS)} 之间，或是以逗号分隔的学号，得到 {ids!r}")
        return (sample_id, *[i for i in EXTRA_IDS if i != sample_id][: n - 1])
    given = [i.strip() for i in (ids.split(",") if isinstance(ids, str) else ids)]
    if not given or not all(given):
        raise LibraryError(f"--ids 的学号不能为空：{ids!r}")
    return tuple(dict.fromkeys(given))


def judge(set_dir: Path, work: Path | None = None, *, hidden: bool = True, file: str = "mistakes.yml",
          ids: int | str | tuple[str, ...] | list[str] | None = None) -> list[Verdict]:
    """Build the set (without its self-check) and grade every entry of ``file`` for the set's sample student —
    or, with ``ids``, for several students (see :func:`student_ids`): a mistake is then caught only if it is caught
    for every one of them.

    With ``hidden=False`` only the mistake's question's public checks run (what a student sees; much faster when
    hidden checks simulate), and ``score`` counts those alone — except for entries marked ``only_hidden``, whose
    hidden checks run too."""
    set_dir = Path(set_dir)
    mistakes = load(set_dir, file, required=file == "mistakes.yml")
    if not mistakes:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        built = build_exercises.build_set(set_dir, Path(work or tmp), check=False)
        package = Package.load(built.autograder_zip)
        solution = json.loads(built.autograder_notebook.read_text(encoding="utf-8"))
    questions = {q.name: q for q in package.questions}
    who = student_ids(package.sample_id, ids)
    verdicts = []
    for m in mistakes:
        if m.question not in questions:
            raise LibraryError(f"{m.id}: 没有题目 {m.question!r}（有 {', '.join(questions)}）")
        if not any(not c.hidden for c in questions[m.question].checks):
            raise LibraryError(f"{m.id}: 题目 {m.question} 没有公开检查")
        edited = through_question(apply(solution, m), m.question)

        def wanted(question: str, check: Check, m: Mistake = m) -> bool:
            return question == m.question and (hidden or bool(m.only_hidden) or not check.hidden)

        def every(question: str, check: Check, m: Mistake = m) -> bool:
            return question == m.question

        runs = []
        coincident = []
        for sid in who:
            cells = build_exercises.code_cells(build_exercises.with_student_id(edited, sid))
            out = grade_cells(package, cells, sid, LIMITS, unsafe=True, select=wanted)
            mine = [r for r in out.checks if r.question == m.question]
            public = tuple(r.name for r in mine if not r.hidden and r.message)
            if not public and sid != who[0] and file == "mistakes.yml":
                # Slipped through for this ID: unless it is a mistake here at all. An entry that every check of its
                # question passes with full marks gives this ID's correct answers (need2 happens to be the case
                # the student computed, say) and is no mistake for it.
                full = out if hidden else grade_cells(package, cells, sid, LIMITS, unsafe=True, select=every)
                if all(not r.message for r in full.checks if r.question == m.question) \
                        and full.scores.get(m.question, 0.0) >= questions[m.question].points:
                    coincident.append(sid)
                    continue
            runs.append((sid, public, tuple(r.name for r in mine if r.hidden and r.message),
                         out.scores.get(m.question, 0.0)))
        scores = [score for *_, score in runs]
        verdicts.append(Verdict(
            m, runs[0][1], runs[0][2], max(scores), questions[m.question].points,
            public_missed=tuple(sid for sid, pub, _, _ in runs if not pub),
            hidden_missed=tuple(sid for sid, _, hid, _ in runs if not hid),
            lowest=min(scores), ids=who, coincident_ids=tuple(coincident),
        ))
    return verdicts


def tally(verdicts: list[Verdict]) -> dict[str, int]:
    """How many entries public checks caught, how many only hidden checks caught, and how many neither."""
    return {
        "public": sum(v.by_public for v in verdicts),
        "hidden": sum(not v.by_public and v.by_hidden for v in verdicts),
        "neither": sum(not v.by_public and not v.by_hidden for v in verdicts),
    }


def report(set_dir: Path, ids: int | str | None = None) -> tuple[str, bool]:
    verdicts = judge(set_dir, ids=ids)
    n = tally(verdicts)
    who = verdicts[0].ids if verdicts else ()
    over = f"（按 {len(who)} 个学号：{'、'.join(who)}；每个学号都被发现才算发现）" if len(who) > 1 else ""
    lines = [f"{Path(set_dir).name}: {len(verdicts)} 个典型错误{over}，公开检查发现 {n['public']} 个，"
             f"只有隐藏检查发现 {n['hidden']} 个，都没发现 {n['neither']} 个"]
    for v in verdicts:
        mark = "✓" if v.caught else "✗"
        note = f"（只由隐藏检查发现：{v.mistake.only_hidden}）" if v.mistake.only_hidden else ""
        missed = f"；学号 {'、'.join(v.missed_ids)} 的数据上没被发现" if v.missed_ids else ""
        if v.coincident_ids:
            missed += f"；学号 {'、'.join(v.coincident_ids)} 的数据上它在容差之内就是正确答案（所有检查满分，不计）"
        lines.append(f"  {mark} {v.mistake.question} {v.mistake.id}: 公开检查失败 {len(v.public_failed)} 项，"
                     f"隐藏检查失败 {len(v.hidden_failed)} 项，得分 {v.score:g}/{v.possible:g}{missed} — "
                     f"{v.mistake.mistake}{note}")
    ok = len(verdicts) >= MIN_MISTAKES and all(v.caught for v in verdicts)
    if len(verdicts) < MIN_MISTAKES:
        lines.append(f"  ✗ 只有 {len(verdicts)} 个典型错误，至少需要 {MIN_MISTAKES} 个")
    variants = judge(set_dir, file="variants.yml", ids=ids)
    for v in variants:
        full = v.full_marks
        ok &= full
        least = v.score if v.lowest is None else v.lowest
        lines.append(f"  {'✓' if full else '✗'} 正确答案的另一种写法 {v.mistake.question} {v.mistake.id}: "
                     f"得分 {least:g}/{v.possible:g} — {v.mistake.mistake}")
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="把习题集的典型错误答案逐个交给评分程序，报告哪些检查发现了它们。")
    parser.add_argument("set_dirs", type=Path, nargs="+", help="习题集目录，例如 exercises/source/ring-allreduce")
    parser.add_argument("--ids", default=None,
                        help="按几个学号判断每个错误：一个数 N（示例学号加 N−1 个固定学号）或以逗号分隔的学号；"
                             "每个学号都被发现才算发现")
    args = parser.parse_args(argv)
    status = 0
    for d in args.set_dirs:
        try:
            text, ok = report(d, ids=args.ids)
        except (LibraryError, build_exercises.BuildError) as exc:
            text, ok = f"{d.name}: 错误：{exc}", False
        print(text)
        status |= not ok
    return status


if __name__ == "__main__":
    raise SystemExit(main())
