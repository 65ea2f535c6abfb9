"""Question banks for the book's self-check quizzes, one module per part of the book.

Every key is computed by :mod:`clusterlab` from the given data of the question (never typed), and every
numeric question lists the wrong answers a reader is likely to give, with targeted feedback. A notebook
shows a bank with ``quiz.show(part2.c02_questions(), key="c02")``; the unit tests recompute each key
independently.
"""

from . import part2

__all__ = ["part2"]
