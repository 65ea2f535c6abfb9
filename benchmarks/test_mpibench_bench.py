"""Benchmark: how well α-β models of each MPICH all-reduce algorithm, fitted on this machine, predict held-out sizes
at N = 2 and N = 4, and how long the sweep takes. Run with ``make bench`` (needs mpiexec; skipped if absent).

Sizes 1 KB … 64 MB doubling (:data:`~clusterlab.lab.mpibench.DEFAULT_SIZES`): fit on every other one (1, 4, 16 KB, …, 64 MB),
predict the sizes between (2, 8, 32 KB, …, 32 MB). Three models, each the book's ``t = k_α·α + k_β/β``:
one (α, β) for all sizes; one per regime split at MPICH's eager/single-copy switch (:data:`~clusterlab.lab.mpifit.MPICH_SHM_SWITCH`
bytes per message); one per regime split where the fitted points say (held-out points never used to choose it).
Target: median |error| within 25 %. The machine's load average is printed with the result: on a shared machine
the timings — and the errors — carry the other jobs' noise. On a 2-core machine N = 4 is oversubscribed (MPICH
busy-polls), so its timings are inflated; the report says so.
"""

from __future__ import annotations

import os
import time

import pytest

from clusterlab.lab import mpibench, mpifit

try:
    mpibench.find_mpiexec()
    HAVE = True
except mpibench.MPIUnavailableError:
    HAVE = False


def _models(alg: str, pts: tuple[mpifit.Sample, ...]) -> dict[str, mpifit.Fit | mpifit.RegimeFit]:
    return {"one α-β": mpifit.fit("all_reduce", alg, pts),
            "two, MPICH switch": mpifit.fit_regimes("all_reduce", alg, pts),
            "two, split from fit": mpifit.fit_regimes("all_reduce", alg, pts, threshold=None)}


@pytest.mark.skipif(not HAVE, reason="mpiexec not installed (pip install mpich mpi4py)")
@pytest.mark.parametrize("ranks", [2, 4])
def test_held_out_prediction_error(ranks):
    load = os.getloadavg()
    t0 = time.perf_counter()
    sw = mpibench.run_sweep(("all_reduce",), (ranks,), mpibench.DEFAULT_SIZES, repeats=5, progress=False)
    elapsed = time.perf_counter() - t0
    errs: dict[str, list[float]] = {}
    for alg in mpifit.MPI_ALGORITHMS["all_reduce"]:
        measured = sorted({s.size for s in sw.select(algorithm=alg)})  # rounded to whole float32 blocks per rank
        held = sw.select(algorithm=alg, sizes=measured[1::2])
        line = f"N={ranks} {alg:25s}"
        for name, model in _models(alg, sw.select(algorithm=alg, sizes=measured[0::2])).items():
            e = mpifit.relative_errors(model, held)
            errs.setdefault(name, []).extend(e)
            line += f"  {name}: {100 * mpifit.median_abs(e):5.0f}%"
        print(line)
    over = ranks > mpibench.cores()
    summary = ", ".join(f"{k} {100 * mpifit.median_abs(v):.0f}%" for k, v in errs.items())
    print(f"N={ranks}: sweep {elapsed:.1f} s, load average {load[0]:.1f}/{load[1]:.1f} on {mpibench.cores()} cores; "
          f"held-out median |error|: {summary} (target 25%)"
          + ("  [oversubscribed: more ranks than cores]" if over else ""))
    if load[0] > mpibench.cores():
        pytest.skip(f"load average {load[0]:.1f} > {mpibench.cores()} cores: timings are other jobs' noise, "
                    "errors reported above but not checked")
    assert mpifit.median_abs(errs["two, MPICH switch"]) < (5.0 if over else 1.0)
