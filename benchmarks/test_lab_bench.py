"""Benchmark: the emulated cluster's sweep time and what it recovers (``make bench``; skipped, with one line, where
network namespaces are unavailable). One run per imposed rate: 4 nodes × 1 rank, ring all-reduce at 2 and 4 nodes
over 16 B … 4 MB, plus the floor ping-pong; printed: seconds, fitted vs imposed β and α, held-out error."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from clusterlab.lab import emulated

AVAILABLE = emulated.availability()


@pytest.mark.skipif(not AVAILABLE, reason=AVAILABLE.reason)
@pytest.mark.parametrize("rate", ["100mbit", "200mbit"])
def test_emulated_sweep_time(rate: str) -> None:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "clusterlab.lab", "emulate", "--nodes", "4", "--node-counts", "2,4",
                          "--rate", rate, "--json"], capture_output=True, text=True, timeout=900, check=True)
    wall = time.perf_counter() - t0
    r = json.loads(out.stdout)
    rec = r["recovery"]
    print(f"\nemulated {rate}, 4 nodes: sweep {r['elapsed_s']:.1f} s (wall {wall:.1f} s incl. building the fabric); "
          f"β {', '.join(f'{k} nodes {100 * v:+.1f} %' for k, v in rec['beta_by_nodes'].items())}; "
          f"α {100 * rec['alpha']:+.1f} %; held-out {100 * r['fitted']['inter']['held_median_abs_error']:.1f} %; "
          f"load {r['machine']['load_average'][0]:.2f} on {r['machine']['cores']} cores")
    assert wall < 300
