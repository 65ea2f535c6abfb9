"""The real-data questions quote their data files: the text a student parses is the published file, line for line.

Each set keeps the published data next to its master notebook with the source and the commit it was read at; the
notebook's data cell is checked against it here, so that an edit of one without the other is caught."""

from __future__ import annotations

import json

from .helpers import SOURCE


def _cell(set_name: str, start: str) -> str:
    nb = json.loads((SOURCE / set_name / f"{set_name}.ipynb").read_text(encoding="utf-8"))
    return next("".join(c["source"]) for c in nb["cells"] if "".join(c["source"]).startswith(start))


def _quoted(cell: str) -> list[str]:
    return cell.split('r"""', 1)[1].rsplit('"""', 1)[0].splitlines()


def test_collectives_961_q8_log_is_the_data_file() -> None:
    data = (SOURCE / "collectives-961" / "gcp_a3mega_all_reduce_perf.txt").read_text(encoding="utf-8")
    published = data.split("line for line.\n", 1)[1].splitlines()
    assert _quoted(_cell("collectives-961", "NCCL_LOG = ")) == published
    assert sum(1 for line in published if line.split()[:1] and line.split()[0].isdigit()) == 31  # 8 B to 8 GiB
    assert sum(1 for line in published if line.split()[:2] == ["#", "Rank"]) == 16
    assert "02dd8f455c43ced1cf442ef29334bda97149264b" in data  # the source is stated with the commit it was read at


def test_algorithms_q4_logs_are_the_data_file() -> None:
    data = (SOURCE / "algorithms" / "gcp_a4x_all_gather_perf.txt").read_text(encoding="utf-8")
    two, tas = data.split("=== two_nodes ===\n", 1)[1].split("=== tas ===\n")
    cell = _cell("algorithms", "A4X_TWO_NODES = ")
    quoted_two = cell.split('A4X_TWO_NODES = """\\\n', 1)[1].split('"""', 1)[0]
    quoted_tas = cell.split('A4X_TAS = """\\\n', 1)[1].split('"""', 1)[0]
    assert (quoted_two, quoted_tas) == (two, tas)
    for text, ranks in ((two, 8), (tas, 32)):  # all_gather: size = N x count x 4 B on every data line
        rows = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
        assert len(rows) == 24 and all(int(r[0]) == ranks * int(r[1]) * 4 for r in rows)
    assert "test-gke-custom-a4x" in data


def test_parallelism_q6_table_is_the_data_file() -> None:
    data = (SOURCE / "parallelism" / "megatron_table1.csv").read_text(encoding="utf-8")
    published = data.split("line for line.\n", 1)[1].splitlines()
    assert _quoted(_cell("parallelism", "MEGATRON_TABLE1 = ")) == published
    assert len(published) == 11  # the header and the ten models, 1.7B to 1T
    assert "69070b28de401b6800d30f435db32996473560e2" in data


def test_dataplane_q6_grep_output_is_the_data_file() -> None:
    data = (SOURCE / "dataplane" / "mlperf_storage_unet3d_h100.txt").read_text(encoding="utf-8")
    config, summary = data.split("=== config ===\n", 1)[1].split("=== summary ===\n")
    cell = _cell("dataplane", "MLPERF_CONFIG = ")
    quoted_config = cell.split('MLPERF_CONFIG = """\\\n', 1)[1].split('"""', 1)[0]
    quoted_summary = cell.split('MLPERF_SUMMARY = """\\\n', 1)[1].split('"""', 1)[0]
    assert (quoted_config, quoted_summary) == (config, summary)
    files = {line.split(":", 1)[0] for line in summary.splitlines()}
    assert len(files) == 10 and len(summary.splitlines()) == 50  # five fields of each run's summary.json
    assert "64c2ce48578aabb20cff572c0495564d289e4955" in data


def test_fault_tolerance_q1_trace_is_the_data_file() -> None:
    data = (SOURCE / "fault-tolerance" / "stepfun_fault_starts.txt").read_text(encoding="utf-8")
    lines = data.split("Below: the 584 lines.\n", 1)[1]
    cell = _cell("fault-tolerance", "FAULTS = ")
    assert cell.split('FAULTS = """\\\n', 1)[1].split('"""', 1)[0] == lines
    rows = [line.split(" | ") for line in lines.splitlines()]
    assert len(rows) == 584 and all(len(r) == 5 for r in rows)
    days = [float(r[0]) for r in rows]
    assert days == sorted(days) and days[-1] < 349  # in the file's order, 348 days
    assert sum(r[2] == "Hardware Failure" for r in rows) == 298
    assert "7aacdc8c3d2352c5b784bc0ea31756e1620daed1" in data
    licence = (SOURCE / "fault-tolerance" / "stepfun_fault_trace_LICENSE.txt").read_text(encoding="utf-8")
    assert licence.lstrip().startswith("Apache License")  # the trace's licence travels with the data derived from it


def test_emulated_lab_q4_report_is_the_data_file() -> None:
    data = (SOURCE / "emulated-lab" / "two_leaves_4x1.txt").read_text(encoding="utf-8")
    published = data.split("(line for line the notebook's LEAVES_JSON).\n", 1)[1]
    cell = _cell("emulated-lab", "# 本书模拟集群的一次运行")
    assert cell.split('LEAVES_JSON = """\\\n', 1)[1].rsplit('"""', 1)[0] == published
    kept = json.loads(published)
    book = json.loads((SOURCE.parents[1] / "book" / "_data" / "emulated" / "two_leaves_4x1.json").read_text("utf-8"))
    assert kept["measurements"] == book["measurements"]  # every measured row, unchanged
    assert all(kept[k] == book[k] for k in ("where", "nodes", "ranks_per_node", "floor", "machine"))
    assert all(kept["imposed"][k] == book["imposed"][k] for k in ("rate_bps", "uplink_rate_bps", "leaves", "delay_s"))
    assert "fitted" not in kept and "0e39576ec7fc596d0ad7e6bafdfe7c716600934f" in data
