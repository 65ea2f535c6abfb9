"""The §2.3 α-β-γ fit, the measurement checks and the book's comparison table."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.book import mpilab
from clusterlab.lab import mpibench, mpicheck, mpifit, mpigamma

REF = Path(__file__).resolve().parents[2] / "book" / "_data" / "mpi_lab_reference.csv"
SIZES = tuple(1e3 * 2.0**k for k in range(0, 17, 2))


def _sample(alg: str, n: int, z: float, t: float, spread: float = 0.0) -> mpifit.Sample:
    return mpifit.Sample("all_reduce", alg, n, z, t, t * (1 - spread / 2), t * (1 + spread / 2), t, t, 7)


def _synthetic(alpha: float, beta: float, gamma: float, n: int = 2) -> list[mpifit.Sample]:
    return [_sample(a, n, z, mpigamma.gamma_terms("all_reduce", a, z, n).priced(alpha, beta, gamma).time)
            for a in mpifit.MPI_ALGORITHMS["all_reduce"] for z in SIZES]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_reduced_bytes_is_a_fixed_fraction_of_sent_bytes(n: int) -> None:
    for alg, frac in (("ring", 0.5), ("recursive_doubling", 1.0), ("reduce_scatter_allgather", None)):
        g = mpigamma.gamma_terms("all_reduce", alg, 1e6, n)
        if frac is not None and n & (n - 1) == 0:  # N a power of two: no fold-in/out
            assert g.reduced == pytest.approx(frac * g.bytes)
    assert mpigamma.reduced_bytes("all_reduce", "ring", 8e6, 4) == pytest.approx(6e6)
    assert mpigamma.reduced_bytes("all_reduce", "recursive_doubling", 1e6, 8) == pytest.approx(3e6)
    assert mpigamma.reduced_bytes("all_reduce", "recursive_doubling", 1e6, 6) == pytest.approx(3e6)  # 2 + fold
    assert mpigamma.reduced_bytes("all_reduce", "reduce_scatter_allgather", 1e6, 4) == pytest.approx(0.75e6)
    assert mpigamma.reduced_bytes("all_gather", "ring", 1e6, 4) == 0.0


@settings(max_examples=40, deadline=None)
@given(alpha=st.floats(1e-7, 1e-4), beta=st.floats(1e8, 1e11), gamma=st.floats(1e-12, 1e-9),
       n=st.sampled_from([2, 4, 8]))
def test_fit_recovers_alpha_beta_gamma(alpha: float, beta: float, gamma: float, n: int) -> None:
    f = mpigamma.fit_gamma("all_reduce", _synthetic(alpha, beta, gamma, n))
    assert f.latency == pytest.approx(alpha, rel=1e-6)
    assert f.bandwidth == pytest.approx(beta, rel=1e-6)
    assert f.reduction == pytest.approx(gamma, rel=1e-5)
    assert f.clamped == () and f.rms_residual < 1e-9


def test_fit_clamps_negative_gamma_at_zero() -> None:
    # recursive doubling made cheaper per byte than the model allows: the free γ goes negative
    pts = [_sample(s.algorithm, 2, s.size, s.median * (0.7 if s.algorithm == "recursive_doubling" and s.size > 1e5
                                                         else 1.0))
           for s in _synthetic(3e-6, 3e9, 1e-10)]
    f = mpigamma.fit_gamma("all_reduce", pts)
    assert f.reduction == 0.0 and "γ" in f.clamped and math.isinf(f.reduction_rate)


def test_gamma_is_not_identifiable_from_one_algorithm_or_ring_with_rabenseifner() -> None:
    one = [s for s in _synthetic(3e-6, 3e9, 1e-10) if s.algorithm == "ring"]
    with pytest.raises(ValueError, match="cannot separate γ from β"):
        mpigamma.fit_gamma("all_reduce", one)
    two = [s for s in _synthetic(3e-6, 3e9, 1e-10) if s.algorithm != "recursive_doubling"]
    with pytest.raises(ValueError, match="cannot separate"):
        mpigamma.fit_gamma("all_reduce", two)


def test_bad_input_names_the_parameter() -> None:
    with pytest.raises(ValueError, match="op"):
        mpigamma.fit_gamma("all_gather", _synthetic(3e-6, 3e9, 1e-10))
    with pytest.raises(ValueError, match="at least 3"):
        mpigamma.fit_gamma("all_reduce", _synthetic(3e-6, 3e9, 1e-10)[:2])
    with pytest.raises(ValueError, match="ranks"):
        mpigamma.reduced_bytes("all_reduce", "ring", 1e3, 1)
    with pytest.raises(ValueError, match="size"):
        mpigamma.reduced_bytes("all_reduce", "ring", -1.0, 2)
    with pytest.raises(ValueError, match="reduction"):
        mpigamma.gamma_terms("all_reduce", "ring", 1e3, 2).priced(1e-6, 1e9, -1.0)


def test_crossover_is_two_alpha_over_gamma_at_two_ranks() -> None:
    s = mpigamma.crossover_size("all_reduce", "ring", "recursive_doubling", 2, 3e-6, 3e9, 1e-10)
    assert s == pytest.approx(2 * 3e-6 / 1e-10)
    assert math.isnan(mpigamma.crossover_size("all_reduce", "ring", "recursive_doubling", 2, 3e-6, 3e9, 0.0))
    pick, _ = mpigamma.choose_gamma("all_reduce", 2 * s, 2, 3e-6, 3e9, 1e-10)
    assert pick == "ring"
    assert mpigamma.choose_gamma("all_reduce", s / 2, 2, 3e-6, 3e9, 1e-10)[0] == "recursive_doubling"


def test_reference_chooser_gains_with_gamma() -> None:
    sweep = mpibench.read_csv(REF)
    pts = sweep.select("all_reduce", ranks=2)
    shared, gam = mpifit.fit_shared("all_reduce", pts), mpigamma.fit_gamma("all_reduce", pts)
    rows = mpigamma.compare_chooser_gamma(sweep, "all_reduce", 2, shared, gam)
    old = mpifit.compare_chooser(sweep, "all_reduce", 2, shared, {a: mpifit.fit("all_reduce", a, sweep.select(
        "all_reduce", a, ranks=2)) for a in mpifit.MPI_ALGORITHMS["all_reduce"]})
    assert [r.ab_best for r in rows] == [r.model_best for r in old]  # the α-β pick is the existing chooser's
    assert sum(r.agree for r in rows) > sum(r.agree_ab for r in rows)
    assert all(set(r.tied) == {"ring", "reduce_scatter_allgather"} for r in rows if r.gamma_best == "ring")
    h = mpigamma.held_out_gamma(sweep, "all_reduce", 2)
    assert h.median("gamma") < h.median("ab")


def test_rank_correlation() -> None:
    assert mpicheck.rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert mpicheck.rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert mpicheck.rank_correlation([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(0.9486832980505138)
    assert math.isnan(mpicheck.rank_correlation([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="same length"):
        mpicheck.rank_correlation([1, 2], [1])


def test_spread_relation_on_the_reference() -> None:
    sweep = mpibench.read_csv(REF)
    assert max(s.spread for s in sweep.samples) < 0.5  # the reason the page no longer splits at 0.5
    h = mpifit.held_out(sweep, "all_reduce", 2)
    r = mpicheck.spread_relation(h.samples, h.two)
    assert -1 <= r.correlation <= 1 and r.spread_rank(r.widest) == 1
    with pytest.raises(ValueError, match="errors"):
        mpicheck.spread_relation(h.samples, h.two[:-1])


def _with_note(note: str, cores: str = "2") -> mpifit.Sweep:
    return mpifit.Sweep(tuple(_synthetic(3e-6, 3e9, 1e-10)), (("cores", cores), ("note", note)))


def test_load_warning() -> None:
    assert mpilab.load_warning(mpibench.read_csv(REF)) is None  # 0.62 on 2 cores
    busy = mpicheck.machine_load(_with_note("reader's machine; load average 3.50 2.00 1.00"))
    assert busy.overloaded and busy.source == "recorded" and not busy.busy_before
    warning = mpilab.load_warning(_with_note("load average 3.50 2.00 1.00"))
    assert warning is not None and "3.50" in warning
    missing = mpilab.load_warning(_with_note("no load here"))
    assert missing is not None and "没有记下负载" in missing
    assert mpicheck.machine_load().source == "current"
    with pytest.raises(ValueError, match="cores"):
        mpicheck.machine_load(_with_note("load average 1 1 1", cores="x"))
    assert "load average" in mpibench.load_note("x")


def test_comparison_table(tmp_path: Path) -> None:
    ref = mpibench.read_csv(REF)
    assert mpilab.own_run(tmp_path / "absent.csv") is None
    alone = mpilab.comparison_table(ref)
    assert len(alone.header) == 7 and len(alone.body) == 12
    mine = mpifit.Sweep(tuple(s for s in ref.samples if s.op == "all_reduce" and s.ranks == 2), ref.machine)
    path = mpibench.write_csv(mine, tmp_path / "mpi_lab_mine.csv")
    both = mpilab.comparison_table(ref, mpilab.own_run(path))
    assert len(both.header) == 11
    assert both.body[0][3] == both.body[0][7]  # the same data gives the same α
    assert both.body[-1][7:] == ("—",) * 4  # broadcast was not in the reader's run
    rows = mpicheck.compare_runs(ref, mine)
    assert rows[0].latency_ratio == pytest.approx(1.0) and math.isnan(rows[-1].bandwidth_ratio)
