"""The formula sheet equals the code: every entry's LaTeX, transcribed as a plain-Python reference, agrees with the
clusterlab function it names at many points of its symbols' ranges (hypothesis), and the sheet renders."""

from __future__ import annotations

import importlib
import inspect
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from clusterlab.book import formulas

KEYS = [f.key for f in formulas.FORMULAS]


def _strategy(sym: formulas.Symbol) -> st.SearchStrategy:
    if sym.integer:
        lo, hi = int(sym.low), int(sym.high)
        powers = [2**k for k in range(0, 21) if lo <= 2**k <= hi]  # powers of two: halving-doubling, even radix
        return st.one_of(st.integers(lo, hi), st.sampled_from(powers)) if powers else st.integers(lo, hi)
    return st.floats(sym.low, sym.high, allow_nan=False, allow_infinity=False)


def _values(f: formulas.Formula) -> st.SearchStrategy:
    return st.fixed_dictionaries({s.arg: _strategy(s) for s in f.symbols})


def test_sheet_size_and_unique_keys():
    assert 25 <= len(formulas.FORMULAS) <= 40
    assert len(set(KEYS)) == len(KEYS)
    assert {f.group for f in formulas.FORMULAS} == set(formulas.GROUPS)


@pytest.mark.parametrize("key", KEYS)
def test_entry_is_well_formed(key):
    f = formulas.by_key(key)
    module, _, name = f.function.rpartition(".")
    assert callable(getattr(importlib.import_module(module), name)), f.function
    args = [s.arg for s in f.symbols]
    assert len(set(args)) == len(args)
    assert list(inspect.signature(f.reference).parameters) == args
    assert list(inspect.signature(f.compute).parameters) == args
    for s in f.symbols:
        assert s.low <= s.high and s.meaning and s.unit
    assert f.where.startswith("{") and "`" in f.where
    assert f.latex and "|" not in f.latex


@pytest.mark.parametrize("key", KEYS)
def test_reference_equals_clusterlab(key):
    f = formulas.by_key(key)

    @settings(max_examples=150, deadline=None)
    @given(_values(f))
    def check(values):
        assume(f.holds(**values))
        got, ref = formulas.evaluate(f, values)
        assert math.isclose(got, ref, rel_tol=1e-9, abs_tol=1e-12), (values, got, ref)

    check()


@pytest.mark.parametrize(
    ("key", "values", "expected"),
    [
        ("ar-send", {"size": 14e9, "ranks": 8}, 24.5e9),  # example 9.6.1 of the original
        ("rs-send", {"size": 14e9, "ranks": 8}, 12.25e9),
        ("dp-zero2", {"params": 7e9, "ranks": 8, "param_bytes": 2}, 24.5e9),  # ZeRO-2 = DDP (erratum 4)
        ("mem-zero2", {"params": 7e9, "dp": 8}, 26.25e9),
        ("mem-zero3", {"params": 7e9, "dp": 1}, 112e9),
        ("bubble-total", {"stages": 8, "micro_batches": 64, "chunks": 1}, 7 / 71),
        ("fat-tree-2", {"radix": 64}, 2048),
        ("fat-tree-3", {"radix": 64}, 65536),
        ("mtbf", {"components": 16384, "rate": 419 / (16384 * 54 * 24)}, 54 * 24 / 419 * 3600),
        ("overlap-ratio", {"compute_time": 30, "comm_time": 12, "exposed_time": 4.8}, 0.6),
    ],
)
def test_anchor_values(key, values, expected):
    got, ref = formulas.evaluate(formulas.by_key(key), values)
    assert got == pytest.approx(expected, rel=1e-9) and ref == pytest.approx(expected, rel=1e-9)


def test_a_wrong_reference_is_caught():
    """The comparison can fail: the seed's halved ZeRO-2 volume is not what the code computes."""
    f = formulas.by_key("dp-zero2")
    values = {"params": 7e9, "ranks": 8, "param_bytes": 2}
    got, _ = formulas.evaluate(f, values)
    assert not math.isclose(got, 7e9 * 2 * 7 / 8, rel_tol=1e-6)


def test_sheet_markdown():
    for name in formulas.GROUPS:
        md = formulas.sheet_markdown(formulas.group(name))
        items = [line for line in md.splitlines() if line.startswith("- **")]
        assert len(items) == len(formulas.group(name))
        assert md.count("计算：`") == len(items) and md.count("推导：{") == len(items)
    assert "{ref}" not in formulas.sheet_markdown(formulas.FORMULAS, links=False)
    with pytest.raises(ValueError, match="formulas"):
        formulas.sheet_markdown([])
    with pytest.raises(ValueError, match="name must be one of"):
        formulas.group("nope")
    with pytest.raises(ValueError, match="key must be one of"):
        formulas.by_key("nope")
