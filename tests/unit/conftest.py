"""Fixtures shared by the figure tests; the hypothesis profile of the unit tests."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from hypothesis import settings

# Property tests check results, not speed: on a shared machine one example can take longer than hypothesis's
# default 200 ms deadline, which would fail a correct test.
settings.register_profile("clusterlab", deadline=None)
settings.load_profile("clusterlab")


@pytest.fixture
def no_leak() -> Iterator[None]:
    """Fails a test whose function left a pyplot figure open."""
    before = set(plt.get_fignums())
    yield
    assert set(plt.get_fignums()) == before, "a function left a pyplot figure open"


@pytest.fixture
def strict_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Every warning is an error (a missing CJK glyph would raise); the record also lets a test look for
    'Glyph … missing'."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("error")
        yield record
    assert not [w for w in record if "Glyph" in str(w.message)]
