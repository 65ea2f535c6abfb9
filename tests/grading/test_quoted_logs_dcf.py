"""The real-data questions of determinism (q4), checkpoint (q4), failures (q2), planner (q4), overlap (q8), network
(q10), ring-allreduce (q8), chunking (q8) and mpi-lab (q6) parse a public log or table (mpi-lab: this course's own
measurement, in the format its benchmark writes) that ships next to the master notebook: the notebook quotes the data
file line for line, and the file states its source (with the commit it was read at, for a file read from a
repository). No sandbox is needed."""

from __future__ import annotations

import json

from .helpers import SOURCE


def quoted(set_name: str, variable: str) -> list[str]:
    """The lines of the triple-quoted literal assigned to ``variable`` in the set's master notebook."""
    nb = json.loads((SOURCE / set_name / f"{set_name}.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"] if f"{variable} = " in "".join(c["source"]))
    return cell.split(f'{variable} = """\\\n')[1].split('"""')[0].splitlines()


def test_determinism_q4_quotes_the_mlperf_logs() -> None:
    data = (SOURCE / "determinism" / "mlperf_v07_resnet_8xv100.txt").read_text(encoding="utf-8")
    kept = data.split("# Below: the kept lines.\n")[1].splitlines()
    assert quoted("determinism", "MLPERF_LOG") == kept
    assert sum(line.startswith("# result_") for line in kept) == 5  # five runs of one submission
    assert sum('"key": "run_start"' in line for line in kept) == 5
    assert sum('"key": "run_stop"' in line for line in kept) == 5
    assert all(line.startswith((":::MLLOG ", "# result_")) for line in kept)
    assert "0a8a85a209c8e45b661596c382cc20f4e32fd2fe" in data


def test_checkpoint_q4_quotes_the_bigscience_table() -> None:
    data = (SOURCE / "checkpoint" / "bigscience_save_checkpoint.md").read_text(encoding="utf-8")
    table = data.split("# Below: the table as printed (its empty rows included).\n")[1].splitlines()
    assert quoted("checkpoint", "SAVE_TABLE") == table
    rows = [line for line in table[2:] if line.strip("| ")]
    assert len(rows) == 7  # 25B to 181B on 8 to 64 nodes
    assert "9e64edec2ad1fb9263bf39ba616a84ff64b4d947" in data


def test_failures_q2_quotes_table_5() -> None:
    data = (SOURCE / "failures" / "llama3_table5.md").read_text(encoding="utf-8")
    table = data.split("# Below: the table.\n")[1].splitlines()
    assert quoted("failures", "LLAMA3_TABLE5") == table
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert len(rows) == 18
    assert sum(int(r[2]) for r in rows) == 419  # the unexpected interruptions of the 54-day snapshot
    assert rows[0] == ["Faulty GPU", "GPU", "148", "30.1%"]  # printed as 30.1 %, although 148/419 = 35.3 %
    assert "arXiv:2407.21783" in data and "需核实" in data


def test_planner_q4_quotes_table_4() -> None:
    data = (SOURCE / "planner" / "llama3_table4.md").read_text(encoding="utf-8")
    table = data.split("# Below: the table.\n")[1].splitlines()
    assert quoted("planner", "TABLE4") == table
    rows = [[c.strip().replace(",", "") for c in line.strip("|").split("|")] for line in table[2:]]
    assert len(rows) == 3
    for gpus, tp, cp, pp, dp, seq, per_dp, tokens, _tflops, _mfu in rows[:2]:  # the first two rows are consistent
        assert int(tp) * int(cp) * int(pp) * int(dp) == int(gpus) and int(per_dp) * int(dp) * int(seq) == 2**24
        assert tokens == "16M"
    gpus, tp, cp, pp, dp, seq, per_dp = (int(x) for x in rows[2][:7])
    # the printed cell the question finds
    assert dp == 4 and tp * cp * pp * dp == gpus // 2 and per_dp * dp * seq == 2**23
    assert "arXiv:2407.21783" in data and "to be verified" in data


def test_overlap_q8_quotes_the_ddp_report() -> None:
    import csv
    import io
    import re

    data = (SOURCE / "overlap" / "ddp_bert_4xa100.txt").read_text(encoding="utf-8")
    body = data.split('# Below: the four pieces as published, each after a line "=== name ===".\n')[1]
    parts = re.split(r"^=== (.+) ===\n", body, flags=re.M)[1:]
    pieces = dict(zip(parts[::2], parts[1::2], strict=True))
    for variable, name in (("ALLREDUCE_JSON", "allreduce.json"), ("SUMMARY_CSV", "summary.csv"),
                           ("TIMELINE_MD", "README.md 7.5"), ("LAST_KERNELS_MD", "README.md 8.1")):
        assert quoted("overlap", variable) == pieces[name].splitlines(), variable
    results = json.loads(pieces["allreduce.json"])["results"]
    assert len(results) == 5 and results[-1]["size_mb"] * 1e6 == 108_893_186 * 4  # one whole fp32 gradient
    rows = {r["config"]: r for r in csv.DictReader(io.StringIO(pieces["summary.csv"]))}
    assert sorted(rows) == ["1n1g", "1n2g", "2n1g", "2n2g"] and rows["2n2g"]["steps_per_rank"] == "139"
    assert "ba38c3e697ff8107ce5266e3eee3246e6a2fc6c8" in data and "09784b5d701a95b3aa13c415ce711df3962f814a" in data


def test_network_q10_quotes_the_perftest_output() -> None:
    data = (SOURCE / "network" / "nvidia_ib_write_bw_roce.txt").read_text(encoding="utf-8")
    marker = "# Below: the output as published (the page's literal block, its common indentation removed).\n"
    body = data.split(marker)[1]
    assert quoted("network", "PERFTEST_OUT") == body.splitlines()
    rows = [line.split() for line in body.splitlines() if line.split() and line.split()[0].isdigit()]
    assert len(rows) == 23 and [int(r[0]) for r in rows] == [2**k for k in range(1, 24)]
    assert all(r[1] == "5000" for r in rows) and float(rows[-1][3]) == 92.39  # 5000 iterations; the ~92 Gb/s plateau
    for line in (" Mtu             : 1024[B]", " Link type       : Ethernet", " TX depth        : 128"):
        assert line in body.splitlines()
    assert "8e3a5df03d17c51c79964619128872572b9897d0" in data and "gpu-operator/gpu-operator-rdma.rst" in data


def test_ring_allreduce_q8_quotes_the_oracle_output() -> None:
    data = (SOURCE / "ring-allreduce" / "oracle_h100_all_reduce_perf.txt").read_text(encoding="utf-8")
    body = data.split("# Below: the table header, the data lines and the two summary lines of the published output, "
                      "as printed.\n")[1]
    assert quoted("ring-allreduce", "NCCL_LOG") == body.splitlines()
    header = body.splitlines()[1].lstrip("#").split()
    assert header[:9] == ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"]
    rows = [line.split() for line in body.splitlines() if not line.startswith("#")]
    assert [int(r[0]) for r in rows] == [2**k for k in range(30, 35)]  # 1 GiB to 16 GiB, -f 2
    assert all(r[4] == "-1" and r[8] == "0" and r[12] == "0" for r in rows)
    # every row's busbw is its algbw times 2(N - 1)/N = 1.875 for the 16 ranks of mpirun -n 16
    assert all(abs(float(r[7]) / float(r[6]) - 1.875) < 1e-4 for r in rows)
    assert body.splitlines()[-2:] == ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 458.452 "]
    assert "bf795eb339690f076be088abc84c16fcc6ce5100" in data and "run-nccltests-h100.md" in data


def test_chunking_q8_quotes_the_aws_output() -> None:
    data = (SOURCE / "chunking" / "aws_p4de_all_reduce_perf.txt").read_text(encoding="utf-8")
    body = data.split("# Below: the output as printed in the README.\n")[1]
    assert quoted("chunking", "NCCL_TESTS_LOG") == body.splitlines()
    assert all(line.startswith("0: ") for line in body.splitlines())  # srun's prefix for task 0 on every line
    rows = [line.split()[1:] for line in body.splitlines() if not line.startswith("0: #")]
    assert [int(r[0]) for r in rows] == [2**k for k in range(3, 32)]  # 8 B to 2 GiB, doubling
    assert all(r[3] == "sum" and r[4] == "-1" and r[8] == "0" and r[12] == "0" for r in rows)
    # no rank lines are printed: the 16 ranks (2 x p4de.24xlarge, 8 GPUs each) follow from busbw/algbw = 2(N - 1)/N
    assert round(2 / (2 - float(rows[-1][7]) / float(rows[-1][6]))) == 16
    assert "0162aacd5da07d424e13f44bef8dd2c4cfcc66e4" in data and "micro-benchmarks/nccl-tests/README.md" in data


def test_mpi_lab_q6_quotes_the_busy_sweep() -> None:
    import csv
    import importlib.util

    from clusterlab.lab import mpibench

    data = (SOURCE / "mpi-lab" / "mpi_lab_busy_n2.txt").read_text(encoding="utf-8")
    body = data.split("# Below: the measurement as written (line for line the notebook's BUSY_CSV).\n")[1]
    assert quoted("mpi-lab", "BUSY_CSV") == body.splitlines()
    lines = body.splitlines()
    # write_csv's "# key: value" lines for the machine, then its columns without the two that were not kept
    assert lines[:3] == ["# cpu: AMD EPYC", "# cores: 2", "# mpi: MPICH Version: 5.0.2"]
    assert lines[3].split(",") == [c for c in mpibench.COLUMNS if c not in ("min_s", "max_s")]
    rows = list(csv.DictReader(lines[3:]))
    groups = [("all_reduce", "ring"), ("reduce_scatter", "pairwise"), ("all_gather", "recursive_doubling"),
              ("broadcast", "binomial")]
    assert [(r["op"], r["algorithm"]) for r in rows] == [g for g in groups for _ in range(9)]
    assert all(r["ranks"] == "2" and r["repeats"] == "7" and r["oversubscribed"] == "0" for r in rows)
    sizes = [1000, 4000, 16000, 64000, 256000, 10**6, 4 * 10**6, 16 * 10**6, 64 * 10**6]
    assert [int(r["size_bytes"]) for r in rows] == sizes * 4
    spread = [(float(r["q75_s"]) - float(r["q25_s"])) / float(r["median_s"]) for r in rows]
    assert [sum(s > 0.5 for s in spread[9 * g: 9 * g + 9]) for g in range(4)] == [3, 3, 2, 1]  # the busy machine
    assert float(rows[4]["median_s"]) == 0.0031496 and float(rows[8]["median_s"]) == 0.33977  # as recorded
    spec = importlib.util.spec_from_file_location("mpi_lab_variant", SOURCE / "mpi-lab" / "variant.py")
    assert spec is not None and spec.loader is not None
    variant = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(variant)
    assert [tuple(g) for g in variant.REAL] == groups
    for g, held in enumerate(variant.HELD6):  # a held-out row is trustworthy and neither the smallest nor the largest S
        assert held == [i for i in range(1, 8) if spread[9 * g + i] <= 0.5]
    assert "2076069d3d1699d0683d3bd4c64de1cad70b4654" in data and "33da0c6938f9e281a3423909168f41e2ad550f8b" in data
    assert "mpibench.run_sweep" in data and "book/_data/mpi_lab_reference.csv" in data
