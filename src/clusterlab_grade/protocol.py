"""The data the sandbox and the judge exchange: JSON lines, never pickle.

This file is copied (read-only) into the sandbox next to ``runner.py``, so it uses only the standard library and
imports numpy lazily. A value is encoded as plain JSON where JSON can say it, and otherwise as a tagged object
``{"__t": tag, ...}``:

* ``tu`` a tuple, ``se``/``fs`` a set/frozenset (items in a fixed order), ``di`` a dict (as key/value pairs,
  so integer keys survive), ``nd`` a numpy array of a numeric
  or boolean dtype (dtype, shape, flat values), ``np`` a numpy scalar (dtype and value);
* ``rng`` a numpy ``Generator`` (its bit generator's state, so a seeded generator arrives seeded);
* ``ref`` a handle ``h`` to an object that stays inside the sandbox (functions, classes, instances, anything not
  listed above). The judge can only ask the sandbox to call it, read an attribute or an item of it; what comes
  back is again data or a handle.

Floats keep their exact value (``repr`` round-trips), so float32 results compare bit for bit after decoding.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

MAX_ITEMS = 2_000_000  # numbers in one message, across all arrays and lists
MAX_DEPTH = 64
RNG_KINDS = ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")


class Unencodable(Exception):
    """A value that cannot travel as data (and no handle table was given)."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is installed wherever this runs
        return None
    return numpy


def encode(obj: Any, ref: Callable[[Any], int] | None = None, pre: Callable[[Any], Any] | None = None) -> Any:
    """``obj`` as JSON-ready data; objects that are not data become ``ref`` handles (or raise).

    ``pre(o)``, when given, is asked first for every object and may return its encoding (the judge uses it to
    send back handles of objects that came from the sandbox).
    """
    budget = [MAX_ITEMS]

    def spend(n: int) -> None:
        budget[0] -= n
        if budget[0] < 0:
            raise Unencodable(f"数据过大（超过 {MAX_ITEMS} 个元素）")

    def handle(o: Any) -> Any:
        if ref is None:
            raise Unencodable(type(o).__name__)
        return {"__t": "ref", "h": ref(o), "k": type(o).__name__[:60]}

    def enc(o: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise Unencodable("嵌套过深")
        spend(1)
        kind = type(o)
        if kind is float or kind is int or kind is str or kind is bool or o is None:  # never a handle: skip pre
            return o
        if pre is not None:
            special = pre(o)
            if special is not None:
                return special
        if o is None or isinstance(o, bool | str):
            return o
        if type(o) is int or type(o) is float:
            return o
        np = _numpy()
        if np is not None:
            if isinstance(o, np.ndarray):
                if o.dtype.kind not in "biuf" or o.dtype.byteorder == ">":
                    return handle(o)
                spend(o.size)
                return {"__t": "nd", "d": o.dtype.str, "s": list(o.shape), "v": o.ravel().tolist()}
            if isinstance(o, np.random.Generator):  # travels as its bit generator's state (a seeded rng)
                state = o.bit_generator.state
                if state.get("bit_generator") not in RNG_KINDS:
                    return handle(o)
                return {"__t": "rng", "v": enc(state, depth + 1)}
            if isinstance(o, np.generic):
                if o.dtype.kind not in "biuf":
                    return handle(o)
                return {"__t": "np", "d": o.dtype.str, "v": o.item()}
        if isinstance(o, int) and not isinstance(o, bool):  # int subclasses (but not numpy)
            return int(o) if type(o).__eq__ is int.__eq__ else handle(o)
        if isinstance(o, float):
            return float(o) if type(o).__eq__ is float.__eq__ else handle(o)
        if type(o) is tuple:
            return {"__t": "tu", "v": [enc(x, depth + 1) for x in o]}
        if type(o) is list:
            return [enc(x, depth + 1) for x in o]
        if type(o) is set or type(o) is frozenset:
            items = [enc(x, depth + 1) for x in o]
            items.sort(key=lambda x: json.dumps(x, sort_keys=True))  # the same set always reads the same
            return {"__t": "se" if type(o) is set else "fs", "v": items}
        if type(o) is dict:
            return {"__t": "di", "v": [[enc(k, depth + 1), enc(v, depth + 1)] for k, v in o.items()]}
        return handle(o)

    return enc(obj, 0)


def decode(data: Any, ref: Callable[[int, str], Any] | None = None) -> Any:
    """The value that :func:`encode` encoded; ``ref(h, kind)`` turns a handle into an object."""

    def dec(d: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ValueError("嵌套过深")
        if d is None or isinstance(d, bool | int | float | str):
            return d
        if isinstance(d, list):
            return [dec(x, depth + 1) for x in d]
        if not isinstance(d, dict):
            raise ValueError("不认识的数据")
        tag = d.get("__t")
        if tag == "tu":
            return tuple(dec(x, depth + 1) for x in d["v"])
        if tag in ("se", "fs"):
            values = [dec(x, depth + 1) for x in d["v"]]
            return set(values) if tag == "se" else frozenset(values)
        if tag == "di":
            out = {}
            for pair in d["v"]:
                k, v = pair
                out[dec(k, depth + 1)] = dec(v, depth + 1)
            return out
        if tag in ("nd", "np"):
            np = _numpy()
            dtype = np.dtype(str(d["d"]))
            if dtype.kind not in "biuf":
                raise ValueError("不允许的 dtype")
            if tag == "np":
                return dtype.type(d["v"])
            shape = tuple(int(n) for n in d["s"])
            return np.array(d["v"], dtype=dtype).reshape(shape)
        if tag == "rng":
            np = _numpy()
            state = dec(d["v"], depth + 1)
            kind = state.get("bit_generator") if isinstance(state, dict) else None
            if kind not in RNG_KINDS:
                raise ValueError("不允许的随机数发生器")
            bits = getattr(np.random, kind)()
            bits.state = state
            return np.random.Generator(bits)
        if tag == "ref":
            if ref is None:
                raise ValueError("这里不接受对象句柄")
            return ref(int(d["h"]), str(d.get("k", ""))[:60])
        raise ValueError(f"不认识的标记 {tag!r}")

    return dec(data, 0)


def dumps(message: dict[str, Any]) -> bytes:
    """One message as a JSON line (UTF-8)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON's \\u escapes carry it
        return (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")


def loads(line: bytes) -> dict[str, Any]:
    """Parse one JSON line; anything but a JSON object is an error."""
    msg = json.loads(line.decode("utf-8"))
    if not isinstance(msg, dict):
        raise ValueError("消息不是 JSON 对象")
    return msg
