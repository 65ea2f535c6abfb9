import math

import pytest

from clusterlab import units, validate


def test_decimal_and_binary_prefixes():
    assert units.GB == 1e9
    assert units.GiB == 2**30
    assert units.bytes_to(14e9, "GB") == 14
    assert units.bytes_to(2**30, "GiB") == 1
    assert units.bytes_to(1e9, "GiB") == pytest.approx(0.9313225746)


def test_bits_versus_bytes():
    assert units.gbit_per_s(400) == 50e9
    assert units.gbit_per_s(200) == 25e9
    assert units.gbyte_per_s(300) == 300e9


def test_link_directions():
    nvlink_a100 = units.Link.from_bidirectional(units.gbyte_per_s(600))
    assert nvlink_a100.per_direction == 300e9
    ib = units.Link.from_per_direction(units.gbit_per_s(400))
    assert ib.per_direction == 50e9 and ib.bidirectional == 100e9


@pytest.mark.parametrize(
    ("value", "text"),
    [(14e9, "14 GB"), (24.5e9, "24.5 GB"), (0.875e9, "0.875 GB"), (14336e9, "14 336 GB")],
)
def test_fmt_bytes(value, text):
    assert units.fmt_bytes(value).replace("\u2009", " ") == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.49, "490 ms"), (56, "56 s"), (7168, "1.99 h"), (5e-6, "5 µs"), (898, "15 min")]
)
def test_fmt_seconds(seconds, text):
    assert units.fmt_seconds(seconds) == text


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "x", None, True])
def test_check_positive_rejects(bad):
    with pytest.raises(ValueError, match="bandwidth"):
        validate.positive("bandwidth", bad)


def test_check_ranks():
    assert validate.int_in_range("ranks", 2, 2) == 2
    for bad in (1, 0, -3, 2.5, True, "8"):
        with pytest.raises(ValueError, match="ranks"):
            validate.int_in_range("ranks", bad, 2)


def test_unknown_unit():
    with pytest.raises(ValueError, match="unit"):
        units.bytes_to(1, "gb")


def test_fmt_num_rounding():
    assert units.fmt_num(1.998046875) == "2"
    assert units.fmt_num(1.75) == "1.75"
    assert math.isclose(float(units.fmt_num(0.0816667, 2)), 0.082)
