"""An emulated cluster on one Linux machine (集群篇 §2.3, §5): N "nodes" in network namespaces, R MPI ranks each,
shared memory inside a node, TCP links between nodes shaped to a rate (and a delay where ``netem`` exists).

The picture, all of it inside one private network namespace (the "switch") that exists only while the experiment
runs::

    node 0 ─eth0═╗                           ╔═eth0─ node k
    node 1 ─eth0═╬══ leaf bridge 0 ══uplink══╬═ leaf bridge 1 ... (optional second leaf)
      ...        ║   (10.213.0.254: mpiexec)  ║

Every node link is a veth pair shaped in **both** directions by a token bucket (``tc tbf``): the node's ``eth0``
limits what it sends, the switch-side end what it receives, so ``rate`` is a per-direction rate as in §3. With two
leaves the uplink between them is one more shaped veth pair.

**Nothing is left behind.** The experiment runs in a child process started by :func:`isolated_command`
(``unshare --net --kill-child``, and ``--user --map-root-user`` when not root): the switch namespace is that
child's own, every node namespace is held by a ``sleep`` that dies with its parent (``PR_SET_PDEATHSIG``), and
nothing is created in the machine's own network namespace. Ctrl-C, an exception or a killed parent all end the
child and with it every namespace, bridge and veth.

**Where it runs.** Linux with network namespaces: as root, or unprivileged where the kernel allows user
namespaces (most desktop distributions; some disable them with ``kernel.unprivileged_userns_clone=0`` or
AppArmor). WSL 2 on Windows is a Linux kernel and works the same way; macOS has no network namespaces.
:func:`availability` says which, in one line.

**Framing.** ``tbf`` counts the bytes of every Ethernet frame without preamble and gaps (IP packet + 14 B header).
A TCP segment on a 1500 B MTU carries 1448 B of payload (20 B IP, 20 B TCP, 12 B timestamp option), so the rate an
application can see is ``rate/8 · 1448/1514`` one way, and ``rate/8 · 1448/1547`` when data flow both ways and
each direction also carries the other's ACKs (:func:`payload_rate`). Rates above a few hundred Mbit/s need more
CPU than a small machine has for the kernel's TCP work next to busy-polling MPI ranks; the measured β then falls
below the imposed one for that reason, not the link's.

MPI: MPICH (the pinned wheel) with its OFI netmod on libfabric's ``tcp`` provider between nodes and its own
shared-memory transport inside a node; hydra starts one proxy per node through a generated ``rsh``-style launcher
that enters the node's namespace (:meth:`Fabric.launcher`).
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..validate import int_in_range, non_negative, positive
from .launch import Launcher

__all__ = [
    "MPI_ENV",
    "Availability",
    "Fabric",
    "LabUnavailableError",
    "Topology",
    "availability",
    "format_rate",
    "isolated_command",
    "parse_rate",
    "parse_time",
    "payload_rate",
    "sweep_topology_files",
]

SUBNET: Final = "10.213.0"
SWITCH_ADDRESS: Final = f"{SUBNET}.254"
#: what the MPI processes need so that node-to-node traffic really crosses the shaped links: MPICH's OFI netmod on
#: libfabric's TCP provider (the UCX netmod would find the other "nodes" on the same machine and use shared memory)
MPI_ENV: Final = {"MPICH_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "eth0"}
TCP_IP_HEADERS: Final = 20 + 20 + 12  # IPv4, TCP, TCP timestamp option
ETHERNET_HEADER: Final = 14
ACK_FRAME: Final = ETHERNET_HEADER + TCP_IP_HEADERS  # a pure ACK: headers only, 66 B
_RATE_UNITS: Final = {"bit": 1.0, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12}
_TIME_UNITS: Final = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


class LabUnavailableError(RuntimeError):
    """The machine cannot build the emulated cluster (no Linux namespaces, no permission, no ``ip``/``tc``)."""


def parse_rate(text: str | float) -> float:
    """``"1gbit"`` → 1e9 (bit/s); a number is taken as bit/s. Units as ``tc``: bit, kbit, mbit, gbit, tbit."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return positive("rate", text)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-zA-Z]+)\s*", str(text))
    if m is None or m.group(2).lower() not in _RATE_UNITS:
        raise ValueError(f"rate must be a number with a unit bit, kbit, mbit, gbit or tbit (e.g. 1gbit); "
                         f"got {text!r}")
    return positive("rate", float(m.group(1)) * _RATE_UNITS[m.group(2).lower()])


def parse_time(text: str | float) -> float:
    """``"200us"`` → 2e-4 (s); a number is taken as seconds. Units s, ms, us, ns."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return non_negative("delay", text)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-zA-Zµ]*)\s*", str(text))
    if m is not None and m.group(2) == "" and float(m.group(1)) == 0:
        return 0.0
    if m is None or m.group(2).lower() not in _TIME_UNITS:
        raise ValueError(f"delay must be a number with a unit s, ms, us or ns (e.g. 200us); got {text!r}")
    return non_negative("delay", float(m.group(1)) * _TIME_UNITS[m.group(2).lower()])


def format_rate(rate: float) -> str:
    """1e9 → ``"1gbit"``, 2.5e8 → ``"250mbit"``: the form ``tc`` reads (whole numbers of the largest unit that fits)."""
    r = positive("rate", rate)
    for unit in ("tbit", "gbit", "mbit", "kbit"):
        scaled = r / _RATE_UNITS[unit]
        if scaled >= 1 and abs(scaled - round(scaled)) < 1e-9:
            return f"{round(scaled)}{unit}"
    return f"{round(r)}bit"


def payload_rate(rate: float, mtu: int = 1500, *, both_ways: bool = True) -> float:
    """Bytes per second of TCP payload on a link shaped to ``rate`` bit/s.

    One way only (``both_ways=False``): every 1514 B frame carries 1448 B, ``rate/8 · (MTU − 52)/(MTU + 14)``.
    Data both ways at once (a ring's links, a pairwise exchange): each direction also carries the ACKs of the other
    direction's data, one 66 B ACK frame per two segments (Linux's delayed ACK), so
    ``rate/8 · (MTU − 52)/(MTU + 14 + 66/2)``.
    """
    r = positive("rate", rate)
    m = int_in_range("mtu", mtu, 576, 65535)
    frame = m + ETHERNET_HEADER + (ACK_FRAME / 2 if both_ways else 0.0)
    return r / 8 * (m - TCP_IP_HEADERS) / frame


@dataclass(frozen=True)
class Topology:
    """The emulated cluster: ``nodes`` nodes of ``ranks_per_node`` ranks, every node link shaped to ``rate`` bit/s
    per direction with one-way ``delay`` s; ``leaves`` = 2 puts the first half of the nodes on one leaf and the rest
    on another, joined by an uplink of ``uplink_rate`` bit/s per direction; ``slow`` lists (node, rate) links slowed
    below ``rate``."""

    nodes: int
    ranks_per_node: int = 1
    rate: float = 1e9
    delay: float = 0.0
    leaves: int = 1
    uplink_rate: float | None = None
    slow: tuple[tuple[int, float], ...] = field(default=())
    mtu: int = 1500

    def __post_init__(self) -> None:
        int_in_range("nodes", self.nodes, 1, 64)
        int_in_range("ranks_per_node", self.ranks_per_node, 1, 64)
        positive("rate", self.rate)
        non_negative("delay", self.delay)
        int_in_range("leaves", self.leaves, 1, 2)
        if self.leaves == 2 and self.nodes < 2:
            raise ValueError(f"leaves=2 needs nodes >= 2; got nodes={self.nodes}")
        if self.uplink_rate is not None:
            positive("uplink_rate", self.uplink_rate)
        for node, rate in self.slow:
            int_in_range("slow node", node, 0, self.nodes - 1)
            positive("slow rate", rate)
        int_in_range("mtu", self.mtu, 576, 9000)

    def leaf(self, node: int) -> int:
        """The leaf node ``node`` hangs off (first half on leaf 0)."""
        return 0 if self.leaves == 1 else int(node >= (self.nodes + 1) // 2)

    def address(self, node: int) -> str:
        return f"{SUBNET}.{int_in_range('node', node, 0, self.nodes - 1) + 1}"

    def ring_rate(self, nodes: int | None = None) -> float:
        """The per-direction rate (bit/s) a ring over the first ``nodes`` nodes (all by default) gets: its slowest
        hop — a node link, or the uplink shared by the ring edges that cross from one leaf to the other (each
        direction of the uplink carries one ring edge per crossing)."""
        k = self.nodes if nodes is None else int_in_range("nodes", nodes, 2, self.nodes)
        rates = [self.link_rate(i) for i in range(k)]
        crossings = sum(self.leaf(i) == 0 and self.leaf((i + 1) % k) == 1 for i in range(k))
        if crossings and self.uplink_rate is not None:
            rates.append(self.uplink_rate / crossings)
        return min(rates)

    def link_rate(self, node: int) -> float:
        """The imposed rate of ``node``'s link (bit/s per direction)."""
        return dict(self.slow).get(node, self.rate)


@dataclass(frozen=True)
class Availability:
    """Whether this machine can build the emulated cluster: ``mode`` is ``"root"``, ``"userns"`` or ``None`` (then
    ``reason`` says why in one line); ``netem`` whether a delay can be imposed."""

    mode: str | None
    reason: str
    netem: bool = False

    def __bool__(self) -> bool:
        return self.mode is not None


def _tools() -> tuple[str, str, str, str] | str:
    found = tuple(shutil.which(t) for t in ("unshare", "nsenter", "ip", "tc"))
    missing = [t for t, f in zip(("unshare", "nsenter", "ip", "tc"), found, strict=True) if f is None]
    if missing:
        return (f"the emulated cluster needs {', '.join(missing)} (util-linux and iproute2; "
                f"Debian/Ubuntu: apt install util-linux iproute2)")
    return found  # type: ignore[return-value]


def isolated_command(argv: Sequence[str], *, mode: str | None = None) -> list[str]:
    """``argv`` wrapped so it runs in a private network namespace (and a user namespace when not root)."""
    tools = _tools()
    if isinstance(tools, str):
        raise LabUnavailableError(tools)
    unshare = tools[0]
    mode = mode or ("root" if os.geteuid() == 0 else "userns")
    user = ["--user", "--map-root-user"] if mode == "userns" else []
    return [unshare, *user, "--net", "--fork", "--kill-child", "--", *argv]


@functools.lru_cache(maxsize=1)
def availability() -> Availability:
    """Probe once (a few ms): can this process build the emulated cluster, as root or through user namespaces?"""
    if sys.platform != "linux":
        return Availability(None, f"the emulated cluster needs Linux network namespaces; this is {sys.platform} "
                                  "(macOS has none; on Windows use WSL 2)")
    tools = _tools()
    if isinstance(tools, str):
        return Availability(None, tools)
    mode = "root" if os.geteuid() == 0 else "userns"
    probe = ("ip link set lo up && ip link add clprobe0 type veth peer name clprobe1 && "
             "tc qdisc add dev clprobe0 root tbf rate 1gbit burst 32kb latency 50ms && "
             "(tc qdisc add dev clprobe1 root netem delay 1ms 2>/dev/null && echo netem || echo no-netem)")
    try:
        out = subprocess.run(isolated_command(["sh", "-c", probe], mode=mode), capture_output=True, text=True,
                             timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(None, f"cannot create a network namespace ({exc})")
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or ["unknown error"])[-1]
        hint = ("" if mode == "root" else
                "; run as root, or allow user namespaces (sysctl kernel.unprivileged_userns_clone=1 or "
                "kernel.apparmor_restrict_unprivileged_userns=0)")
        return Availability(None, f"cannot build namespaced links as {mode}: {why}{hint}")
    return Availability(mode, f"network namespaces available ({mode})", netem=out.stdout.strip() == "netem")


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _run(cmd: Sequence[str]) -> None:
    out = subprocess.run(list(cmd), capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise LabUnavailableError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")


def sweep_topology_files(since: float, wait: float = 0.0) -> int:
    """Remove the topology files the Hydra proxies of a killed job left in /tmp (the path is fixed in Hydra, not
    ``$TMPDIR``; a proxy removes its own only when it ends normally): those written since ``since`` (``time.time``)
    and open in no process, so another MPI job's file survives. With ``wait`` > 0, keep sweeping for up to ``wait``
    s (at least a few tenths) while a proxy that is still dying holds one open or writes one. Returns how many
    such files are still held."""
    deadline = time.monotonic() + wait
    first = time.monotonic()
    while True:
        files = [f for f in Path("/tmp").glob("hydra_hwloc_xmlfile_*") if f.stat().st_mtime >= since - 1]
        held = set()
        if files:
            for fd in Path("/proc").glob("[0-9]*/fd/*"):
                try:
                    held.add(os.readlink(fd))
                except OSError:
                    continue
        for f in files:
            if str(f) not in held:
                f.unlink(missing_ok=True)
        left = sum(str(f) in held for f in files)
        now = time.monotonic()
        if now >= deadline or (left == 0 and now - first >= min(wait, 0.5)):
            return left
        time.sleep(0.1)


class Fabric:
    """The emulated cluster, built inside an isolated process (:func:`isolated_command`); a context manager.

    ``workdir``: where the launcher script goes — a directory the caller outside the isolated process creates and
    removes (so that it goes away even when the isolated process is killed); by default a temporary directory.

    ``with Fabric(topo) as fab:`` creates the bridges, one namespace per node, the shaped links, and a launcher
    script; :meth:`launcher` starts MPI ranks on the nodes; :meth:`set_rate` and
    :meth:`set_link` change one node's link while ranks run (a slow or a cut link). Leaving the block removes it all
    (and so does the process ending)."""

    def __init__(self, topology: Topology, *, netem: bool | None = None, workdir: str | None = None) -> None:
        self.topology = topology
        tools = _tools()
        if isinstance(tools, str):
            raise LabUnavailableError(tools)
        self._unshare, self._nsenter, self._ip, self._tc = tools
        if topology.delay > 0 and netem is False:
            raise LabUnavailableError("this kernel has no netem qdisc (sch_netem): a delay cannot be imposed; "
                                      "leave --delay out")
        self._holders: list[subprocess.Popen[bytes]] = []
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._workdir = workdir
        self._script = ""
        self._started = time.time()

    # -- building -----------------------------------------------------------------------------------------
    def __enter__(self) -> Fabric:
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _in(self, node: int | None, *cmd: str) -> list[str]:
        if node is None:
            return list(cmd)
        return [self._nsenter, f"--net=/proc/{self._holders[node].pid}/ns/net", "--", *cmd]

    def _shape(self, node: int | None, dev: str, rate: float) -> None:
        t = self.topology
        burst = max(32_000, 4 * (t.mtu + ETHERNET_HEADER))
        tbf = ["tbf", "rate", f"{rate:.0f}bit", "burst", str(burst), "latency", "50ms"]
        if t.delay > 0:
            _run(self._in(node, self._tc, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem", "delay",
                          f"{t.delay * 1e6:.0f}us", "limit", "100000"))
            _run(self._in(node, self._tc, "qdisc", "replace", "dev", dev, "parent", "1:", "handle", "2:", *tbf))
        else:
            _run(self._in(node, self._tc, "qdisc", "replace", "dev", dev, "root", *tbf))

    def _build(self) -> None:
        t = self.topology
        ip = self._ip
        _run([ip, "link", "set", "lo", "up"])
        for leaf in range(t.leaves):
            _run([ip, "link", "add", f"clbr{leaf}", "type", "bridge"])
            _run([ip, "link", "set", f"clbr{leaf}", "up"])
        _run([ip, "addr", "add", f"{SWITCH_ADDRESS}/24", "dev", "clbr0"])
        if t.leaves == 2:
            _run([ip, "link", "add", "clup0", "type", "veth", "peer", "name", "clup1"])
            for leaf in (0, 1):
                _run([ip, "link", "set", f"clup{leaf}", "mtu", str(t.mtu), "master", f"clbr{leaf}", "up"])
                if t.uplink_rate is not None:
                    self._shape(None, f"clup{leaf}", t.uplink_rate)
        me = os.readlink("/proc/self/ns/net")
        for node in range(t.nodes):
            holder = subprocess.Popen([self._unshare, "--net", "sleep", "infinity"], preexec_fn=_die_with_parent,
                                      stdin=subprocess.DEVNULL)
            self._holders.append(holder)
            for _ in range(500):
                try:
                    if os.readlink(f"/proc/{holder.pid}/ns/net") != me:
                        break
                except OSError:
                    pass
                time.sleep(0.002)
            else:
                raise LabUnavailableError(f"node {node}: its network namespace did not appear")
            _run([ip, "link", "add", f"clv{node}", "type", "veth", "peer", "name", "eth0", "netns", str(holder.pid)])
            _run([ip, "link", "set", f"clv{node}", "mtu", str(t.mtu), "master", f"clbr{t.leaf(node)}", "up"])
            _run(self._in(node, ip, "link", "set", "lo", "up"))
            _run(self._in(node, ip, "link", "set", "eth0", "mtu", str(t.mtu), "up"))
            _run(self._in(node, ip, "addr", "add", f"{t.address(node)}/24", "dev", "eth0"))
            self.set_rate(node, t.link_rate(node))
        if self._workdir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="clusterlab-fabric-")
        cases = "\n".join(f"  n{i}) pid={h.pid} ;;" for i, h in enumerate(self._holders))
        script = Path(self._workdir or self._dir.name) / "node-exec"  # type: ignore[union-attr]
        script.write_text("#!/bin/sh\n# hydra's rsh launcher calls: node-exec HOST COMMAND...\n"
                          f'host="$1"; shift\ncase "$host" in\n{cases}\n  *) echo "unknown node $host" >&2; exit 2 ;;\n'
                          f'esac\nexec {self._nsenter} --net=/proc/$pid/ns/net -- sh -c "$*"\n', encoding="utf-8")
        script.chmod(0o755)
        self._script = str(script)

    def close(self) -> None:
        """Remove the namespaces (kill their holders) and the launcher script; safe to call twice."""
        for h in self._holders:
            if h.poll() is None:
                h.kill()
            h.wait()
        self._holders.clear()
        for leaf in range(self.topology.leaves):
            subprocess.run([self._ip, "link", "del", f"clbr{leaf}"], capture_output=True, check=False)
        subprocess.run([self._ip, "link", "del", "clup0"], capture_output=True, check=False)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None
        sweep_topology_files(self._started, wait=3.0)  # an interrupted mpiexec's proxies do not remove theirs

    # -- changing links -----------------------------------------------------------------------------------
    def set_rate(self, node: int, rate: float) -> None:
        """Shape ``node``'s link to ``rate`` bit/s in both directions."""
        int_in_range("node", node, 0, self.topology.nodes - 1)
        positive("rate", rate)
        self._shape(node, "eth0", rate)
        self._shape(None, f"clv{node}", rate)

    def set_link(self, node: int, up: bool) -> None:
        """Cut (``up=False``) or restore ``node``'s link at the switch, as ``ip link set … down`` does to a NIC."""
        int_in_range("node", node, 0, self.topology.nodes - 1)
        _run([self._ip, "link", "set", f"clv{node}", "up" if up else "down"])

    def node_command(self, node: int, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside ``node``'s namespace."""
        return self._in(int_in_range("node", node, 0, self.topology.nodes - 1), *argv)

    # -- MPI ----------------------------------------------------------------------------------------------
    def launcher(self, mpiexec: str, *, ranks_per_node: int | None = None) -> Launcher:
        """A :class:`~clusterlab.lab.launch.Launcher` for the emulated nodes, ``ranks_per_node`` ranks on each
        (default: the topology's), filling node 0 first; its environment routes MPICH over the shaped TCP links."""
        if not self._script:
            raise LabUnavailableError("the fabric is not built: use it inside `with Fabric(...)`")
        t = self.topology
        r = t.ranks_per_node if ranks_per_node is None else int_in_range("ranks_per_node", ranks_per_node, 1, 64)
        hosts = ",".join(f"n{i}:{r}" for i in range(t.nodes))
        return Launcher(mpiexec, ("-launcher", "rsh", "-launcher-exec", self._script, "-hosts", hosts,
                                  "-iface", "clbr0"), dict(MPI_ENV), t.nodes, r,
                        f"the emulated cluster ({t.nodes} nodes)")
