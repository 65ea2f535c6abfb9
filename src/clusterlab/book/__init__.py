"""The book-facing layer: what the notebooks call to publish numbers, ask questions and print tables.

:mod:`~clusterlab.book.glue`
    :func:`publish` / :func:`publish_many` (re-exported here): glue plain values under ``<section>-<name>`` keys
    for the prose; :func:`publish_figure` glues a figure, animation or table for a numbered ``{glue:figure}`` /
    ``{glue-table}``.
:mod:`~clusterlab.book.quiz`
    self-check quizzes: build questions, render them as static HTML/JS, show them in a notebook.
:mod:`~clusterlab.book.questions`
    the question specs (:class:`~clusterlab.book.questions.Numeric`, :class:`~clusterlab.book.questions.Choice`),
    the checking rule and the typed-number parser (re-exported by :mod:`~clusterlab.book.quiz`).
:mod:`~clusterlab.book.quizbank`
    one question bank per section, every key computed by the compute layer.
:mod:`~clusterlab.book.tables`
    rows of strings from compute results (the row builders of every section).
:mod:`~clusterlab.book.table`
    rendering: Markdown or HTML, :class:`~clusterlab.book.table.Table` (re-exported by ``tables``); cells of running
    text may wrap.
:mod:`~clusterlab.book.labels`
    the one table of Chinese names for ops, algorithms, phases and checkpoint strategies.

Compute modules never import this package.
"""

from __future__ import annotations

from . import glue, labels, questions, quiz, quizbank, table, tables
from .glue import publish, publish_figure, publish_many

__all__ = [
    "glue",
    "labels",
    "publish",
    "publish_figure",
    "publish_many",
    "questions",
    "quiz",
    "quizbank",
    "table",
    "tables",
]
