"""The page 「模型与现实」: its quiz keys recomputed by hand, its table rows, its figure."""

from __future__ import annotations

import pytest

from clusterlab import specs
from clusterlab.book import reality as book_reality
from clusterlab.book.quizbank import appendix_reality as bank
from clusterlab.cluster.planning import reality


def test_q1_turns_hardware_tflops_into_seconds_with_megatrons_own_count() -> None:
    run = specs.RUNS[bank.RUN_Q1]
    L, h, s, V, B = run.model.layers, run.model.hidden, run.seq_len, run.model.vocab, run.global_batch
    flops = 96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))  # Narayanan et al. §5.1
    q1 = bank.questions()[0]
    assert q1.answer == pytest.approx(flops / (run.gpus * 163e12), rel=1e-12)
    assert all(abs(w - q1.answer) / q1.answer > 0.05 for w, _ in q1.wrong)


def test_q2_is_palm_mfu_of_the_same_step() -> None:
    run = specs.RUNS[bank.RUN_Q1]
    q1, q2 = bank.questions()[:2]
    n = run.model.matmul_params
    palm = 6 * n + 12 * run.model.layers * run.model.hidden * run.seq_len
    assert q2.answer == pytest.approx(100 * run.tokens_per_step * palm / (q1.answer * run.gpus * 312e12), rel=1e-9)


def test_q3_last_stage_makes_room_for_the_output_layer() -> None:
    q3 = bank.questions()[2]
    assert q3.answer == 2.0 and dict(q3.wrong)  # 61 layers, 16 stages: 3 + 13 × 4 + 2 × 4 … ends with 2


def test_rows_cover_every_run_and_mark_unverified_sources() -> None:
    checks = reality.compare()
    rows = book_reality.run_rows(checks)
    assert len(rows) == len(checks) + 1 and len(set(map(len, rows))) == 1
    unverified = [r for r in rows[1:] if "需核实" in r[0]]
    assert unverified and len(unverified) < len(checks)
    assert all(len(r) == 6 for r in rows)
    by_name = dict(zip((c.name for c in checks), rows[1:], strict=True))
    c = checks[0]
    run = specs.RUNS[c.name]
    assert by_name[c.name][1].endswith(f"，{run.global_batch:,}×{run.seq_len:,}")
    assert by_name[c.name][3] == f"{c.measured:.2f} / {c.predicted:.2f} s"
    assert by_name[c.name][5] == f"{100 * c.measured_mfu:.0f} / {100 * c.predicted_mfu:.0f} %"
    src = book_reality.source_rows(checks)
    assert sum(int(r[1]) for r in src[1:]) == len(checks)


def test_measurement_is_printed_in_the_papers_terms() -> None:
    assert book_reality.measurement(specs.RUNS[bank.RUN_Q1]).startswith("163 TFLOP/s/卡")
    by_kind = {r.measured.kind: r for r in specs.RUNS.values()}
    mfu = by_kind["mfu"]
    assert book_reality.measurement(mfu).startswith(f"MFU {100 * mfu.measured.value:.1f} %")
    tps = by_kind["tokens_per_second"]
    assert book_reality.measurement(tps) == f"{tps.measured.value / tps.gpus:,.0f} token/s/卡"


def test_figure_has_the_scatter_and_the_error_panel() -> None:
    from clusterlab import viz

    fig = viz.model_vs_reality(reality.compare())
    assert len(fig.axes) == 2
    with pytest.raises(ValueError, match="checks"):
        viz.model_vs_reality(())


def test_the_runs_span_three_chip_generations() -> None:
    gens = {specs.RUNS[c.name].node.accelerator.architecture for c in reality.compare()}
    assert gens == {"Ampere", "Hopper", "TPU v4"}
    assert specs.ACCELERATORS["H800 SXM"].architecture == specs.ACCELERATORS["H100 SXM"].architecture == "Hopper"
