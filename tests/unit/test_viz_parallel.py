"""Figures of 集群篇 §4 draw what the compute modules return."""

import matplotlib.pyplot as plt
import pytest

from clusterlab import viz
from clusterlab.cluster import compute, parallel, pipeline


def test_pipeline_schedule_draws_every_op():
    s = pipeline.simulate(3, 4)
    fig = viz.pipeline_schedule([s])
    assert len(fig.axes[0].patches) == 2 * 3 * 4
    plt.close(fig)


def test_ledger_and_overlap_figures():
    v = parallel.dp_volume("ddp", 7e9, 8)
    fig = viz.parallel_ledger([parallel.on_link(v, "RoCE", 25e9)], ["DP"])
    assert len(fig.axes) == 2
    plt.close(fig)
    sweep = compute.step_time_sweep(1e14, 312e12, [0, 0.5, 1], efficiency=0.5, comm=0.5)
    fig = viz.step_time_vs_overlap(sweep, marks=(0.5,))
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="labels"):
        viz.parallel_ledger([parallel.on_link(v, "RoCE", 25e9)], [])
