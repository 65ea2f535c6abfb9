"""Question banks for the book's self-check quizzes, one module per section of the book.

Every key is computed by :mod:`clusterlab` from the given data of the question (never typed), and every
numeric question lists the wrong answers a reader is likely to give, with targeted feedback. A notebook
shows a bank with ``quiz.show(part2.c02_questions(), key="c02")``. :data:`BANKS` maps each quiz key to its
bank, so that one test checks every bank (keys accepted, distractors rejected, choices well formed, rendering
deterministic); each bank's own test recomputes its keys independently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ..quiz import Choice, Numeric
from . import (
    appendix_reality,
    part1_96,
    part1_961,
    part1_962,
    part1_963,
    part1_964,
    part1_9651,
    part1_9652,
    part2,
    part2_03,
    part2_04,
    part2_05,
    part2_051,
    part2_06,
    part2_07,
    part2_08,
    part2_21,
    part2_22,
    part2_23,
    part2_231,
)

__all__ = [
    "BANKS",
    "appendix_reality",
    "part1_96",
    "part1_961",
    "part1_962",
    "part1_963",
    "part1_964",
    "part1_9651",
    "part1_9652",
    "part2",
    "part2_03",
    "part2_04",
    "part2_05",
    "part2_051",
    "part2_06",
    "part2_07",
    "part2_08",
    "part2_21",
    "part2_22",
    "part2_23",
    "part2_231",
]

#: quiz key (as used in the notebook's ``quiz.show(..., key=...)``) → the function that builds the bank
BANKS: Final[dict[str, Callable[[], list[Numeric | Choice]]]] = {
    "96": part1_96.questions,
    "961": part1_961.s961_questions,
    "962": part1_962.questions,
    "963": part1_963.questions,
    "964": part1_964.s964_questions,
    "9651": part1_9651.questions,
    "9652": part1_9652.questions,
    "c01": part2.c01_questions,
    "c02": part2.c02_questions,
    "c021": part2_21.c021_questions,
    "c022": part2_22.c022_questions,
    "c023": part2_23.c023_questions,
    "c0231": part2_231.questions,
    "c051": part2_051.questions,
    "c03": part2_03.c03_questions,
    "c04": part2_04.c04_questions,
    "c05": part2_05.c05_questions,
    "c06": part2_06.c06_questions,
    "c07": part2_07.c07_questions,
    "c08": part2_08.c08_questions,
    "reality": appendix_reality.questions,
}
