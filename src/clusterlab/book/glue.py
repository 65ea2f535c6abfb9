"""Small helpers for the book's notebooks: glue plain Python values so that prose can quote them.

``publish("961-t-ar-ib", t)`` stores ``float(t)`` under that key (myst-nb ``glue`` with ``display=False``);
prose quotes it as ``{glue:text}`961-t-ar-ib:.2f```. Plain floats matter: NumPy 2 scalars have reprs such as
``np.float64(0.49)`` that break the format spec. Keys are unique across the book: ``<section>-<name>``.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

__all__ = ["publish", "publish_figure", "publish_many"]

_KEY = re.compile(r"^[a-z0-9][a-z0-9.\-]*$")


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"key must be lower-case letters, digits, '.', '-' (e.g. '02-vol-n8'), got {key!r}")


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("value must be a number or a string, not a bool")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"value must be finite, got {value!r}")
        return v
    if isinstance(value, str):
        return value
    raise ValueError(f"value must be a real number or a string, got {type(value).__name__}")


def publish(key: str, value: Any) -> Any:
    """Glue ``value`` (converted to a plain ``int``/``float``/``str``) under ``key``; returns the plain value."""
    _check_key(key)
    plain = _plain(value)
    from myst_nb import glue

    glue(key, plain, display=False)
    return plain


def publish_many(prefix: str, values: dict[str, Any]) -> dict[str, Any]:
    """``publish(f"{prefix}-{name}", v)`` for every item; returns the plain values by name."""
    return {name: publish(f"{prefix}-{name}", v) for name, v in values.items()}


def publish_figure(key: str, obj: Any) -> Any:
    """Glue a figure, an animation or a table under ``key`` for a numbered ``{glue:figure}`` / ``{glue-table}``.

    ``obj`` is a matplotlib figure, an object with a rich HTML representation (an animation from
    :mod:`clusterlab.viz`, a :class:`~clusterlab.book.tables.Table`) or anything IPython can display. Nothing is
    shown where the call stands: the page shows the object where the directive places it, with its number and
    caption. A matplotlib figure is closed after gluing, so the inline backend does not show it a second time.
    Returns ``obj``.
    """
    _check_key(key)
    if obj is None or isinstance(obj, bool | numbers.Number | str):
        raise ValueError(f"obj must be a figure, an animation or a table, got {type(obj).__name__}; use publish()")
    from myst_nb import glue

    glue(key, obj, display=False)
    if type(obj).__module__.startswith("matplotlib"):
        import matplotlib.pyplot as plt

        plt.close(obj)
    return obj
