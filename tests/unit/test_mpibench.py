"""§2.3 MPI lab: the α-β fit (pure, property-tested) and a small real MPICH run (skipped without mpiexec)."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.communication import collectives
from clusterlab.lab import mpibench, mpifit

ALL = [(op, a) for op, algs in mpifit.MPI_ALGORITHMS.items() for a in algs]


def _have_mpi() -> bool:
    try:
        mpibench.find_mpiexec()
        import mpi4py  # noqa: F401
    except (mpibench.MPIUnavailableError, ImportError):
        return False
    return True


needs_mpi = pytest.mark.skipif(not _have_mpi(), reason="mpiexec/mpi4py not installed (pip install mpich mpi4py)")


@pytest.mark.parametrize("op,alg", ALL)
def test_book_equivalents_match_collectives(op, alg):
    book = mpifit.BOOK_EQUIVALENT[(op, alg)]
    for n in (2, 4, 6):
        c = mpifit.cost_terms(op, alg, 1e6, n)
        if book is not None:
            assert c.priced(3e-6, 5e9).time == collectives.alpha_beta_time(op, 1e6, n, 3e-6, 5e9, book)
        assert c.steps > 0 and c.bytes > 0


def test_new_models_by_hand():
    s = 8e6
    rd = mpifit.cost_terms("all_reduce", "recursive_doubling", s, 8)
    assert (rd.steps, rd.bytes) == (3, 3 * s)
    rd6 = mpifit.cost_terms("all_reduce", "recursive_doubling", s, 6)  # p = 4, two extra ranks fold in and out
    assert (rd6.steps, rd6.bytes) == (4, 4 * s)
    b = mpifit.cost_terms("broadcast", "binomial", s, 5)
    assert (b.steps, b.bytes) == (3, 3 * s)
    v = mpifit.cost_terms("broadcast", "scatter_ring_allgather", s, 4)
    assert (v.steps, v.bytes) == (2 + 3, 2 * s * 3 / 4)


@settings(max_examples=60, deadline=None)
@given(
    case=st.sampled_from(ALL),
    alpha=st.floats(1e-7, 1e-3),
    beta=st.floats(1e8, 1e11),
    ranks=st.sampled_from([(2,), (4,), (2, 4), (3, 8)]),
)
def test_fit_recovers_alpha_beta_within_one_percent(case, alpha, beta, ranks):
    op, alg = case
    sizes = (1e3, 16e3, 256e3, 4e6, 64e6)
    pts = [(z, n, mpifit.cost_terms(op, alg, z, n).priced(alpha, beta).time) for z in sizes for n in ranks]
    f = mpifit.fit(op, alg, pts)
    assert f.latency == pytest.approx(alpha, rel=0.01)
    assert f.bandwidth == pytest.approx(beta, rel=0.01)
    assert f.rms_residual < 1e-6


def test_fit_clamps_negative_latency_and_reports_residuals():
    pts = [(1e3, 2, 0.5e-6), (1e6, 2, 1e-3), (1e7, 2, 1e-2)]  # below the pure bandwidth time at 1 KB
    f = mpifit.fit("all_reduce", "ring", pts)
    assert f.clamped and f.latency == 0 and f.bandwidth > 0 and len(f.residuals) == 3


def _sweep(alpha, beta):
    samples = []
    for alg in mpifit.MPI_ALGORITHMS["all_reduce"]:
        for z in (1e3, 1e5, 1e7):
            t = mpifit.cost_terms("all_reduce", alg, z, 4).priced(alpha, beta).time
            samples.append(mpifit.Sample("all_reduce", alg, 4, z, t, t, t, t, t, 3))
    return mpifit.Sweep(tuple(samples))


def test_chooser_agrees_with_model_data_and_book_chooser():
    sw = _sweep(20e-6, 2e9)
    shared = mpifit.fit_shared("all_reduce", sw.samples)
    assert shared.latency == pytest.approx(20e-6) and shared.bandwidth == pytest.approx(2e9)
    fits = {a: mpifit.fit("all_reduce", a, sw.select(algorithm=a)) for a in mpifit.MPI_ALGORITHMS["all_reduce"]}
    rows = mpifit.compare_chooser(sw, "all_reduce", 4, shared, fits)
    assert len(rows) == 3 and all(r.agree for r in rows)
    assert rows[0].measured_best == "recursive_doubling"  # fewest steps at 1 KB
    for z in (1e3, 1e7):
        best, _ = mpifit.choose("all_reduce", z, 4, 20e-6, 2e9, ("ring", "reduce_scatter_allgather"))
        book = collectives.best_algorithm("all_reduce", z, 4, 20e-6, 2e9, ("ring", "halving_doubling")).best
        assert {"ring": "ring", "reduce_scatter_allgather": "halving_doubling"}[best] == book


def _two_regime_points(op, alg, n, a1, b1, a2, b2, threshold, sizes):
    pts = []
    for z in sizes:
        small = mpifit.message_size(op, alg, z, n) < threshold
        pts.append((z, n, mpifit.cost_terms(op, alg, z, n).priced(a1 if small else a2, b1 if small else b2).time))
    return pts


@settings(max_examples=40, deadline=None)
@given(
    case=st.sampled_from(ALL),
    a1=st.floats(1e-7, 2.5e-6),
    b1=st.floats(1e8, 1e10),
    a2=st.floats(1e-5, 1e-3),
    b2=st.floats(1e9, 3e10),
    n=st.sampled_from([2, 4, 5]),
)
def test_regime_fit_recovers_both_regimes(case, a1, b1, a2, b2, n):
    op, alg = case
    sizes = (1e3, 2e3, 4e3, 1e6, 4e6, 64e6)
    thr = 0.5 * (mpifit.message_size(op, alg, 4e3, n) + mpifit.message_size(op, alg, 1e6, n))
    pts = _two_regime_points(op, alg, n, a1, b1, a2, b2, thr, sizes)
    rf = mpifit.fit_regimes(op, alg, pts, threshold=thr)
    assert rf.small is not None and rf.large is not None and rf.source == "mpich"
    assert rf.small.latency == pytest.approx(a1, rel=0.01) and rf.small.bandwidth == pytest.approx(b1, rel=0.01)
    assert rf.large.latency == pytest.approx(a2, rel=0.01) and rf.large.bandwidth == pytest.approx(b2, rel=0.01)
    assert rf.rms_residual < 1e-6
    for z, m, t in pts:
        assert rf.time(z, m) == pytest.approx(t, rel=1e-6)
    chosen = mpifit.fit_regimes(op, alg, pts, threshold=None)  # the split the data say
    assert chosen.source == "data" and chosen.rms_residual < 1e-6
    assert mpifit.message_size(op, alg, 4e3, n) < chosen.threshold <= mpifit.message_size(op, alg, 1e6, n)


def test_regime_fit_beats_one_line_on_a_bent_curve():
    pts = _two_regime_points("all_reduce", "ring", 2, 3e-6, 2e9, 40e-6, 8e9, mpifit.MPICH_SHM_SWITCH,
                             (1e3, 4e3, 16e3, 64e3, 256e3, 1e6, 4e6))
    fit_pts, held = pts[::2], pts[1::2]
    one = mpifit.fit("all_reduce", "ring", fit_pts)
    two = mpifit.fit_regimes("all_reduce", "ring", fit_pts)
    err = lambda m: max(abs(m.time(z, n) / t - 1) for z, n, t in held)  # noqa: E731
    assert err(two) < 1e-6 < 0.1 < err(one)


def test_message_size_is_bytes_per_step():
    assert mpifit.message_size("all_reduce", "ring", 8e6, 4) == pytest.approx(2e6)  # S/N
    assert mpifit.message_size("all_reduce", "recursive_doubling", 8e6, 4) == pytest.approx(8e6)
    assert mpifit.message_size("broadcast", "binomial", 8e6, 5) == pytest.approx(8e6)


def test_regime_fit_single_point_regime_borrows_beta_and_flat_regime():
    # one size below the switch: α from that point, β from the large regime
    pts = [(1e3, 2, 5e-6), (1e6, 2, 1e-4), (4e6, 2, 3.5e-4)]  # ring N = 2: 1 KB → 500 B messages
    rf = mpifit.fit_regimes("all_reduce", "ring", pts)
    assert rf.small is not None and rf.large is not None
    assert rf.small.bandwidth == rf.large.bandwidth and rf.small.sizes == (1e3,)
    assert rf.time(1e3, 2) == pytest.approx(5e-6, rel=1e-9)
    flat = [(1e3, 2, 5e-6), (4e3, 2, 5e-6), (1e6, 2, 1e-4), (4e6, 2, 3.5e-4)]  # small regime flat in the noise
    rf = mpifit.fit_regimes("all_reduce", "ring", flat)
    assert rf.small is not None and rf.small.bandwidth == rf.large.bandwidth


def test_regime_fit_input_errors():
    with pytest.raises(ValueError, match="threshold"):
        mpifit.fit_regimes("all_reduce", "ring", [(1e3, 2, 1e-5), (1e6, 2, 1e-3)], threshold=0)
    with pytest.raises(ValueError, match="two sizes on one side"):
        mpifit.fit_regimes("all_reduce", "ring", [(1e3, 2, 1e-5), (1e6, 2, 1e-3)])
    with pytest.raises(ValueError, match="at least 4 sizes"):
        mpifit.choose_threshold("all_reduce", "ring", [(1e3, 2, 1e-5), (1e5, 2, 1e-4), (1e6, 2, 1e-3)])


def test_busbw_is_nccl_tests_convention():
    s = mpifit.Sample("all_reduce", "ring", 4, 1e6, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1)
    assert mpifit.busbw(s) == pytest.approx(1e9 * 2 * 3 / 4)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(ranks=(0,)), "ranks"),
        (dict(sizes=(0.0,)), "sizes"),
        (dict(sizes=(-5.0,)), "sizes"),
        (dict(algorithms={"all_reduce": ("bogus",)}), "algorithm"),
        (dict(ops=("all_to_all",)), "op"),
    ],
)
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mpibench.run_sweep(**{"progress": False, **kwargs})


def test_missing_mpiexec_is_named(monkeypatch):
    with pytest.raises(mpibench.MPIUnavailableError, match="mpiexec"):
        mpibench.find_mpiexec("/nonexistent/mpiexec")
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(mpibench.MPIUnavailableError, match="pip install mpich"):
        mpibench.find_mpiexec()


def test_fit_input_errors():
    with pytest.raises(ValueError, match="algorithm"):
        mpifit.fit("all_reduce", "tree", [(1e3, 2, 1e-5), (1e6, 2, 1e-3)])
    with pytest.raises(ValueError, match="at least 2"):
        mpifit.fit("all_reduce", "ring", [(1e3, 2, 1e-5)])
    with pytest.raises(ValueError, match="two different sizes"):
        mpifit.fit("all_reduce", "ring", [(1e3, 2, 1e-5), (1e3, 2, 2e-5)])


def test_csv_round_trip(tmp_path: Path):
    sw = _sweep(1e-5, 1e9)
    sw = mpifit.Sweep(sw.samples, (("cpu", "test"), ("note", "a: b")))
    back = mpibench.read_csv(mpibench.write_csv(sw, tmp_path / "x.csv"))
    assert back.machine == sw.machine and len(back.samples) == len(sw.samples)
    assert back.samples[0].median == pytest.approx(sw.samples[0].median, rel=1e-6)


def test_reference_csv_is_readable():
    ref = Path(__file__).resolve().parents[2] / "book" / "_data" / "mpi_lab_reference.csv"
    if not ref.exists():
        pytest.skip("reference measurement not committed yet")
    sw = mpibench.read_csv(ref)
    assert sw.info("cores") and sw.info("mpi").startswith("MPICH")
    assert {s.op for s in sw.samples} == set(mpifit.MPI_ALGORITHMS)


@needs_mpi
def test_real_run_structure_and_sanity():
    """Structure exactly; timings only where a shared, loaded machine cannot blur them: 16 MB against 64 KB (250×
    the bytes), with one (op, algorithm) of the nine allowed to be disturbed."""
    sizes = (1e3, 64e3, 16e6)
    started = time.perf_counter()
    sw = mpibench.run_sweep(tuple(mpifit.MPI_ALGORITHMS), (2,), sizes, warmup=1, repeats=3, progress=False)
    assert time.perf_counter() - started < 60
    assert len(sw.samples) == len(ALL) * len(sizes)
    assert sw.info("mpi").startswith("MPICH")
    for s in sw.samples:
        assert 0 < s.low <= s.median <= s.high and s.repeats == 3 and s.size % 8 == 0
    slower = [(op, alg) for op, alg in ALL
              if (t := {s.size: s.median for s in sw.select(op, alg)})[16e6] > t[64e3]]
    assert len(slower) >= len(ALL) - 1, f"16 MB not slower than 64 KB for {set(ALL) - set(slower)}"
    big = {s.algorithm: s.median for s in sw.select("all_reduce", sizes=(16e6,))}
    assert all(t > 16e6 / 100e9 for t in big.values()), big  # no copy of 16 MB beats 100 GB/s


@needs_mpi
def test_slow_rank_stalls_the_others():
    r = mpibench.run_straggler(2, 64e3, 0.03, delayed_rank=1, repeats=3)
    assert r.per_rank[0] > 0.02  # rank 0 waited for the sleeping rank (30 ms; medians of 3, loaded machine allowed)
    assert r.per_rank[0] - r.per_rank[1] > 0.015  # the sleeper itself barely waits


def test_explicit_mpiexec_path_is_used():
    sh = shutil.which("sh")
    assert sh is not None and mpibench.find_mpiexec(sh) == sh


def test_held_out_fits_every_other_size_and_two_regimes_win_on_bent_data():
    samples = []
    for alg in mpifit.MPI_ALGORITHMS["all_reduce"]:
        pts = _two_regime_points("all_reduce", alg, 4, 3e-6, 2e9, 40e-6, 8e9, mpifit.MPICH_SHM_SWITCH,
                                 (1e3, 4e3, 16e3, 64e3, 256e3, 1e6, 4e6, 16e6, 64e6))
        samples += [mpifit.Sample("all_reduce", alg, 4, z, t, t, t, t, t, 3) for z, _, t in pts]
    h = mpifit.held_out(mpifit.Sweep(tuple(samples)), "all_reduce", 4)
    assert h.count() == 3 * 4 and {s.size for s in h.samples} == {4e3, 64e3, 1e6, 16e6}
    assert all(set(f.sizes) == {1e3, 16e3, 256e3, 4e6, 64e6} for _, f in h.fits_one)
    assert h.median("two") < 1e-6 < 0.05 < h.median("one")
    with pytest.raises(ValueError, match="model"):
        h.median("three")
    with pytest.raises(ValueError, match="no all_reduce samples"):
        mpifit.held_out(mpifit.Sweep(tuple(samples)), "all_reduce", 2)
