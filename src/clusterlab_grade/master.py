'''Read an exercise set's master notebook and write its student notebook, solution notebook and grading package.

A set is a folder ``<set>/`` holding the master notebook ``<set>.ipynb`` and ``variant.py``. The master uses raw
cells as delimiters (the syntax of Otter assign v1, read here by this module alone):

* ``# ASSIGNMENT CONFIG`` with ``name: <set>``;
* ``# BEGIN QUESTION`` (``name:``, ``points:``) … ``# END QUESTION``;
* ``# BEGIN SOLUTION`` … ``# END SOLUTION`` around answer cells: in the student version a line ending in
  ``# SOLUTION`` becomes ``name = ...`` (or ``...``), and a block between ``# BEGIN SOLUTION`` and
  ``# END SOLUTION`` comment lines becomes ``...`` (a block of comments only, e.g. a rubric, is dropped);
* ``# BEGIN TESTS`` … ``# END TESTS`` around check cells: ``""" # BEGIN TEST CONFIG`` (``points:``, ``hidden:``,
  optionally ``reference: [name, …]``) ``""" # END TEST CONFIG``, one ``def test_…(…)`` whose parameters are
  names of the notebook (``data`` is the student's variant data), then one call of it. Hidden checks start their
  docstring with ``【隐藏测试】``. ``reference`` names functions defined in the answer cells of *earlier* questions
  that this check grades with the master's own solution instead of the student's (see :mod:`.judge`): the
  package then carries the definitions they need (``reference_source``: those functions, what they call, the
  constants they read and the notebook's imports).

One code cell contains ``from variant import student_data, show_data`` (and ``学号 = "<sample>"``): in the student
notebook it becomes two cells, the generator (``variant.py`` verbatim) and the student-ID cell.
The student notebook carries the public checks as code (run by ``自测("q1", …)``, messages in Chinese) and never a
hidden check; the grading package (a zip: ``exercise.json`` + ``variant.py``) carries all checks.

A check's assertion message may be a hint in steps, ``assert ok, 提示("第一步：哪里不对、看哪里", "第二步：点名公式")``
(:mod:`.hints`). The student notebook's first cell (:data:`SETUP_CELL`) defines ``提示`` (the text of
:data:`.hints.HINT_SOURCE`) and ``自测`` shows one step more each time the same check fails in the kernel session
(``自测全部()`` shows the steps given so far without a new one; a pass takes none back); the judge defines ``提示``
in the checks' namespace and reports the first step only. The master itself runs its checks in the author's
kernel, so a master whose checks use ``提示`` needs the line ``from clusterlab_grade.hints import 提示`` in a code
cell outside the answers (the build refuses a master without it): that line is dropped from the student and
solution notebooks and from the reference source, and a student notebook importing ``clusterlab_grade`` is refused.
'''

from __future__ import annotations

import ast
import copy
import io
import json
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import yaml

from .hints import HINT_IMPORT, HINT_NAME, HINT_SOURCE
from .judge import FORMAT, HIDDEN_MARKER

SOLUTION_LINE = re.compile(r"^(\s*)(.*?)\s*# SOLUTION\s*$")
ASSIGNMENT = re.compile(r"^(\s*)([A-Za-z_][\w\.]*(?:\s*,\s*[A-Za-z_][\w\.]*)*)\s*=(?!=)")
CONFIG_BLOCK = re.compile(r'^"""\s*# BEGIN TEST CONFIG\n(.*?)\n"""\s*# END TEST CONFIG\n', re.S)
TEST_DEF = re.compile(r"^def (test_\w+)\(", re.M)
SAMPLE_ID = re.compile(r"""^学号\s*=\s*["']([^"']*)["']""", re.M)
VARIANT_IMPORT = "from variant import student_data, show_data"
ANSWER_IMPORT_RE = re.compile(r"^\s*(?:from|import)\s+clusterlab\b", re.MULTILINE)
GRADER_IMPORT_RE = re.compile(r"^\s*(?:from|import)\s+clusterlab_grade\b", re.MULTILINE)
HINT_IMPORT_LINE = re.compile(rf"^[ \t]*{re.escape(HINT_IMPORT)}[ \t]*(?:#.*)?(?:\n|$)", re.MULTILINE)
HINT_CALL = re.compile(rf"(?<![\w.]){HINT_NAME}\s*\(")


class MasterError(Exception):
    """The master notebook does not follow the format; the message says where."""


@dataclass
class TestCell:
    name: str
    points: float
    hidden: bool
    source: str  # the function definition only
    description: str
    reference: tuple[str, ...] = ()  # earlier questions' functions graded with the master's solution


@dataclass
class QuestionSpec:
    name: str
    points: float
    tests: list[TestCell]
    manual: list[dict[str, Any]] = field(default_factory=list)  # free-text answers: name, rubric, points


@dataclass
class Parsed:
    set_name: str
    sample_id: str
    questions: list[QuestionSpec]
    student: nbformat.NotebookNode
    solution: nbformat.NotebookNode
    reference_source: str = ""


def _raw_kind(cell: Any) -> str | None:
    if cell.cell_type != "raw":
        return None
    first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
    return first.strip() if first.startswith("# ") else None


def _yaml(cell: Any) -> dict[str, Any]:
    body = "\n".join(cell.source.strip().splitlines()[1:])
    data = yaml.safe_load(body) if body.strip() else {}
    return data if isinstance(data, dict) else {}


def _open_statement(code: str) -> bool:
    """Whether ``code`` ends inside a statement: an open bracket or string, or a trailing backslash."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(textwrap.dedent(code) + "\n").readline):
            pass
    except tokenize.TokenError:
        return True
    except (IndentationError, SyntaxError):
        return False
    return False


def strip_solution(source: str) -> str:
    """The student version of an answer cell.

    A line ending in ``# SOLUTION`` becomes ``name = ...`` (an assignment) or ``...``; when that line opens a
    statement that continues on the next lines (an open bracket, a backslash), the whole statement goes, so the
    student's cell still parses. ``# BEGIN SOLUTION`` … ``# END SOLUTION`` becomes one ``...`` (nothing if the block
    holds only comments).
    """
    out: list[str] = []
    block_indent: str | None = None
    block_has_code = False
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if block_indent is not None:
            if stripped == "# END SOLUTION":
                if block_has_code:  # a block of comments only (a rubric) leaves nothing behind
                    out.append(f"{block_indent}...")
                block_indent = None
            elif stripped and not stripped.startswith("#"):
                block_has_code = True
            continue
        if stripped == "# BEGIN SOLUTION":
            block_indent = line[: len(line) - len(line.lstrip())]
            block_has_code = False
            continue
        m = SOLUTION_LINE.match(line)
        if m:
            statement = m.group(1) + m.group(2)
            while i < len(lines) and _open_statement(statement):
                statement += "\n" + re.sub(r"\s*# SOLUTION\s*$", "", lines[i])
                i += 1
            a = ASSIGNMENT.match(m.group(1) + m.group(2))
            out.append(f"{a.group(1)}{a.group(2)} = ..." if a else f"{m.group(1)}...")
            continue
        out.append(line)
    return "\n".join(out)


TEXT_ANSWER = re.compile(r"""^([A-Za-z_]\w*)\s*=\s*(?:"[^"]{12,}"|'[^']{12,}')\s*# SOLUTION\s*$""")
RUBRIC_POINTS = re.compile(r"(\d+(?:\.\d+)?)\s*分(?![钟之])")


def manual_answers(source: str) -> list[dict[str, Any]]:
    """The free-text answers of a solution cell: a ``name = "…"  # SOLUTION`` line (a sentence, at least 12
    characters) in a cell whose solution comments hold a rubric marked 人工评阅. The rubric is those comment lines;
    its points are the ``N 分`` of its first line, if it says (otherwise the teacher decides)."""
    rubric: list[str] = []
    inside = False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == "# BEGIN SOLUTION":
            inside = True
        elif stripped == "# END SOLUTION":
            inside = False
        elif inside and stripped.startswith("#"):
            rubric.append(stripped.lstrip("#").strip())
    if not any("人工评阅" in r for r in rubric):
        return []
    names = [m.group(1) for m in (TEXT_ANSWER.match(ln.strip()) for ln in source.splitlines()) if m]
    text = "\n".join(rubric)
    points = RUBRIC_POINTS.search(rubric[0]) if rubric else None
    return [{"name": n, "rubric": text, "points": float(points.group(1)) if points else None} for n in names]


def solution_source(source: str) -> str:
    """The solution version: markers removed, code kept."""
    lines = [ln for ln in source.splitlines() if ln.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION")]
    return "\n".join(re.sub(r"\s*# SOLUTION\s*$", "", ln) for ln in lines)


def parse_test(source: str, where: str) -> TestCell:
    m = CONFIG_BLOCK.match(source)
    if not m:
        raise MasterError(f"{where}：测试单元格应以 TEST CONFIG 块开头")
    config = yaml.safe_load(m.group(1)) or {}
    rest = source[m.end():]
    names = TEST_DEF.findall(rest)
    if len(names) != 1:
        raise MasterError(f"{where}：测试单元格应恰好定义一个 test_ 函数")
    name = names[0]
    body = rest.rstrip()
    last = body.splitlines()[-1]
    if last.startswith(f"{name}("):
        body = "\n".join(body.splitlines()[:-1]).rstrip()
    hidden = bool(config.get("hidden", False))
    doc = re.search(r'def \w+\(.*?\):\n\s+("""|\'\'\')(.*?)\1', body, re.S)
    description = doc.group(2).strip() if doc else ""
    if hidden and not description.startswith(HIDDEN_MARKER):
        raise MasterError(f"{where}：隐藏测试 {name} 的文档字符串应以 {HIDDEN_MARKER} 开头")
    description = re.sub(rf"^{HIDDEN_MARKER}\s*q\w+：", "", description).strip()
    raw = config.get("reference") or []
    names = raw.replace(",", " ").split() if isinstance(raw, str) else [str(n) for n in raw]
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise MasterError(f"{where}：reference 应列出函数名，{bad} 不是")
    return TestCell(name, float(config.get("points", 0)), hidden, body + "\n", description, tuple(names))


# ------------------------------------------------------------------------------------------------------------
# reference implementations: the master's own definitions that checks use in place of the student's
# ------------------------------------------------------------------------------------------------------------
@dataclass
class _Definition:
    order: int
    source: str
    loads: set[str]


class Definitions:
    """The top-level definitions of the master's code cells (answer cells in their solution version): imports,
    functions, classes and constants (assignments of a literal), and which question's answer defines a function."""

    def __init__(self) -> None:
        self.imports: list[str] = []
        self.names: dict[str, _Definition] = {}
        self.answers: dict[str, str] = {}  # function or class name → question whose answer cell defines it
        self._order = 0

    def add(self, source: str, question: str | None) -> None:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return
        lines = source.splitlines()
        for node in tree.body:
            self._order += 1
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            text = "\n".join(lines[first - 1 : node.end_lineno])
            loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if isinstance(node, ast.Import | ast.ImportFrom):
                if not (isinstance(node, ast.ImportFrom) and node.module == "variant") and text not in self.imports:
                    self.imports.append(text)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.names[node.name] = _Definition(self._order, text, loads - {node.name})
                if question is not None:
                    self.answers[node.name] = question
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if all(isinstance(t, ast.Name) for t in targets):
                    try:
                        ast.literal_eval(node.value)
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        continue
                    for t in targets:
                        assert isinstance(t, ast.Name)
                        self.names[t.id] = _Definition(self._order, text, set())

    def source(self, wanted: set[str]) -> str:
        """A module defining ``wanted`` and everything of the notebook they use, in the notebook's order."""
        needed: set[str] = set()
        todo = sorted(wanted)
        while todo:
            name = todo.pop()
            if name in needed or name not in self.names:
                continue
            needed.add(name)
            todo += sorted(self.names[name].loads - needed)
        parts = sorted({id(self.names[n]): self.names[n] for n in needed}.values(), key=lambda d: d.order)
        return "\n".join(self.imports) + "\n\n\n" + "\n\n\n".join(d.source for d in parts) + "\n"


SETUP_HEAD = '''# 初始化自测工具：请先运行本单元格
import inspect as _inspect
import traceback as _traceback

_自测表 = {}
_已给提示 = {}  # (题号, 检查, 检查里的行号) → 这条 assert 已经显示过几步提示（重启内核后清零）


'''

SETUP_BODY = '''

def 自测(题号, *检查函数, 简答=(), _再给提示=True):
    """运行一道题的公开检查并用中文报告结果；评分时还有更多（隐藏的）检查。简答题只看有没有作答（由老师评阅）。
    有的检查提示分几步：同一项检查每多失败一次，多显示一步。"""
    _自测表[题号] = (检查函数, 简答)
    通过 = 0
    for 函数 in 检查函数:
        参数 = []
        for 名字 in _inspect.signature(函数).parameters:
            if 名字 not in globals():
                print(f"✗ {题号}：还没有定义 {名字}，请先运行本题的答案单元格")
                break
            if globals()[名字] is ...:
                print(f"✗ {题号}：{名字} 还是 ...，请先作答")
                break
            参数.append(globals()[名字])
        else:
            try:
                函数(*参数)
            except AssertionError as 错误:
                消息 = 错误.args[0] if len(错误.args) == 1 else None
                if len(getattr(消息, "步骤", ())) > 1:
                    # 每一条 assert 各自计数：键里有检查函数中失败的那一行（同一检查里的两条提示互不相扰）
                    行 = [帧.lineno for 帧 in _traceback.extract_tb(错误.__traceback__)
                         if 帧.name == 函数.__name__]
                    键 = (题号, 函数.__name__, 行[-1] if 行 else 0)
                    已给 = _已给提示.get(键, 0)
                    _已给提示[键] = 已给 = max(已给 + 1 if _再给提示 else 已给, 1)
                    文字, 还有 = _分步(消息, 已给)
                    print(f"✗ {题号} 未通过：{文字}")
                    if 还有:
                        print(f"    （还有 {还有} 步提示：改过之后再运行本单元格，仍未通过时会多显示一步）")
                else:
                    print(f"✗ {题号} 未通过：{错误}")
            except Exception as 错误:
                print(f"✗ {题号}：运行出错（{type(错误).__name__}: {错误}）")
            else:
                通过 += 1
    空着 = [名字 for 名字 in 简答
          if not isinstance(globals().get(名字), str) or globals()[名字].strip() in ("", "...", "…")]
    for 名字 in 空着:
        print(f"✗ {题号}：简答 {名字} 还没有作答（由老师评阅；空着不得分）")
    if 检查函数 and 通过 == len(检查函数):
        print(f"✓ {题号}：公开检查全部通过（{通过} 项）")
    return 通过 == len(检查函数) and not 空着


def 自测全部():
    """把已经运行过的各题公开检查再跑一遍，并列出还空着的简答（分步的提示只显示已经给过的几步）。"""
    结果 = [自测(题号, *函数, 简答=简答, _再给提示=False) for 题号, (函数, 简答) in list(_自测表.items())]
    print(f"共 {len(结果)} 题，公开检查全部通过（简答已作答）的 {sum(结果)} 题")
'''

SETUP_CELL = SETUP_HEAD + HINT_SOURCE + SETUP_BODY

ID_CELL = '''学号 = ""  # ← 在引号里填写你的学号，然后运行本单元格：下面会列出只属于你的数据
data = student_data(学号)
show_data(data)'''

GENERATOR_HEADER = "# 由学号生成你的数据（每人不同，评分时按同样的方法重算）：请运行，不要修改\n"
LOCKED = {"deletable": False, "editable": False}


def _md(text: str, **meta: Any) -> Any:
    return nbformat.v4.new_markdown_cell(text, metadata=dict(meta))


def _code(text: str, **meta: Any) -> Any:
    return nbformat.v4.new_code_cell(text, metadata=dict(meta))


def parse(master_path: Path, variant_source: str) -> Parsed:
    """Parse a master notebook; build the student and solution notebooks in memory."""
    nb = nbformat.read(master_path, as_version=4)
    set_name = ""
    sample_id = ""
    questions: list[QuestionSpec] = []
    student: list[Any] = [_code(SETUP_CELL, **LOCKED)]
    solution: list[Any] = [_code(SETUP_CELL, **LOCKED)]
    current: QuestionSpec | None = None
    mode = ""  # "", "solution", "tests"
    definitions = Definitions()
    first_md_in_question = False
    hint_imported = False
    for i, cell in enumerate(nb.cells):
        where = f"{master_path.name} 第 {i + 1} 个单元格"
        kind = _raw_kind(cell)
        if cell.cell_type == "code" and mode != "solution" and HINT_IMPORT_LINE.search(cell.source):
            # the master's own copy of the hint class: the student notebook defines it in its first cell
            hint_imported = True
            cell = copy.deepcopy(cell)
            cell.source = HINT_IMPORT_LINE.sub("", cell.source).strip("\n")
            if not cell.source.strip():
                continue
        if kind == "# ASSIGNMENT CONFIG":
            set_name = str(_yaml(cell).get("name", ""))
            continue
        if kind == "# BEGIN QUESTION":
            cfg = _yaml(cell)
            current = QuestionSpec(str(cfg["name"]), float(cfg["points"]), [])
            questions.append(current)
            first_md_in_question = True
            continue
        if kind == "# END QUESTION":
            if current is None:
                raise MasterError(f"{where}：END QUESTION 前没有 BEGIN QUESTION")
            public = [t for t in current.tests if not t.hidden]
            if public or current.manual:
                calls = "".join(f", {t.name}" for t in public)
                if current.manual:
                    names = ", ".join(f'"{m["name"]}"' for m in current.manual)
                    calls += f", 简答=({names},)"
                text = f"# 第 {current.name[1:]} 题自测（公开检查）：运行本单元格\n\n"
                text += "\n\n".join(t.source.rstrip() for t in public)
                text += f'\n\n\n自测("{current.name}"{calls})'
                student.append(_code(text, **LOCKED))
                solution.append(_code(text, **LOCKED))
            current = None
            continue
        if kind in ("# BEGIN SOLUTION", "# BEGIN TESTS"):
            mode = "solution" if kind == "# BEGIN SOLUTION" else "tests"
            continue
        if kind in ("# END SOLUTION", "# END TESTS"):
            mode = ""
            continue
        if cell.cell_type == "raw":
            raise MasterError(f"{where}：不认识的分隔单元格 {cell.source.strip()[:40]!r}")
        if mode == "tests":
            if current is None:
                raise MasterError(f"{where}：测试不在题目之内")
            test = parse_test(cell.source, where)
            for name in test.reference:
                owner = definitions.answers.get(name)
                if owner is None or owner == current.name:
                    raise MasterError(f"{where}：reference 中的 {name} 应是前面某道题的答案单元格里定义的函数"
                                      f"{'（它属于本题）' if owner == current.name else ''}")
            current.tests.append(test)
            continue
        if cell.cell_type == "markdown":
            text = cell.source
            if current is not None and first_md_in_question:
                text = f"{text.rstrip()}\n\n**本题 {current.points:g} 分**"
                first_md_in_question = False
            meta = LOCKED if current is not None else {}
            student.append(_md(text, **meta))
            solution.append(_md(text, **meta))
            continue
        if VARIANT_IMPORT in cell.source:
            m = SAMPLE_ID.search(cell.source)
            sample_id = m.group(1) if m else ""
            gen = GENERATOR_HEADER + variant_source.rstrip()
            for out in (student, solution):
                out.append(_code(gen, **LOCKED))
            student.append(_code(ID_CELL))
            solution.append(_code(ID_CELL.replace('学号 = ""', f'学号 = "{sample_id}"', 1)))
            continue
        if mode == "solution" and current is not None:
            current.manual += manual_answers(cell.source)
        if cell.cell_type == "code":
            definitions.add(solution_source(cell.source) if mode == "solution" else cell.source,
                            current.name if mode == "solution" and current is not None else None)
        if mode == "solution":
            student.append(_code(strip_solution(cell.source), tags=["answer"]))
            solution.append(_code(solution_source(cell.source), tags=["answer"]))
        else:
            student.append(_code(cell.source))
            solution.append(_code(cell.source))
    if not set_name:
        raise MasterError(f"{master_path.name}：缺少 # ASSIGNMENT CONFIG（name: 套名）")
    if not sample_id:
        raise MasterError(f"{master_path.name}：缺少含 `{VARIANT_IMPORT}` 与示例学号的单元格")
    hinted = [t.name for q in questions for t in q.tests if HINT_CALL.search(t.source)]
    if hinted and not hint_imported:
        raise MasterError(f"{master_path.name}：检查 {', '.join(hinted)} 用了 {HINT_NAME}(…)，主笔记本还需要一行"
                          f" `{HINT_IMPORT}`（在答案单元格之外；学生版里去掉，学生版的第一个单元格自带 {HINT_NAME}）")
    ending = [_md("---\n\n全部做完后，运行下面的单元格，把所有公开检查再跑一遍。"), _code("自测全部()", **LOCKED)]
    result = []
    for cells in (student, solution):
        book = nbformat.v4.new_notebook()
        book.metadata = {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "exercise": {"set": set_name, "format": FORMAT},
        }
        book.cells = cells + copy.deepcopy(ending)
        for k, c in enumerate(book.cells):
            c["id"] = f"{set_name}-{k:02d}"[-64:]
        nbformat.validate(book)
        result.append(book)
    wanted = {n for q in questions for t in q.tests for n in t.reference}
    reference = definitions.source(wanted) if wanted else ""
    return Parsed(set_name, sample_id, questions, result[0], result[1], reference)


def package_spec(parsed: Parsed) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "format": FORMAT,
        "set": parsed.set_name,
        "sample_id": parsed.sample_id,
        "questions": [
            {"name": q.name, "points": q.points,
             "checks": [{"name": t.name, "points": t.points, "hidden": t.hidden, "source": t.source,
                         "description": t.description, **({"reference": list(t.reference)} if t.reference else {})}
                        for t in q.tests],
             "manual": q.manual}
            for q in parsed.questions
        ],
        "starter": [c.source for c in parsed.student.cells if c.cell_type == "code"],
    }
    if parsed.reference_source:
        spec["reference_source"] = parsed.reference_source
    return spec


def notebook_text(nb: nbformat.NotebookNode) -> str:
    text = str(nbformat.writes(nb, version=4))
    return text if text.endswith("\n") else text + "\n"


def student_problems(nb: nbformat.NotebookNode) -> list[str]:
    """Reasons the student notebook must not be handed out (empty when it is fine)."""
    text = json.dumps(nb, ensure_ascii=False)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    problems = []
    if HIDDEN_MARKER in text:
        problems.append("含有隐藏测试")
    if ANSWER_IMPORT_RE.search(code):
        problems.append("导入了 clusterlab（它会直接给出答案）")
    if GRADER_IMPORT_RE.search(code):
        problems.append("导入了 clusterlab_grade（学生没有这个包）")
    if "grader.check" in code or "import otter" in code:
        problems.append("含有 Otter 的自测单元格")
    return problems
