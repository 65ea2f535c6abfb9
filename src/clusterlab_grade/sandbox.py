"""Start ``runner.py`` in a bubblewrap sandbox and talk to it with deadlines.

The sandbox (Linux, ``bwrap`` from the Debian package ``bubblewrap``):

* a fresh user, PID, network, IPC, UTS and cgroup namespace (``--unshare-all``), running as uid 65534 with
  every capability dropped and no way to create further user namespaces;
* a read-only view of the system (``/usr``), of the Python installation and of the virtual environment, and
  nothing else of the host: not the project, not the submissions, not the grading package, not the home folder;
* private, size-limited ``tmpfs`` for ``/tmp`` and the working folder; an empty environment (``--clearenv``);
* ``--die-with-parent`` and ``--new-session``; a seccomp filter that refuses ``fork``/``vfork`` and any ``clone``
  without ``CLONE_THREAD`` (threads are fine, new processes are not — a fork bomb gets ``EPERM``);
* inside, ``runner.py`` sets CPU-time, address-space, process-count, file-size and open-file limits before any
  student code runs.

Every read and write has a deadline; at the deadline (or when the output passes its size limit) the whole
process group is killed with SIGKILL. Killing the outer ``bwrap`` takes its PID namespace with it, so no
grandchild survives, and the grader never waits for a pipe that a background process keeps open.

``unsafe=True`` runs the same runner as a plain child process (same limits, same protocol, no isolation): for
the teacher's own solution notebooks at build time, or when ``bwrap`` is missing and the teacher insists.
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import select
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import protocol

HERE = Path(__file__).resolve().parent
SANDBOX_DIR = "/opt/grader"
HOME = "/home/student"
DEV_SHM_BYTES = 1024**2
# the virtual environment's interpreter, not resolved (through the venv path it finds its site-packages)
PYTHON = os.path.abspath(sys.executable)


class SandboxError(Exception):
    """The sandbox died, timed out, or said something that is not a protocol message."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission (seconds, bytes, counts)."""

    timeout: float = 120.0  # wall clock for the whole submission: notebook + every check
    cell_timeout: float = 30.0  # one notebook cell
    call_timeout: float = 30.0  # one call of a student function by a check
    memory: int = 2 * 1024**3  # address space
    output: int = 64 * 1024**2  # bytes the grader reads from the sandbox, in total
    file_size: int = 64 * 1024**2  # largest file, and size of each private tmpfs
    nproc: int = 64  # processes and threads (cgroup pids.max; RLIMIT_NPROC)
    nofile: int = 64
    cpus: float = 1.0  # CPU share (cgroup quota); the sandbox is also pinned to one CPU

    def runner_limits(self) -> dict[str, int]:
        return {
            "cpu": int(self.timeout) + 5,
            "as": self.memory,
            "nproc": self.nproc,
            "fsize": self.file_size,
            "nofile": self.nofile,
            "core": 0,
        }


def bwrap_path() -> str | None:
    """The ``bwrap`` executable, or None when bubblewrap is not installed (or not Linux)."""
    if sys.platform != "linux":
        return None
    return shutil.which("bwrap")


def bwrap_works() -> bool:
    """Whether a trivial sandbox starts here (bubblewrap installed and user namespaces allowed)."""
    path = bwrap_path()
    if path is None:
        return False
    probe = subprocess.run(
        [path, *_bwrap_args(Limits()), "--", PYTHON, "-I", "-c", "pass"],
        capture_output=True, timeout=30, check=False,
    )
    return probe.returncode == 0


# ------------------------------------------------------------------------------------------------------------
# seccomp: no new processes
# ------------------------------------------------------------------------------------------------------------
_ARCH = {  # audit arch, clone, fork, vfork, clone3
    "x86_64": (0xC000003E, 56, 57, 58, 435),
    "aarch64": (0xC00000B7, 220, None, None, 435),
}
# refused outright: ptrace, process_vm_readv/writev, kcmp, pidfd_getfd, sched_setaffinity (the CPU a sandbox is
# pinned to stays its own), setpriority, perf_event_open, unshare, setns, mount, keyctl, bpf, userfaultfd
_DENIED = {
    "x86_64": (101, 310, 311, 312, 438, 203, 141, 298, 272, 308, 165, 250, 321, 323),
    "aarch64": (117, 270, 271, 272, 438, 122, 140, 241, 97, 268, 40, 219, 280, 282),
}
_CLONE_THREAD = 0x00010000


def seccomp_program() -> bytes | None:
    """A classic-BPF seccomp filter (as ``bwrap --seccomp`` expects) that refuses process creation."""
    spec = _ARCH.get(platform.machine())
    if spec is None:
        return None
    arch, clone, fork, vfork, clone3 = spec
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    ins: list[tuple[int, int, int, int]] = []

    def add(code: int, jt: int, jf: int, k: int) -> None:
        ins.append((code, jt, jf, k))

    add(ld, 0, 0, 4)  # arch
    add(jeq, 1, 0, arch)
    add(ret, 0, 0, eperm)  # a foreign ABI: refuse everything
    add(ld, 0, 0, 0)  # syscall number
    add(jge, 0, 1, 0x40000000)  # x32 syscalls
    add(ret, 0, 0, eperm)
    add(jeq, 0, 1, clone3)
    add(ret, 0, 0, enosys)  # libc falls back to clone, whose flags can be checked
    for nr in (fork, vfork, *_DENIED.get(platform.machine(), ())):
        if nr is not None:
            add(jeq, 0, 1, nr)
            add(ret, 0, 0, eperm)
    add(jeq, 0, 3, clone)
    add(ld, 0, 0, 16)  # clone flags (low 32 bits of args[0])
    add(jset, 1, 0, _CLONE_THREAD)
    add(ret, 0, 0, eperm)
    add(ret, 0, 0, allow)
    return b"".join(struct.pack("=HBBI", *i) for i in ins)


# ------------------------------------------------------------------------------------------------------------
# command line
# ------------------------------------------------------------------------------------------------------------
def _python_roots() -> list[str]:
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix}
    roots.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    return sorted(r for r in roots if not r.startswith("/usr"))


def site_paths() -> list[str]:
    """The folders of installed packages on this interpreter's path (the runner starts with ``-S`` and adds
    exactly these: no ``.pth`` file of the virtual environment runs in the sandbox)."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def _bwrap_args(limits: Limits) -> list[str]:
    args = ["--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--clearenv", "--as-pid-1"]
    if _bwrap_version() >= (0, 8):
        args.append("--disable-userns")
    args += ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "lib", "lib32", "lib64", "sbin"):
        path = Path("/") / top
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    size = str(limits.file_size)
    # /dev: the devices bwrap provides (null, zero, random …) on a read-only tmpfs; /dev/shm a small tmpfs
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(DEV_SHM_BYTES), "--tmpfs", "/dev/shm",
             "--remount-ro", "/dev",
             "--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", HOME, "--chdir", HOME]
    # after the private /tmp: a Python or virtual environment that lives under /tmp (a CI checkout) stays visible
    for root in _python_roots():
        args += ["--ro-bind", root, root]
    env = {"PATH": "/usr/bin:/bin", "HOME": HOME, "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg", "TMPDIR": "/tmp"}
    for k, v in env.items():
        args += ["--setenv", k, v]
    for name in ("runner.py", "protocol.py"):
        args += ["--ro-bind", str(HERE / name), f"{SANDBOX_DIR}/{name}"]
    args += ["--remount-ro", "/"]  # the sandbox's own root stays read-only; only /tmp and the home are writable
    return args


_VERSION: tuple[int, ...] | None = None


def _bwrap_version() -> tuple[int, ...]:
    global _VERSION
    if _VERSION is None:
        path = bwrap_path()
        try:
            out = subprocess.run([path or "bwrap", "--version"], capture_output=True, text=True, check=False,
                                 timeout=10).stdout
            _VERSION = tuple(int(p) for p in out.split()[-1].split(".")[:2])
        except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
            _VERSION = (0, 0)
    return _VERSION


# ------------------------------------------------------------------------------------------------------------
# limits that hold for root too: cgroups, a CPU of its own, a uid that is not 0
# ------------------------------------------------------------------------------------------------------------
CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PREFIX = "clusterlab-grade-"
_LOCK = threading.Lock()
_LIVE: set[Sandbox] = set()
_COUNTER = itertools.count()
_CPU_USE: dict[int, int] = {}


def _own_cgroups() -> dict[str, str]:
    """controller (or "" for cgroup v2) → this process's cgroup path."""
    out = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                out[c] = path
    except (OSError, ValueError):
        pass
    return out


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


@dataclass
class Cgroup:
    """The cgroup directories of one sandbox (v1: one per controller; v2: one) and what they limit."""

    dirs: list[Path]
    limits: list[str]

    @property
    def procs(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    @property
    def tasks(self) -> list[str]:
        """The files listing every thread (v1 ``tasks``, v2 ``cgroup.threads``)."""
        names = ("tasks", "cgroup.threads")
        return [str(d / n) for d in self.dirs for n in names if (d / n).is_file()]

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # processes still exiting
                    time.sleep(0.01)

    def kill_members(self) -> None:
        """SIGKILL any process left in the cgroup (none should outlive bwrap)."""
        for procs in self.procs:
            try:
                for pid in Path(procs).read_text().split():
                    os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def try_remove(self) -> bool:
        """Remove the directories that are empty now; whether all are gone."""
        left = []
        for d in self.dirs:
            try:
                d.rmdir()
            except FileNotFoundError:
                pass
            except OSError:  # processes still exiting
                left.append(d)
        self.dirs = left
        return not left


@dataclass
class _Remains:
    """What is left of a killed sandbox: its process to reap, its cgroup to remove."""

    proc: subprocess.Popen[bytes] | None
    cgroup: Cgroup | None
    tries: int = 0

    def done(self) -> bool:
        if self.proc is not None:
            if self.proc.poll() is None:
                return False
            self.proc = None
            if self.cgroup is not None:
                self.cgroup.kill_members()
        self.tries += 1
        return self.cgroup is None or self.cgroup.try_remove() or self.tries > 500  # then: the next run's job


_PENDING: list[_Remains] = []
_REAPER: list[threading.Thread] = []


def _leave(remains: _Remains) -> None:
    """Finish ``remains`` now if it takes no waiting, else in a background thread (a killed process still
    exiting, on a loaded machine, need not hold up the next submission)."""
    if remains.done():
        return
    with _LOCK:
        _PENDING.append(remains)
        if not _REAPER:
            _REAPER.append(threading.Thread(target=_reap, name="sandbox-reaper", daemon=True))
            _REAPER[0].start()


def _reap() -> None:
    while True:
        with _LOCK:
            pending = list(_PENDING)
            if not pending:
                _REAPER.clear()
                return
        for remains in pending:
            if remains.done():
                with _LOCK:
                    _PENDING.remove(remains)
        time.sleep(0.02)


def flush_cgroups(timeout: float = 10.0) -> None:
    """Wait until killed sandboxes are reaped and their cgroups removed (at most ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with _LOCK:
            if not _PENDING:
                return
        time.sleep(0.02)


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _remove_stale(parent: Path) -> None:
    """cgroups left by a grader that was killed (its pid is gone)."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for d in entries:
        if not d.name.startswith(CGROUP_PREFIX):
            continue
        try:
            os.kill(int(d.name[len(CGROUP_PREFIX):].split("-")[0]), 0)
        except ProcessLookupError:
            try:
                d.rmdir()
            except OSError:
                pass
        except (ValueError, PermissionError, OSError):
            continue


def make_cgroup(limits: Limits) -> Cgroup | None:
    """A fresh cgroup with pids, memory and CPU limits where this process may create one; None otherwise."""
    if sys.platform != "linux" or not CGROUP_ROOT.is_dir():
        return None
    name = f"{CGROUP_PREFIX}{os.getpid()}-{next(_COUNTER)}"
    own = _own_cgroups()
    cpu_quota = int(limits.cpus * 100_000)
    # cgroup v2 (a unified hierarchy at /sys/fs/cgroup, or /sys/fs/cgroup/unified in the hybrid layout)
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if "" not in own or not (mount / "cgroup.controllers").is_file():
            continue
        parent = mount / own[""].lstrip("/")
        wanted = {"pids", "memory", "cpu"}
        try:
            enabled = set((parent / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if not wanted & enabled or not _writable_dir(parent):
            continue
        _remove_stale(parent)
        d = parent / name
        try:
            d.mkdir()
        except OSError:
            continue
        done = []
        if "pids" in enabled and _write(d / "pids.max", str(limits.nproc)):
            done.append("pids")
        if "memory" in enabled and _write(d / "memory.max", str(limits.memory)):
            _write(d / "memory.swap.max", "0")
            done.append("memory")
        if "cpu" in enabled and _write(d / "cpu.max", f"{cpu_quota} 100000"):
            done.append("cpu")
        if "pids" in done:
            return Cgroup([d], done)
        Cgroup([d], []).remove()
    # cgroup v1: one hierarchy per controller
    dirs, done = [], []
    for controller in ("pids", "memory", "cpu"):
        mount = CGROUP_ROOT / controller
        if controller not in own or not (mount / "cgroup.procs").is_file():
            continue
        parent = mount / own[controller].lstrip("/")
        if not _writable_dir(parent):
            continue
        _remove_stale(parent)
        d = parent / name
        try:
            d.mkdir()
        except OSError:
            continue
        ok = False
        if controller == "pids":
            ok = _write(d / "pids.max", str(limits.nproc))
        elif controller == "memory":
            ok = _write(d / "memory.limit_in_bytes", str(limits.memory))
            _write(d / "memory.memsw.limit_in_bytes", str(limits.memory))
        else:
            ok = _write(d / "cpu.cfs_period_us", "100000") and _write(d / "cpu.cfs_quota_us", str(cpu_quota))
        dirs.append(d)
        if ok:
            done.append(controller)
    if "pids" in done:
        return Cgroup(dirs, done)
    Cgroup(dirs, []).remove()
    return None


def _pick_cpu() -> int | None:
    """The least used CPU of this process's set (each sandbox gets one; a hog then slows only its own)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if len(cpus) < 2:
        return None
    with _LOCK:
        cpu = min(cpus, key=lambda c: (_CPU_USE.get(c, 0), c))
        _CPU_USE[cpu] = _CPU_USE.get(cpu, 0) + 1
    return cpu


def _release_cpu(cpu: int | None) -> None:
    if cpu is None:
        return
    with _LOCK:
        _CPU_USE[cpu] = max(0, _CPU_USE.get(cpu, 0) - 1)


def _world_reachable(path: str) -> bool:
    """Whether every folder down to ``path`` can be entered by any user (so an unprivileged uid can run it)."""
    p = Path(path).resolve()
    for part in [*reversed(p.parents), p]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if part.is_dir() and not mode & 0o001:
            return False
    return True


def drop_uid() -> int | None:
    """When running as root without a pids cgroup, the uid to start bwrap as (RLIMIT_NPROC does not bind uid 0):
    65534 if the interpreter and the runner are reachable by it, else None."""
    if os.geteuid() != 0:
        return None
    if all(_world_reachable(p) for p in (PYTHON, str(HERE / "runner.py"), *_python_roots())):
        return 65534
    return None


_STOPPING = threading.Event()


def kill_all() -> None:
    """Kill every running sandbox of this process and refuse new ones until :func:`resume` (on an interrupt: the
    workers return at once and start nothing)."""
    _STOPPING.set()
    with _LOCK:
        live = list(_LIVE)
    for box in live:
        box.dead = box.dead or "评分被中断"
        box.kill()


def resume() -> None:
    """Allow sandboxes again after :func:`kill_all`."""
    _STOPPING.clear()


# ------------------------------------------------------------------------------------------------------------
# a running sandbox
# ------------------------------------------------------------------------------------------------------------
@dataclass
class Sandbox:
    """One runner process (sandboxed unless ``unsafe``) and its JSON-lines channel."""

    limits: Limits = field(default_factory=Limits)
    unsafe: bool = False
    seccomp: bool = True  # tests switch it off to show that the timeout alone still kills a process tree
    deadline: float = 0.0
    read_bytes: int = 0
    dead: str = ""
    _proc: subprocess.Popen[bytes] | None = None
    _buf: bytearray = field(default_factory=bytearray)
    _cgroup: Cgroup | None = None
    _cpu: int | None = None
    standby: bool = False  # a spare: its CPU is chosen when it is taken, among the sandboxes then at work
    isolation: list[str] = field(default_factory=list)  # what limits hold for this sandbox

    __hash__ = object.__hash__

    def start(self) -> None:
        if _STOPPING.is_set():
            self.dead = "评分被中断"
            raise SandboxError(self.dead)
        self.deadline = time.monotonic() + self.limits.timeout
        limits = json.dumps({**self.limits.runner_limits(), "path": site_paths()})
        pass_fds: tuple[int, ...] = ()
        if self.unsafe:
            cmd = [PYTHON, "-I", "-S", str(HERE / "runner.py"), limits]
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0", "LANG": "C.UTF-8",
                   "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        else:
            path = bwrap_path()
            if path is None:
                raise SandboxError("未安装 bubblewrap（bwrap）")
            cmd = [path, *_bwrap_args(self.limits)]
            program = seccomp_program() if self.seccomp else None
            if program is not None:
                r, w = os.pipe()
                os.write(w, program)  # a few hundred bytes: fits in the pipe buffer
                os.close(w)
                pass_fds = (r,)
                cmd += ["--seccomp", str(r)]
            cmd += ["--", PYTHON, "-I", "-S", f"{SANDBOX_DIR}/runner.py", limits]
            env = {"PATH": "/usr/bin:/bin"}
        user: int | None = None
        if not self.unsafe:
            self._cgroup = make_cgroup(self.limits)
            # one CPU of its own (besides the quota): a CPU hog's threads then compete only with what runs on that
            # CPU, not with every classmate on every CPU. A spare is placed when it is taken (see activate).
            if not (self.standby and self._cgroup is not None):
                self._cpu = _pick_cpu()
                if self._cpu is not None:
                    self.isolation.append(f"cpu{self._cpu}")
            if self._cgroup is not None:
                self.isolation += [f"cgroup:{c}" for c in self._cgroup.limits]
                # a shell joins the cgroups, then becomes bwrap: nothing of the sandbox ever runs outside them
                env["CGROUP_PROCS"] = " ".join(self._cgroup.procs)
                cmd = ["/bin/sh", "-c", 'for f in $CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; exec "$@"',
                       "sh", *cmd]
            else:
                user = drop_uid()
                if user is not None:
                    self.isolation.append(f"uid{user}")
        cpu = self._cpu

        def pin() -> None:  # runs in the child before exec: no locks, no allocation worth the name
            if cpu is not None:
                os.sched_setaffinity(0, (cpu,))

        try:
            with _LOCK:
                self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, start_new_session=True,
                                              pass_fds=pass_fds, env=env, close_fds=True,
                                              preexec_fn=pin if cpu is not None else None,
                                              user=user, group=user, extra_groups=[] if user is not None else None)
                _LIVE.add(self)
        except BaseException:
            self.kill()
            raise
        finally:
            for fd in pass_fds:
                os.close(fd)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)

    # -- low level ---------------------------------------------------------------------------------------
    def _fail(self, reason: str) -> SandboxError:
        self.kill()
        self.dead = self.dead or reason
        return SandboxError(self.dead)

    def _write(self, data: bytes, deadline: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        first = True  # a request usually fits in the pipe at once: try before waiting
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail("超时")
            if not first:
                _, writable, _ = select.select([], [fd], [], left)
                if not writable:
                    continue
            first = False
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                continue
            except OSError:
                raise self._fail("沙箱中的程序提前退出") from None
            view = view[n:]

    def _read_line(self, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[: nl + 1])
                del self._buf[: nl + 1]
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail("超时")
            readable, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not readable:
                continue
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._fail("沙箱中的程序提前退出")
            self.read_bytes += len(chunk)
            if self.read_bytes > self.limits.output:
                raise self._fail(f"输出超过上限 {self.limits.output // 2**20} MB")
            self._buf += chunk

    # -- protocol ----------------------------------------------------------------------------------------
    def request(self, message: dict[str, Any], seconds: float | None = None) -> dict[str, Any]:
        """Send one request and wait for its answer (at most ``seconds``, never past the overall deadline)."""
        if self.dead:
            raise SandboxError(self.dead)
        deadline = self.deadline if seconds is None else min(self.deadline, time.monotonic() + seconds)
        self._write(protocol.dumps(message), deadline)
        line = self._read_line(deadline)
        try:
            return protocol.loads(line)
        except (ValueError, RecursionError):
            raise self._fail("沙箱返回了无法解析的数据") from None

    def run_notebook(self, cells: list[str], meanwhile: Callable[[], None] | None = None) -> dict[str, Any]:
        """Execute the notebook's code cells; return the runner's ``ready`` report. ``meanwhile`` runs here
        while the sandbox executes them (the grader starts the next submission's sandbox then)."""
        if self.dead:
            raise SandboxError(self.dead)
        self._write(protocol.dumps({"cells": cells, "cell_timeout": self.limits.cell_timeout}), self.deadline)
        if meanwhile is not None:
            meanwhile()
        line = self._read_line(self.deadline)
        try:
            answer = protocol.loads(line)
        except (ValueError, RecursionError):
            raise self._fail("沙箱返回了无法解析的数据") from None
        if answer.get("ready") is not True:
            raise self._fail("沙箱返回了无法解析的数据")
        return answer

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self.dead

    def activate(self) -> None:
        """A spare goes to work: its deadline counts from now, and it moves to the least used CPU (every thread of
        its cgroup; it is idle, waiting for its cells, so no thread is being created meanwhile)."""
        self.deadline = time.monotonic() + self.limits.timeout
        if not self.standby:
            return
        self.standby = False
        if self._cgroup is None or self._cpu is not None:
            return
        cpu = _pick_cpu()
        if cpu is None:
            return
        self._cpu = cpu
        for tasks in self._cgroup.tasks:
            try:
                tids = Path(tasks).read_text().split()
            except OSError:
                continue
            for tid in tids:
                try:
                    os.sched_setaffinity(int(tid), (cpu,))
                except (OSError, ValueError):
                    pass
            break
        self.isolation.append(f"cpu{cpu}")

    def close(self) -> None:
        """End the sandbox (it holds nothing the grader still needs): SIGKILL now, reaped in the background."""
        self.kill(wait=False)

    def kill(self, wait: bool = True) -> None:
        """SIGKILL the sandbox's process group; with ``wait``, also reap it and remove its cgroup before
        returning (else a background thread does, see :func:`flush_cgroups`)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.kill()
            except ProcessLookupError:
                pass
            for stream in (proc.stdin, proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        cgroup, self._cgroup = self._cgroup, None
        _release_cpu(self._cpu)
        self._cpu = None
        with _LOCK:
            _LIVE.discard(self)
        remains = _Remains(proc, cgroup)
        if wait and proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
                pass
        _leave(remains)

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Spares:
    """Sandboxes started one submission ahead, so that the next submission's runner has already started Python and
    imported numpy when its turn comes (that start is most of a sandbox's own time). Each sandbox still serves
    exactly one submission: a spare is a fresh, unused sandbox, with the same limits, waiting for its cells.

    ``keep`` spares at most (one per worker), and never more than the ``total`` submissions still to come."""

    def __init__(self, limits: Limits, *, unsafe: bool = False, keep: int = 1, total: int | None = None) -> None:
        self.limits, self.unsafe, self.keep = limits, unsafe, max(0, keep)
        self._left = total
        self._ready: list[Sandbox] = []
        self._lock = threading.Lock()

    def take(self, limits: Limits, unsafe: bool) -> Sandbox:
        """A started sandbox for one submission: a spare if one fits, else a new one. Its deadline counts from
        now."""
        box: Sandbox | None = None
        stale: list[Sandbox] = []
        with self._lock:
            if self._left is not None:
                self._left -= 1
            if limits == self.limits and unsafe == self.unsafe:
                while self._ready and box is None:
                    candidate = self._ready.pop(0)
                    if candidate.alive():
                        box = candidate
                    else:
                        stale.append(candidate)
        for old in stale:
            old.kill()
        if box is None:
            box = Sandbox(limits, unsafe=unsafe)
            box.start()
        else:
            box.activate()
        return box

    def refill(self) -> None:
        """Start a spare unless there are enough for the submissions still to come."""
        with self._lock:
            if len(self._ready) >= self.keep or (self._left is not None and len(self._ready) >= self._left):
                return
        if _STOPPING.is_set():
            return
        box = Sandbox(self.limits, unsafe=self.unsafe, standby=True)
        try:
            box.start()
        except (SandboxError, OSError):
            box.kill()
            return
        with self._lock:
            self._ready.append(box)

    def close(self) -> None:
        with self._lock:
            boxes, self._ready = self._ready, []
        for box in boxes:
            box.kill()
