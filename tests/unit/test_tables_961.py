"""Tables of §9.6.1: the primitives table (Definition 9.6.1) and the magnitude table (Example 9.6.1)."""

import pytest

from clusterlab.book import tables
from clusterlab.communication import collectives


def test_primitive_formulas_read_off_collectives():
    expected = {
        "broadcast": ("S", "N−1"),
        "reduce": ("S", "N−1"),
        "all_reduce": ("2S(N−1)/N", "2(N−1)"),
        "reduce_scatter": ("S(N−1)/N", "N−1"),
        "all_gather": ("S(N−1)/N", "N−1"),
        "all_to_all": ("S(N−1)/N", "N−1"),
        "send_recv": ("S", "1"),
    }
    for op, forms in expected.items():
        assert tables.primitive_formula(op) == forms
    with pytest.raises(ValueError, match="op"):
        tables.primitive_formula("scatter")


def test_primitive_formula_fails_loudly_when_no_form_matches(monkeypatch):
    monkeypatch.setattr(collectives, "send_volume", lambda op, s, n, algorithm="ring": 3.0 * s)
    with pytest.raises(ValueError, match="no closed form"):
        tables.primitive_formula("broadcast")


def test_primitive_table_seed_numbers():
    rows = tables.primitive_table(14e9, 8)
    assert tables.primitive_table()[0] == ["原语", "结束时", "最忙的 rank 发送", "步数", "训练中用在哪"]
    assert [r[:4] for r in tables.primitive_table()] == [r[:4] for r in rows]
    assert len(rows) == 1 + len(collectives.OPS)
    assert rows[0][4] == "N = 8、S = 14 GB"
    by_name = {r[0]: r for r in rows[1:]}
    assert by_name["全归约"][2:5] == ["2S(N−1)/N", "2(N−1)", "24.5 GB"]
    assert by_name["归约-散播"][4] == "12.25 GB"
    assert by_name["全交换"][2] == "S(N−1)/N"
    assert by_name["广播"][2:5] == ["S", "N−1", "14 GB"]
    assert all(len(r) == 6 and all(r) for r in rows)


def test_magnitude_table_seed_example():
    links = [("IB", 50e9), ("A100 NVLink", 300e9), ("H100 NVLink", 450e9)]
    rows = tables.magnitude_table(7e9, 8, 4 * 4096**2 + 3 * 4096 * 11008, links)
    assert rows[0] == ["场景", "原语", "每个 rank 发送", "IB", "A100 NVLink", "H100 NVLink"]
    assert [r[0] for r in rows[1:]][::5] == ["DDP 梯度", "FSDP 一层参数"]
    ddp, rs, ag, z2, z3, layer = rows[1:]
    assert ddp[2:] == ["24.5 GB", "490 ms", "81.7 ms", "54.4 ms"]
    assert rs[2:4] == ["12.25 GB", "245 ms"] and ag[2:4] == ["12.25 GB", "245 ms"]
    assert z2[2:] == ddp[2:]  # ZeRO-1/2 per step = DDP (erratum 4)
    assert z3[2:4] == ["36.75 GB", "735 ms"]
    assert layer[2:4] == ["354.2 MB", "7.08 ms"]  # 7/8 of 404.75 MB over 50 GB/s (erratum 6)


def test_magnitude_table_latency_adds_steps():
    rows0 = tables.magnitude_table(1e6, 4, 1e5, [("x", 1e9)])
    rows1 = tables.magnitude_table(1e6, 4, 1e5, [("x", 1e9)], latency=1e-3)
    # DDP on Ψ = 1e6 bf16 gradients (2 MB): 2(N−1) = 6 steps of 1 ms on top of 3 ms
    assert rows0[1][3] == "3 ms" and rows1[1][3] == "9 ms"
    with pytest.raises(ValueError, match="links"):
        tables.magnitude_table(1e6, 4, 1e5, [])
    with pytest.raises(ValueError, match="layer"):
        tables.magnitude_table(1e6, 4, 0, [("x", 1e9)])
