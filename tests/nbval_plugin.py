"""pytest plugin for nbval runs (loaded with ``-p tests.nbval_plugin``).

Stored outputs are compared except for MIME types that carry random or binary content by design:
``text/html`` (animations and quizzes: element ids, embedded frames), ``application/javascript`` and
``image/svg+xml``; ``image/png`` is skipped by nbval already. Plain text, stdout/stderr and every glued value
(``application/papermill.record/*``) are still compared, so any number in the prose is regression-checked.
"""

from __future__ import annotations

from typing import Any

SKIP = ("text/html", "application/javascript", "image/svg+xml")


def pytest_collectstart(collector: Any) -> None:
    if getattr(collector, "path", None) is not None and collector.path.suffix == ".ipynb":
        skip = getattr(collector, "skip_compare", None)
        if skip is not None:
            collector.skip_compare = tuple(skip) + SKIP
