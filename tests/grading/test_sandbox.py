"""What code inside the sandbox can and cannot do (guarantee 2), checked from inside: each probe runs as a
notebook cell and the test reads back only the data it produced, exactly as the judge does."""

from __future__ import annotations

import os
import socket
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from clusterlab_grade import protocol

from .helpers import ROOT, needs_bwrap, sandbox

pytestmark = needs_bwrap


def probe(code: str, names: list[str], **limits: Any) -> dict[str, Any]:
    box = sandbox.Sandbox(sandbox.Limits(**{"timeout": 30, "cell_timeout": 20, **limits}))
    with box:
        ready = box.run_notebook([code])
        assert ready["errors"] == [], ready["errors"]
        return {n: protocol.decode(box.request({"op": "get", "name": n})["v"]) for n in names}


def test_host_files_are_invisible(tmp_path: Path) -> None:
    secret = tmp_path / "exercise.json"
    secret.write_text("【隐藏测试】", encoding="utf-8")
    paths = [str(ROOT / "src" / "clusterlab"), str(ROOT / "exercises"), str(ROOT / "tools" / "gradebook.py"),
             str(secret), str(tmp_path), "/root/.ssh", "/etc/passwd", str(Path.home() / ".bash_history")]
    home = str(Path.home())
    code = f"import os\nseen = [p for p in {paths!r} if os.path.exists(p)]\n"
    code += f"home = sorted(os.listdir({home!r})) if os.path.isdir({home!r}) else []"
    got = probe(code, ["seen", "home"])
    assert got["seen"] == []
    # the home folder shows at most the path down to the Python installation, which is bound read-only
    roots = [r for r in sandbox._python_roots() if r.startswith(home + "/")]
    assert set(got["home"]) <= {r[len(home) + 1 :].split("/")[0] for r in roots}


def test_no_file_holds_a_hidden_test_or_a_key() -> None:
    """Every mount is one the sandbox means to have; outside the system and Python folders (read-only copies
    of the host's, holding no exercise file), no visible file holds a hidden test or a grading package."""
    roots = sandbox._python_roots()
    code = f"""
import os
mounts = sorted({{line.split()[4] for line in open("/proc/self/mountinfo")}})
marker = "【隐藏测试】".encode()
hits, files = [], 0
for root, dirs, names in os.walk("/"):
    if root in ("/proc", "/sys", "/dev", "/usr") or root in {roots!r}:
        dirs[:] = []
        continue
    dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev") or root != "/"]
    for n in names:
        p = os.path.join(root, n)
        files += 1
        try:
            if os.path.getsize(p) < 2_000_000 and (marker in open(p, "rb").read() or n == "exercise.json"):
                hits.append(p)
        except OSError:
            pass
"""
    got = probe(code, ["hits", "files", "mounts"])
    allowed = {"/", "/usr", "/proc", "/dev", "/tmp", sandbox.HOME, f"{sandbox.SANDBOX_DIR}/runner.py",
               f"{sandbox.SANDBOX_DIR}/protocol.py", *roots}
    extra = [m for m in got["mounts"] if m not in allowed and not m.startswith(("/dev/", "/proc/"))]
    assert extra == []
    assert got["files"] >= 2  # it really looked (the runner's two files)
    assert got["hits"] == []


def test_processes_environment_and_identity() -> None:
    code = """
import os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
cmds = [open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace") for p in pids]
env = sorted(os.environ)
uid = os.getuid()
"""
    got = probe(code, ["pids", "cmds", "env", "uid"])
    assert len(got["pids"]) <= 3  # bwrap's init and the runner: nothing of the host
    assert not any("gradebook" in c or ".zip" in c or "pytest" in c for c in got["cmds"])
    assert set(got["env"]) <= {"PATH", "HOME", "LANG", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PWD",
                               "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MPLBACKEND", "TMPDIR",
                               "LC_CTYPE"}
    assert got["uid"] == 65534


def test_no_network() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    code = f"""
import socket
results = []
for host in ("127.0.0.1", "1.1.1.1"):
    try:
        socket.create_connection((host, {port}), timeout=2).close()
        results.append("connected")
    except OSError as e:
        results.append(type(e).__name__)
"""
    got = probe(code, ["results"])
    server.close()
    assert "connected" not in got["results"]


def test_read_only_system_private_tmp() -> None:
    marker = f"sandbox-probe-{os.getpid()}"
    code = f"""
import os
errors = []
for path in ("/usr/sandbox-write", "{ROOT}/.venv/sandbox-write", "/sandbox-write"):
    try:
        open(path, "w").write("x")
        errors.append("written")
    except OSError as e:
        errors.append(type(e).__name__)
open("/tmp/{marker}", "w").write("x")
tmp_ok = os.path.exists("/tmp/{marker}")
"""
    got = probe(code, ["errors", "tmp_ok"])
    assert "written" not in got["errors"] and got["tmp_ok"] is True
    assert not Path(f"/tmp/{marker}").exists()  # the sandbox's /tmp is its own


def test_limits_and_no_new_processes() -> None:
    code = """
import os, resource, subprocess
limits = {k: resource.getrlimit(getattr(resource, k))[0] for k in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC",
                                                                   "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")}
outcomes = []
for attempt in (os.fork, lambda: subprocess.Popen(["sleep", "100"])):
    try:
        pid = attempt()
        if pid == 0:
            os._exit(0)
        outcomes.append("started")
    except OSError as e:
        outcomes.append(type(e).__name__)
try:
    big = bytearray(8 * 1024**3)
    memory = "allocated"
except MemoryError:
    memory = "MemoryError"
try:
    import clusterlab
    key = "imported"
except ImportError:
    key = "ImportError"
"""
    got = probe(code, ["limits", "outcomes", "memory", "key"])
    assert got["outcomes"] == ["PermissionError", "PermissionError"]
    assert got["memory"] == "MemoryError" and got["key"] == "ImportError"
    assert got["limits"]["RLIMIT_CORE"] == 0 and 0 < got["limits"]["RLIMIT_CPU"] < 10_000
    assert 0 < got["limits"]["RLIMIT_AS"] <= 4 * 1024**3 and 0 < got["limits"]["RLIMIT_NPROC"] <= 1024


def test_timeout_kills_everything_even_a_pipe_holder() -> None:
    """Without the seccomp filter, a background process can be started; it keeps the output pipe open and
    ignores signals. At the deadline the whole namespace is killed and the grader does not wait for it."""
    tag = f"holder-{os.getpid()}-{time.time_ns()}"
    code = f"""
import subprocess, signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen(["sh", "-c", "trap '' TERM HUP; exec -a {tag} sleep 1000"], start_new_session=True)
while True:
    try:
        pass
    except BaseException:
        pass
"""
    box = sandbox.Sandbox(sandbox.Limits(timeout=4, cell_timeout=100), seccomp=False)
    start = time.monotonic()
    with pytest.raises(sandbox.SandboxError):
        with box:
            box.run_notebook([code])
    assert time.monotonic() - start < 10
    time.sleep(0.5)
    alive = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and tag.encode() in (p / "cmdline").read_bytes():
                alive.append(p.name)
        except OSError:
            pass
    assert alive == []


def test_thread_limit_holds_whoever_runs_the_grader() -> None:
    """64 processes and threads at most, also when the grader runs as root (a pids cgroup, or an unprivileged
    uid when none can be made): a thread bomb stops at the limit."""
    code = """
import threading, time
started = 0
stop = threading.Event()
try:
    for _ in range(1500):
        threading.Thread(target=stop.wait, args=(5,), daemon=True).start()
        started += 1
except RuntimeError:
    pass
stop.set()
"""
    got = probe(code, ["started"])
    assert 0 < got["started"] < sandbox.Limits().nproc, got


def test_dev_shm_and_tmp_are_bounded() -> None:
    code = """
import os
def fill(path, mb):
    try:
        with open(path, "wb") as f:
            for _ in range(mb):
                f.write(b"x" * 2**20)
                f.flush()
        return "written"
    except OSError as e:
        return type(e).__name__
dev_new = fill("/dev/hog", 1)
dev_shm = fill("/dev/shm/hog", 600)
tmp = fill("/tmp/hog", 600)
null_ok = fill("/dev/null", 2) == "written"
"""
    got = probe(code, ["dev_new", "dev_shm", "tmp", "null_ok"])
    assert got["dev_new"] != "written" and got["dev_shm"] != "written" and got["tmp"] != "written", got
    assert got["null_ok"] is True


def test_no_ptrace_and_a_cpu_of_its_own() -> None:
    """The runner is pid 1 (no bwrap helper next to it to attach to); ptrace, process_vm_* and changing the CPU
    affinity are refused; the sandbox runs on one CPU, so a hog slows only itself."""
    code = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pid = os.getpid()
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != pid]
results = {}
for name, args in (("attach", (16, 1, 0, 0)), ("traceme", (0, 0, 0, 0))):
    rc = libc.ptrace(*args)
    results[name] = (rc, ctypes.get_errno())
cpus = sorted(os.sched_getaffinity(0))
try:
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    widen = "allowed"
except OSError as e:
    widen = type(e).__name__
"""
    box = sandbox.Sandbox(sandbox.Limits(timeout=30, cell_timeout=20))
    with box:
        assert box.run_notebook([code])["errors"] == []
        got = {n: protocol.decode(box.request({"op": "get", "name": n})["v"])
               for n in ["pid", "others", "results", "cpus", "widen"]}
    assert got["pid"] == 1 and got["others"] == []
    assert all(rc == -1 and err == 1 for rc, err in got["results"].values()), got["results"]  # EPERM
    assert got["widen"] == "PermissionError"
    if len(os.sched_getaffinity(0)) > 1:  # a CPU quota in a cgroup, or else pinned to one CPU
        assert "cgroup:cpu" in box.isolation or len(got["cpus"]) == 1, box.isolation


def test_cgroup_is_removed_after_the_sandbox() -> None:
    box = sandbox.Sandbox(sandbox.Limits(timeout=20, cell_timeout=10))
    with box:
        box.run_notebook(["x = 1"])
        dirs = list(box._cgroup.dirs) if box._cgroup is not None else []
        if dirs:
            assert all(d.is_dir() for d in dirs)
            assert any(i.startswith("cgroup:pids") for i in box.isolation)
    sandbox.flush_cgroups()  # a cgroup whose processes are still exiting is removed in the background
    assert all(not d.exists() for d in dirs)


def _cgroup_kind(limits: sandbox.Limits) -> tuple[str, str]:
    """("v2" | "v1" | "", why) — which cgroup version a sandbox gets here, or why it gets none."""
    cg = sandbox.make_cgroup(limits)
    if cg is None:
        return "", "这里不能为沙箱建 cgroup（没有可写的 pids 控制器）"
    try:
        return ("v2" if (cg.dirs[0] / "cgroup.controllers").is_file() else "v1"), ""
    finally:
        cg.remove()


def _v2_missing() -> str:
    for mount in (sandbox.CGROUP_ROOT, sandbox.CGROUP_ROOT / "unified"):
        if (mount / "cgroup.controllers").is_file():
            own = (mount / "cgroup.subtree_control").read_text().split()
            return (f"{mount} 是 cgroup v2，但没有下放 pids/memory 控制器（subtree_control: {own or '空'}），"
                    "沙箱用 cgroup v1")
    return "本机没有挂载 cgroup v2"


FILL_TMPFS = """
def fill(path, mb):
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(b"x" * 2**20)
            f.flush()
fill("/tmp/a", 60)
fill("b", 60)
filled = True
"""


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_cgroup_limits_are_applied(version: str) -> None:
    """The per-sandbox cgroup holds the sandbox's processes with the limits of :class:`Limits`: memory (v2
    ``memory.max``, v1 ``memory.limit_in_bytes``), ``pids.max`` and the CPU quota. The memory limit is shown to
    bite where ``RLIMIT_AS`` cannot: files in the private tmpfs count towards the cgroup, not the address space,
    so 120 MB of files in a sandbox limited to 128 MB end it, while the same files fit under the default limit."""
    limits = sandbox.Limits(timeout=30, cell_timeout=20, memory=128 * 2**20)
    kind, why = _cgroup_kind(limits)
    if kind != version:
        pytest.skip(why or (_v2_missing() if version == "v2" else f"沙箱用的是 cgroup {kind}"))
    box = sandbox.Sandbox(limits)
    with box:
        box.run_notebook(["x = 1"])
        assert box._cgroup is not None
        files = {}
        for d in box._cgroup.dirs:
            for name in ("memory.max", "memory.limit_in_bytes", "pids.max", "cpu.max", "cpu.cfs_quota_us"):
                if (d / name).is_file():
                    files[name] = (d / name).read_text().strip()
            assert (d / "cgroup.procs").read_text().split(), f"{d} 里没有沙箱的进程"
        memory = files.get("memory.max") or files.get("memory.limit_in_bytes")
        assert memory == str(128 * 2**20), files
        assert files["pids.max"] == str(limits.nproc), files
        quota = files.get("cpu.max", "").split()[:1] or [files.get("cpu.cfs_quota_us")]
        assert quota == [str(int(limits.cpus * 100_000))], files
        assert {"cgroup:pids", "cgroup:memory", "cgroup:cpu"} <= set(box.isolation), box.isolation
    small = sandbox.Sandbox(limits)
    with small:
        try:
            ready = small.run_notebook([FILL_TMPFS])
            errors = ready["errors"]
        except sandbox.SandboxError:  # the cgroup's OOM killer ended it
            errors = ["killed"]
    assert errors, "120 MB in tmpfs fitted in a 128 MB cgroup"
    assert probe(FILL_TMPFS, ["filled"]) == {"filled": True}  # the same files under the default 2 GB


def test_spares_are_fresh_sandboxes_placed_when_taken() -> None:
    """A spare is started ahead (Python and numpy already loaded) but serves one submission only: two taken
    spares are two processes with empty namespaces, each on a CPU of its own once taken, its deadline counting
    from the moment it is taken."""
    limits = sandbox.Limits(timeout=30, cell_timeout=10)
    spares = sandbox.Spares(limits, keep=2, total=4)
    try:
        spares.refill()
        spares.refill()
        time.sleep(1.0)  # both spares are waiting for their cells by now
        first, second = spares.take(limits, False), spares.take(limits, False)
        assert time.monotonic() + limits.timeout - first.deadline < 1.0
        code = ("import os\nseen = sorted(k for k in globals() if not k.startswith('_'))\n"
                "cpus = sorted(os.sched_getaffinity(0))")
        got = []
        for box in (first, second):
            box.run_notebook([code])
            got.append({n: protocol.decode(box.request({"op": "get", "name": n})["v"]) for n in ("seen", "cpus")})
        assert got[0]["seen"] == got[1]["seen"] == ["os"]
        if len(os.sched_getaffinity(0)) > 1:
            assert len(got[0]["cpus"]) == len(got[1]["cpus"]) == 1 and got[0]["cpus"] != got[1]["cpus"], got
        for box in (first, second):
            box.close()
    finally:
        spares.close()


def test_a_cpu_hog_hardly_delays_classmates(tmp_path: Path) -> None:
    """A submission spinning 60 threads for its whole cell timeout, next to classmates being graded (as with
    ``-j 2``): calm and hog blocks alternate, so the other work of a shared machine falls on both. The target is
    at most 2× (``make bench`` asserts it over more rounds); this test allows 3× so that a loaded 2-core machine
    does not make it flaky, which still catches a hog that runs on every CPU (it used to cost 8×)."""
    from .helpers import SOURCE, build_exercises, hog_delay, read

    built = build_exercises.build_set(SOURCE / "ring-allreduce", tmp_path, check=False)
    calm, hog = hog_delay(built.autograder_zip, read(built.autograder_notebook), rounds=2, block=3)
    ratio = statistics.median(hog) / statistics.median(calm)
    assert ratio <= 3.0, (calm, hog)
