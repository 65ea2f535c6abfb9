import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.book import tables
from clusterlab.communication import collectives, ring
from clusterlab.units import fmt_num


def _trace(n: int, length: int) -> ring.RingTrace:
    return ring.simulate_all_reduce(np.arange(n * length, dtype=np.float32).reshape(n, length))


def test_schedule_table_n4_matches_the_rules():
    rows = tables.ring_schedule_table(_trace(4, 8))
    assert rows[0] == ["步", "阶段", "s", "rank 0→1", "rank 1→2", "rank 2→3", "rank 3→0"]
    assert len(rows) == 1 + 2 * 3
    # reduce-scatter step s: rank r sends (r - s) mod N; all-gather step s: (r + 1 - s) mod N
    assert rows[1][1:] == ["①归约-散播", "0", "块 0", "块 1", "块 2", "块 3"]
    assert rows[3][1:] == ["①归约-散播", "2", "块 2", "块 3", "块 0", "块 1"]
    assert rows[4][1:] == ["②全收集", "0", "块 1", "块 2", "块 3", "块 0"]
    assert rows[6][0] == "6"


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 9), st.integers(1, 30))
def test_schedule_table_agrees_with_trace(n, length):
    trace = _trace(n, length)
    rows = tables.ring_schedule_table(trace)
    assert len(rows) == 1 + trace.num_steps
    for row, step in zip(rows[1:], trace.steps, strict=True):
        offset = 0 if step.phase == "reduce_scatter" else 1
        assert row[2] == str(step.phase_step)
        assert row[3:] == [f"块 {(r + offset - step.phase_step) % n}" for r in range(n)]


def test_contribution_table_after_reduce_scatter_marks_chunk_r_plus_1():
    n = 5
    trace = _trace(n, 10)
    rows = tables.contribution_table(trace, n - 1)
    for r in range(n):
        cells = rows[1 + r][1:]
        complete = [c for c, cell in enumerate(cells) if cell.endswith("✔")]
        assert complete == [(r + 1) % n]
    start = tables.contribution_table(trace, 0)
    assert all(cell == f"1/{n}" for row in start[1:] for cell in row[1:])
    end = tables.contribution_table(trace, trace.num_steps)
    assert all(cell == f"{n}/{n} ✔" for row in end[1:] for cell in row[1:])
    with pytest.raises(ValueError, match="step"):
        tables.contribution_table(trace, trace.num_steps + 1)


def test_algorithm_comparison_table_seed_numbers():
    rows = tables.algorithm_comparison_table(14e9, [8], 5e-6, 25e9)
    n, root_recv, t_naive, ring_send, t_ring, ratio = rows[1]
    assert (n, root_recv, ring_send) == ("8", "98", "24.5")
    assert t_naive == "7.84 s" and t_ring == "980 ms" and ratio == "8×"


def test_ring_scaling_table_terms_add_up():
    rows = tables.ring_scaling_table(1e6, [1024], 5e-6, 25e9)
    n, steps, vol, factor, lat, bw, total = rows[1]
    assert (n, steps, factor) == ("1024", "2046", fmt_num(2 * 1023 / 1024, 4))
    assert lat == "10.2 ms"
    assert bw == "79.9 µs"
    assert vol == fmt_num(collectives.send_volume("all_reduce", 1e6, 1024) / 1e9, 4)
    assert total == "10.3 ms"


@pytest.mark.parametrize(
    ("func", "args"),
    [
        (tables.algorithm_comparison_table, (14e9, [1], 5e-6, 25e9)),
        (tables.algorithm_comparison_table, (14e9, [], 5e-6, 25e9)),
        (tables.ring_scaling_table, (-1.0, [8], 5e-6, 25e9)),
        (tables.ring_scaling_table, (14e9, [8], 5e-6, 0.0)),
    ],
)
def test_bad_input_raises(func, args):
    with pytest.raises(ValueError):
        func(*args)


def test_markdown_and_html_rendering():
    rows = [["a", "b"], ["1|2", "<x>"]]
    md = tables.to_markdown(rows)
    assert md.splitlines() == ["| a | b |", "|---|---|", "| 1\\|2 | <x> |"]
    h = tables.to_html(rows, caption="表 & 题")
    assert "<th>a</th>" in h and "<td>&lt;x&gt;</td>" in h and "<caption>表 &amp; 题</caption>" in h
    t = tables.Table(rows)
    assert repr(t) == md and t._repr_html_() == tables.to_html(rows)
    assert t.header == ("a", "b") and t.body == (("1|2", "<x>"),)
    with pytest.raises(ValueError, match="rows\\[1\\]"):
        tables.to_markdown([["a", "b"], ["only one"]])
    with pytest.raises(ValueError, match="header"):
        tables.Table([])


def test_running_text_cells_may_wrap_numbers_never():
    from clusterlab.book import tables as T

    out = T.to_html([["场景", "时间"], ["参数全收集 ×2 + 梯度规约散射，逐层", "1.18 GB"], ["短", "13 477 MB"]])
    assert '<td class="wrap">参数全收集' in out
    assert "<td>1.18 GB</td>" in out and "<td>短</td>" in out and "<td>13 477 MB</td>" in out
