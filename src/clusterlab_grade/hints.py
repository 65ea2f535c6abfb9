'''Hints in steps: a check's assertion message that gives more help each time the same check fails.

A master author writes, in a check, ::

    assert ok, 提示("第一步：哪里不对、看正文哪一节", "第二步：点名公式或关键关系")

``提示(步骤1, 步骤2, …)`` is a ``str`` whose text is the first step (so wherever the message is shown as a string —
a traceback, a log, an old tool — only the first step appears) and which carries all steps in ``.步骤``. A plain
string message is one step and behaves as before. :func:`hint_text` renders the first ``n`` steps.

* In the student notebook's self-check (``自测``, :data:`.master.SETUP_CELL`, which carries :data:`HINT_SOURCE`
  verbatim) the first failure of an assertion shows step 1 and a note that another hint follows if a retry fails
  too; each later failure of the same assertion (the same line of the same check) in the kernel session shows one
  step more, so two hinted assertions in one check count apart. ``自测全部()`` shows the steps
  given so far without giving a new one; passing does not take back a step already shown.
* In the judge (:mod:`.judge`) a failed public check reports step 1 only, unless the teacher asks for more
  (``clusterlab-grade --hint-steps N``).
* In the master notebook the checks run in the author's kernel: the master imports the same class with
  ``from clusterlab_grade.hints import 提示`` (a line that :mod:`.master` drops from the student notebook).

The source is kept as text (:data:`HINT_SOURCE`) because the student notebook, which cannot import this package,
must define exactly the same class in its first cell; this module executes that text once.
'''

from __future__ import annotations

from typing import Any

HINT_SOURCE = '''class 提示(str):
    """分步提示：assert 条件, 提示("第一步：哪里不对、看哪里", "第二步：可以点名公式")。
    作为字符串它就是第一步；自测时同一项检查每多失败一次，多显示一步。"""

    def __new__(cls, *步骤):
        步骤 = tuple(str(s).strip() for s in 步骤 if str(s).strip())
        if not 步骤:
            raise ValueError("提示(...) 至少要有一步")
        self = super().__new__(cls, 步骤[0])
        self.步骤 = 步骤
        return self


def _分步(消息, 步数, 分隔="\\n    "):
    """消息的前 步数 步（至少一步）与还没显示的步数；普通字符串原样、没有后续。"""
    步骤 = getattr(消息, "步骤", None)
    if not (isinstance(步骤, tuple) and 步骤 and all(isinstance(s, str) for s in 步骤)):
        return str(消息), 0
    n = max(1, min(int(步数), len(步骤)))
    文字 = 步骤[0] + "".join(f"{分隔}提示 {k + 1}/{len(步骤)}：{步骤[k]}" for k in range(1, n))
    return 文字, len(步骤) - n
'''

_NS: dict[str, Any] = {"__name__": "clusterlab_grade.hints"}
exec(compile(HINT_SOURCE, "<clusterlab_grade.hints>", "exec"), _NS)

提示: Any = _NS["提示"]
HINT_NAME = "提示"
HINT_IMPORT = "from clusterlab_grade.hints import 提示"


def hint_text(message: object, steps: int = 1, sep: str = "；") -> tuple[str, int]:
    """The first ``steps`` steps of an assertion message (at least one) joined by ``sep``, and how many steps are
    left unshown; a plain message is returned as text with none left."""
    text, left = _NS["_分步"](message, steps, sep)
    return str(text), int(left)


def steps_of(message: object) -> tuple[str, ...]:
    """All steps of an assertion message (a plain message is one step)."""
    got = getattr(message, "步骤", None)
    if isinstance(got, tuple) and got and all(isinstance(s, str) for s in got):
        return tuple(got)
    return (str(message),)
