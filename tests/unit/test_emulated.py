"""The emulated cluster's pure parts: units, framing, topology checks, launchers, dry runs (no namespaces)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.lab import emulate, emulated
from clusterlab.lab.launch import Launcher, read_hostfile


@pytest.mark.parametrize(("text", "want"), [("1gbit", 1e9), ("200mbit", 2e8), ("2.5gbit", 2.5e9), ("64kbit", 64e3),
                                            (1e6, 1e6)])
def test_parse_rate(text: str | float, want: float) -> None:
    assert emulated.parse_rate(text) == pytest.approx(want)


@pytest.mark.parametrize("bad", ["1gb", "fast", "", "-1gbit", "0mbit", True])
def test_parse_rate_rejects(bad: object) -> None:
    with pytest.raises(ValueError, match="rate"):
        emulated.parse_rate(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "want"), [("200us", 2e-4), ("1ms", 1e-3), ("0", 0.0), ("0.5s", 0.5)])
def test_parse_time(text: str, want: float) -> None:
    assert emulated.parse_time(text) == pytest.approx(want)


@pytest.mark.parametrize("bad", ["200", "2 hours", "-1ms"])
def test_parse_time_rejects(bad: str) -> None:
    with pytest.raises(ValueError, match="delay"):
        emulated.parse_time(bad)


@given(st.floats(1e3, 1e11))
def test_format_rate_round_trips(rate: float) -> None:
    r = float(round(rate))
    assert emulated.parse_rate(emulated.format_rate(r)) == pytest.approx(r)


def test_payload_rate_counts_headers_and_acks() -> None:
    # 1500 B MTU: 1448 B payload per 1514 B frame one way; 1547 B with half a 66 B ACK frame for the other direction
    assert emulated.payload_rate(1e9, both_ways=False) == pytest.approx(125e6 * 1448 / 1514)
    assert emulated.payload_rate(1e9) == pytest.approx(125e6 * 1448 / 1547)
    assert emulated.payload_rate(1e9, 9000) == pytest.approx(125e6 * 8948 / 9047)


def test_topology_checks() -> None:
    t = emulated.Topology(nodes=4, ranks_per_node=2, leaves=2, slow=((3, 1e6),))
    assert [t.leaf(i) for i in range(4)] == [0, 0, 1, 1]
    assert t.link_rate(3) == 1e6 and t.link_rate(0) == 1e9
    assert t.address(0) == "10.213.0.1"
    for kwargs, name in [({"nodes": 0}, "nodes"), ({"nodes": 2, "rate": 0}, "rate"),
                         ({"nodes": 2, "leaves": 3}, "leaves"), ({"nodes": 2, "slow": ((2, 1e6),)}, "slow node"),
                         ({"nodes": 2, "delay": -1}, "delay"), ({"nodes": 1, "leaves": 2}, "leaves")]:
        with pytest.raises(ValueError, match=name):
            emulated.Topology(**kwargs)  # type: ignore[arg-type]


def test_isolated_command_maps_root_only_when_unprivileged() -> None:
    assert "--map-root-user" in emulated.isolated_command(["true"], mode="userns")
    cmd = emulated.isolated_command(["true"], mode="root")
    assert "--map-root-user" not in cmd and "--net" in cmd and "--kill-child" in cmd and cmd[-1] == "true"


def test_availability_says_why_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    emulated.availability.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        a = emulated.availability()
        assert not a and "macOS" in a.reason and "\n" not in a.reason
    finally:
        emulated.availability.cache_clear()


def test_hostfile(tmp_path: Path) -> None:
    f = tmp_path / "hosts"
    f.write_text("# two nodes\nnode-a:8\nnode-b   # the second\n\n", encoding="utf-8")
    assert read_hostfile(f) == (("node-a", 8), ("node-b", 1))
    run = Launcher.hostfile(f, "mpiexec", ranks_per_node=4)
    assert run.command(8, ["python", "w.py"]) == ["mpiexec", "-f", str(f.resolve()), "-ppn", "4", "-n", "8",
                                                  "python", "w.py"]
    with pytest.raises(ValueError, match="at most nodes"):
        run.command(9, ["x"])
    f.write_text("node-a:0\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        read_hostfile(f)
    with pytest.raises(ValueError, match="does not exist"):
        read_hostfile(tmp_path / "missing")


def test_slurm_needs_an_allocation_or_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLURM_JOB_NUM_NODES", raising=False)
    monkeypatch.delenv("SLURM_NNODES", raising=False)
    with pytest.raises(ValueError, match="nodes must be given"):
        Launcher.slurm("mpiexec")
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "16")
    run = Launcher.slurm("mpiexec", ranks_per_node=8)
    assert run.nodes == 16 and run.command(128, ["w"])[:5] == ["mpiexec", "-launcher", "slurm", "-rmk", "slurm"]


def test_plan_steps() -> None:
    one = Launcher("mpiexec", (), {}, 4, 1)
    full = Launcher("mpiexec", (), {}, 4, 2)
    p = emulate.plan(one, full, nodes=4, ranks_per_node=2, node_counts=(2, 4))
    assert [s.part for s in p.steps] == ["floor", "inter:2", "inter:4", "intra", "hier"]
    assert [s.ranks for s in p.steps] == [2, 2, 4, 2, 8]
    assert all("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM" in dict(s.env) for s in p.steps[1:])
    with pytest.raises(ValueError, match="node_counts"):
        emulate.plan(one, full, nodes=4, ranks_per_node=2, node_counts=(2, 5))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "clusterlab.lab", "emulate", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_dry_run_on_a_hostfile_prints_the_commands(tmp_path: Path) -> None:
    f = tmp_path / "hosts.txt"
    f.write_text("gpu01:8\ngpu02:8\ngpu03:8\ngpu04:8\n", encoding="utf-8")
    out = _cli("--hostfile", str(f), "--ranks-per-node", "8", "--node-counts", "2,4", "--dry-run")
    assert out.returncode == 0, out.stderr
    lines = [x for x in out.stdout.splitlines() if not x.startswith("#")]
    assert len(lines) == 5 and all(x.startswith("mpiexec -f ") for x in lines)
    assert "-ppn 8 -n 32" in lines[-1] and "hier" in lines[-1] and "-ppn 1 -n 4" in lines[2]


def test_dry_run_under_slurm_and_emulated() -> None:
    out = _cli("--slurm", "--nodes", "4", "--ranks-per-node", "8", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("mpiexec -launcher slurm -rmk slurm") == 5
    out = _cli("--nodes", "2", "--dry-run")
    assert out.returncode == 0 and "-hosts n0:1,n1:1" in out.stdout and "intra" not in out.stdout


@pytest.mark.parametrize(("args", "word"), [(["--rate", "fast"], "rate"), (["--slow", "x"], "slow"),
                                             (["--nodes", "0"], "nodes")])
def test_cli_rejects_bad_input(args: list[str], word: str) -> None:
    out = _cli(*args, "--dry-run")
    assert out.returncode == 2 and word in out.stderr and out.stderr.count("\n") == 1


def test_ring_rate_is_the_slowest_hop() -> None:
    t = emulated.Topology(nodes=4, rate=2e8, leaves=2, uplink_rate=1e8)
    assert t.ring_rate(2) == 2e8  # nodes 0 and 1 share leaf 0
    assert t.ring_rate(4) == 1e8  # edges 1→2 and 3→0 cross, one per direction of the uplink
    assert emulated.Topology(nodes=4, rate=2e8, slow=((2, 5e7),)).ring_rate() == 5e7
    assert emulated.Topology(nodes=8, rate=2e8, leaves=2, uplink_rate=4e8).ring_rate() == 2e8
