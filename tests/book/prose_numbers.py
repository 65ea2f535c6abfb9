"""Find numbers in a notebook's prose that are neither glued nor given as data in its code.

Rule of the book: a number that results from a calculation reaches the prose through ``{glue:text}`` from a code
cell that calls clusterlab; given data appear as literals in code. So every number written in a markdown cell must
be (a) inside a glue role, (b) equal to a literal of the notebook's code cells — directly or after a unit scale
(1e3, 1e6, 1e9, 1e12, 2**10, 2**20, 2**30, 8 bits) — or (c) structural: an integer from 0 to 10, a year, a
section / figure / table / erratum / step number, or part of a citation, link, label or URL. A notebook may list
further allowed numbers in ``metadata.clusterlab.allow_numbers`` (with a reason in the prose).
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
import tokenize
from pathlib import Path

SCALES = (1.0, 1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9, 1e-12, 2.0**10, 2.0**20, 2.0**30, 8.0, 1 / 8, 100.0, 0.01)

NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:[,\u2009]\d{3})+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w])")

# spans removed before numbers are looked for
STRIP = [
    re.compile(r"\{glue(?::\w+)?\}`[^`]*`"),  # glue roles
    re.compile(r"\{(?:ref|numref|prf:ref|doc|eq|download|term)\}`[^`]*`"),  # cross references
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"https?://\S+"),
    re.compile(r"^\s*\(([^)]+)\)=\s*$", re.M),  # MyST targets
    re.compile(r"\$\$\s*\(eq-[\w-]+\)"),  # a displayed equation's label: $$ (eq-962-step)
    re.compile(r"^\s*:(label|name|class):.*$", re.M),  # directive options
    re.compile(r"arXiv:\s*\d+\.\d+", re.I),
    re.compile(r"doi:\S+", re.I),
    re.compile(r"(?:§|第)\s*\d+(?:\.\d+)*"),  # section numbers: §2.1, 第 3 节
    re.compile(r"^\s*#+\s*\d+(?:\.\d+)*", re.M),  # a heading's own number: "# 2.2 NCCL …"
    re.compile(
        r"(?:图|表|例|式|勘误|练习|习题|定义|Table|Fig\.?|Figure|Section|Sec\.|erratum|errata)\s*\d+(?:\.\d+)*", re.I
    ),
    re.compile(r"\d+(?:\.\d+)*\s*节"),
    re.compile(r"第\s*\d+\s*(?:步|题|章|部分|阶段|轮|个|张|层)"),
    re.compile(r"NCCL\s*\d+(?:\.\d+)*"),  # software versions
    re.compile(r"(?:FP|BF|fp|bf|INT|int|float|uint|TF|tf)\s*\d+"),  # number formats
    re.compile(r"(?:H|A|B|V)\d{2,4}\b"),  # accelerator names (H100, A100, V100)
    re.compile(r"\b\d+B\b"),  # model names: 7B, 70B
    re.compile(r"\b[a-zA-Z]\w*_\{?\d+\}?"),  # subscripts in math: x_0, a_{12}
    re.compile(r"\\[a-zA-Z]+"),  # TeX commands
    re.compile(r"\^\{[^}]*\}|\^-?\d+"),  # exponents: 10^{12}, 2^30 (the base is checked, the power is notation)
    re.compile(r"```.*?```", re.S),  # fenced code
    re.compile(r"`[^`]*`"),  # inline code
]


def _literal_values(code: str) -> set[float]:
    values: set[float] = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = []
    for tok in tokens:
        if tok.type == tokenize.NUMBER:
            try:
                v = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(v, int | float):
                values.add(float(v))
    return values


def _matches(x: float, literals: set[float]) -> bool:
    for lit in literals:
        for s in SCALES:
            y = lit / s
            if y != 0 and math.isclose(x, y, rel_tol=1e-9):
                return True
    return False


def structural(x: float) -> bool:
    return (x.is_integer() and 0 <= x <= 10) or (x.is_integer() and 1900 <= x <= 2100)


def unexplained_numbers(path: Path) -> list[tuple[int, str, str]]:
    """``(cell index, number, context)`` for every number in markdown that the rule does not allow."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    literals = _literal_values(code)
    allowed = {float(a) for a in nb.get("metadata", {}).get("clusterlab", {}).get("allow_numbers", [])}
    problems: list[tuple[int, str, str]] = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for pattern in STRIP:
            text = pattern.sub(" ", text)
        for m in NUMBER.finditer(text):
            raw = m.group(1)
            x = float(raw.replace(",", "").replace("\u2009", ""))
            if structural(x) or x in allowed or _matches(x, literals):
                continue
            ctx = text[max(0, m.start() - 25) : m.end() + 25].replace("\n", " ")
            problems.append((i, raw, ctx))
    return problems
