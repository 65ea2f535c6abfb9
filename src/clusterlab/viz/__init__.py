"""Every figure, animation and widget of the book; the only place that imports matplotlib or ipywidgets.

Importing this module configures matplotlib once (:func:`setup`): a CJK font with per-glyph fallback
(``font.family = ["DejaVu Sans", BUNDLED_FAMILY]``: the Noto Sans CJK SC files of the PyPI package ``mpl-font``
under a name no system font shadows), the house style and deterministic output.

Ring all-reduce
    :func:`ring_step_figure` (one state), :func:`ring_animation` (all states as self-contained HTML,
    no kernel, no network), :func:`ring_explorer` (ipywidgets, live Jupyter only).
Every collective primitive
    :func:`collective_step_figure` and :func:`collective_animation` draw any trace of
    :func:`clusterlab.communication.primitives.simulate` (broadcast, reduce, all-reduce ring / tree, reduce-scatter,
    all-gather, all-to-all, send/recv) with the same engine as the ring pictures.
Traffic charts
    :func:`naive_vs_ring_load` (per-rank load, naive vs ring, from
    :func:`clusterlab.communication.collectives.rank_traffic`), :func:`volume_and_time_vs_ranks` (ring volume and α-β
    time vs N).
α-β cost model, chunked ring, choice of algorithm
    :func:`time_vs_message_size`, :func:`busbw_curve`, :func:`chunk_curve`, :func:`chunk_sensitivity`,
    :func:`pipeline_gantt`, :func:`algorithm_regions`, :func:`algorithm_times`, :func:`alpha_beta_calculator`
    (ipywidgets, live Jupyter only).
Checkpoints
    :func:`checkpoint_strategies` (bytes and time per save strategy), :func:`checkpoint_wasted_time` (wasted
    fraction vs interval, first-order and exact, Young/Daly marked), :func:`checkpoint_monte_carlo` (simulation
    vs model with error bars), :func:`checkpoint_interval_vs_scale` (optimal interval and waste vs GPU count).
Failures at scale
    :func:`mtbf_vs_gpus` (job MTBF vs GPU count for every source of
    :data:`clusterlab.faults.reliability.FAILURE_DATA`), :func:`failure_overhead_vs_gpus` (wall time lost at the best
    interval vs GPU count, per source).
Overlap and compression (§9.6.2)
    :func:`overlap_timelines` (compute and communication streams of
    :func:`clusterlab.communication.overlap.run_streams` timelines), :func:`bucket_sweep_figure` (step time vs bucket
    cap), :func:`prefetch_tradeoff` (exposed all-gather vs extra memory per prefetch depth),
    :func:`compression_curves` (loss vs steps and vs bytes of compressed training runs), :func:`ddp_step_animation`
    (one DDP step event by event, self-contained HTML), :func:`overlap_explorer`
    (ipywidgets, live Jupyter only) and :func:`overlap_grid_widget` (the same controls over a precomputed grid of
    :func:`clusterlab.communication.overlap_explore.explore_grid`, self-contained HTML).
Cluster network
    :func:`network_topology` (a sized leaf-spine with its nodes, NVLink domains and the three planes, from
    :mod:`clusterlab.cluster.network`), :func:`ecmp_curves` (collision probability and throughput vs flows).
Parallelism (§4)
    :func:`pipeline_schedule` (Gantt chart of a simulated GPipe / 1F1B step,
    :func:`clusterlab.cluster.pipeline.simulate`), :func:`parallel_ledger` (bytes per step and time on its link per
    axis, :class:`clusterlab.cluster.parallel.LinkLoad`),
    :func:`step_time_vs_overlap` (compute, exposed communication, MFU vs compute fraction,
    :func:`clusterlab.cluster.compute.step_time_sweep`).
Whole-cluster ledger (§7)
    :func:`ledger_waterfall` (ideal compute, efficiency loss, exposed communication, bubble, data stall, step of a
    :class:`clusterlab.cluster.ledger.Ledger`), :func:`ledger_overlap` (step and MFU vs the stated overlap).
Fault tolerance
    :func:`slow_link_figure` (one slow link stalls the whole ring), :func:`recovery_curves` (resuming from a
    checkpoint with all four pieces or without one, from :func:`clusterlab.faults.recovery.recovery_experiment`),
    :func:`incident_timeline` (detect, locate, restart, load, catch up), :func:`goodput_vs_interval` and
    :func:`goodput_vs_scale` (where the wall time goes, :func:`clusterlab.faults.reliability.goodput`).
5D planner (§9.6.5.1)
    :func:`plan_ranking` (the fastest feasible plans split into compute, bubble and exposed communication per axis;
    memory vs step time of every plan, from :func:`clusterlab.cluster.planning.plan`), :func:`plan_grid_widget` (a
    precomputed :func:`clusterlab.cluster.planning.cases.plan_grid`, self-contained HTML) and
    :func:`planner_explorer` (ipywidgets, live Jupyter only).
Model against reality (appendix)
    :func:`model_vs_reality` (the planner's step time against the step time of every published run of
    :data:`clusterlab.specs.RUNS`, from :func:`clusterlab.cluster.planning.reality.compare`).
Determinism (§9.6.5)
    :func:`determinism_figure` (ULP distance between two summation orders vs N, from
    :func:`clusterlab.faults.determinism.order_sweep`; two training runs drifting apart, from
    :func:`clusterlab.faults.divergence.training_divergence`); :func:`float_bits_figure` (the 32 bits of float32
    results side by side, the bits that differ outlined).
Data plane
    :func:`cache_hit_rates` (hit rate per epoch and over the cache size, LRU sequential / shuffled vs static, from
    :mod:`clusterlab.cluster.dataplane`), :func:`loader_timeline` (GPU compute and waits for data vs prefetch depth,
    from :func:`clusterlab.cluster.loader.simulate_loader`).
"""

from __future__ import annotations

from ._algorithms import algorithm_regions, algorithm_times
from ._alphabeta import busbw_curve, time_vs_message_size
from ._calculator import alpha_beta_calculator
from ._charts import naive_vs_ring_load, volume_and_time_vs_ranks
from ._checkpoint import (
    CHECKPOINT_STRATEGY_NAMES,
    checkpoint_monte_carlo,
    checkpoint_strategies,
    checkpoint_wasted_time,
)
from ._chunks import chunk_curve, chunk_sensitivity, pipeline_gantt
from ._collective import collective_animation, collective_animation_html, collective_step_figure
from ._dataplane import cache_hit_rates, loader_timeline
from ._determinism import determinism_figure, float_bits_figure
from ._emulated import emulated_recovery
from ._failures import checkpoint_interval_vs_scale, failure_overhead_vs_gpus, mtbf_vs_gpus
from ._faultlab import fault_run
from ._ledger import ledger_overlap, ledger_waterfall
from ._mpilab import mpi_fit_figure, mpi_spread_figure
from ._network import ecmp_curves, network_topology
from ._overlap import (
    bucket_sweep_figure,
    compression_curves,
    ddp_step_animation,
    ddp_step_animation_html,
    overlap_timelines,
    prefetch_tradeoff,
)
from ._overlap_explorer import OverlapGridWidget, overlap_explorer, overlap_grid_widget
from ._parallel import parallel_ledger, pipeline_schedule, step_time_vs_overlap
from ._planner import PlanGridWidget, plan_grid_widget, plan_ranking, planner_explorer
from ._reality import model_vs_reality
from ._recovery import (
    goodput_vs_interval,
    goodput_vs_scale,
    incident_timeline,
    recovery_curves,
    slow_link_figure,
)
from ._ring import (
    anim_html,
    ring_animation,
    ring_animation_html,
    ring_explorer,
    ring_step_figure,
)
from ._scene import chunk_label, rank_letter, slot_label
from ._style import BUNDLED_FAMILY, CJK_FAMILIES, PALETTE, CJKFontError, cjk_family, save_figure, setup

__all__ = [
    "BUNDLED_FAMILY",
    "CHECKPOINT_STRATEGY_NAMES",
    "CJK_FAMILIES",
    "PALETTE",
    "CJKFontError",
    "OverlapGridWidget",
    "PlanGridWidget",
    "algorithm_regions",
    "algorithm_times",
    "alpha_beta_calculator",
    "anim_html",
    "bucket_sweep_figure",
    "busbw_curve",
    "cache_hit_rates",
    "checkpoint_interval_vs_scale",
    "checkpoint_monte_carlo",
    "checkpoint_strategies",
    "checkpoint_wasted_time",
    "chunk_curve",
    "chunk_label",
    "chunk_sensitivity",
    "cjk_family",
    "collective_animation",
    "collective_animation_html",
    "collective_step_figure",
    "compression_curves",
    "ddp_step_animation",
    "ddp_step_animation_html",
    "determinism_figure",
    "ecmp_curves",
    "emulated_recovery",
    "failure_overhead_vs_gpus",
    "fault_run",
    "float_bits_figure",
    "goodput_vs_interval",
    "goodput_vs_scale",
    "incident_timeline",
    "ledger_overlap",
    "ledger_waterfall",
    "loader_timeline",
    "model_vs_reality",
    "mpi_fit_figure",
    "mpi_spread_figure",
    "mtbf_vs_gpus",
    "naive_vs_ring_load",
    "network_topology",
    "overlap_explorer",
    "overlap_grid_widget",
    "overlap_timelines",
    "parallel_ledger",
    "pipeline_gantt",
    "pipeline_schedule",
    "plan_grid_widget",
    "plan_ranking",
    "planner_explorer",
    "prefetch_tradeoff",
    "rank_letter",
    "recovery_curves",
    "ring_animation",
    "ring_animation_html",
    "ring_explorer",
    "ring_step_figure",
    "save_figure",
    "setup",
    "slot_label",
    "slow_link_figure",
    "step_time_vs_overlap",
    "time_vs_message_size",
    "volume_and_time_vs_ranks",
]

setup()
