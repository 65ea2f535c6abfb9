"""Runs one student notebook's code inside the sandbox and answers the judge's questions with data only.

Started by ``sandbox.py`` as ``python -I -S runner.py CONFIG_JSON`` with the JSON-lines channel on stdin/stdout
(``-S``: no ``site`` processing; the configuration names the folders of installed packages, and ``exit``, ``quit``
and ``help`` are set up as ``site`` would). It knows nothing about answers or checks. Steps:

1. move the channel to private descriptors and point stdin/stdout/stderr at ``/dev/null`` (printing is free but
   goes nowhere), import numpy (every set uses it), then set the resource limits (CPU seconds, address space,
   processes, file size, open files, no core dumps);
2. read ``{"cells": [...], "cell_timeout": s}``, execute the code cells in order with plain ``exec`` in one fresh
   namespace (lines starting with ``%`` or ``!`` are skipped and reported), each under an alarm; errors are
   recorded per cell and execution goes on;
3. answer requests until ``exit``: ``get`` a global name, ``call`` a handle with arguments, ``attr`` / ``item``
   of a handle, ``setattr``. Every answer is data (``protocol.encode``) or a handle to an object that stays here.
   Arguments the judge passes by value that the call changed are sent back (``mut``), so "does not modify its
   inputs" can be checked outside.

Whatever the student's code does to this process, all it can change is the data sent back; scores are computed
by the judge outside the sandbox.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import reprlib
import resource
import signal
import sys
from typing import Any

try:  # imported as part of the package (tests, type checking)
    from . import protocol
except ImportError:  # run as a script inside the sandbox, next to a read-only copy of protocol.py
    import importlib.util

    _spec = importlib.util.spec_from_file_location("protocol", os.path.join(os.path.dirname(__file__), "protocol.py"))
    assert _spec is not None and _spec.loader is not None
    protocol = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(protocol)

MAGIC_RE = re.compile(r"^\s*[%!]")


class CellTimeout(BaseException):
    """Raised by the alarm; a BaseException so ordinary ``except Exception`` blocks do not swallow it."""


def set_limits(limits: dict[str, int]) -> None:
    table = {
        "cpu": resource.RLIMIT_CPU,
        "as": resource.RLIMIT_AS,
        "nproc": resource.RLIMIT_NPROC,
        "fsize": resource.RLIMIT_FSIZE,
        "nofile": resource.RLIMIT_NOFILE,
        "core": resource.RLIMIT_CORE,
    }
    for key, which in table.items():
        if key in limits:
            value = int(limits[key])
            resource.setrlimit(which, (value, value))


def _on_alarm(signum: int, frame: Any) -> None:
    raise CellTimeout()


def _describe(exc: BaseException, seconds: float) -> dict[str, Any]:
    if isinstance(exc, CellTimeout):
        return {"type": "TimeoutError", "msg": f"运行超过 {seconds:g} s，已中断"}
    if isinstance(exc, SystemExit):
        return {"type": "SystemExit", "msg": "代码调用了 sys.exit()"}
    bases = [c.__name__ for c in type(exc).__mro__[1:] if c.__module__ == "builtins"][:8]
    try:
        msg = str(exc)[:300]
    except BaseException:  # a rigged __str__
        msg = ""
    return {"type": type(exc).__name__[:80], "msg": msg, "bases": bases}


def strip_magics(source: str) -> tuple[str, list[str]]:
    """Replace IPython ``%``/``!`` lines by ``pass`` (keeping indentation); return the skipped lines."""
    out, skipped = [], []
    for line in source.splitlines():
        if MAGIC_RE.match(line):
            skipped.append(line.strip()[:80])
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append(line)
    return "\n".join(out), skipped


_MISSING = object()


class Session:
    def __init__(self, chan_in: Any, chan_out: Any) -> None:
        self.chan_in, self.chan_out = chan_in, chan_out
        self.ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.objects: dict[int, Any] = {}
        self.next_handle = 1
        self.reference: dict[str, Any] | None = None  # namespace of the reference implementations, once sent
        self.saved: dict[str, Any] = {}  # the notebook's own values of the names substituted now

    def register(self, obj: Any) -> int:
        h = self.next_handle
        self.next_handle += 1
        self.objects[h] = obj
        return h

    def send(self, message: dict[str, Any]) -> None:
        self.chan_out.write(protocol.dumps(message))
        self.chan_out.flush()

    def value(self, obj: Any) -> dict[str, Any]:
        """An answer carrying ``obj`` as data; mutable containers also get a handle, so that passing them back
        reaches the very same object here (a checkpoint that shares arrays with the trainer stays shared)."""
        try:
            answer: dict[str, Any] = {"v": protocol.encode(obj, self.register)}
        except protocol.Unencodable as exc:
            return {"error": {"type": "ValueError", "msg": f"结果无法传出：{exc}"}}
        if isinstance(obj, list | dict) or type(obj).__name__ == "ndarray":
            answer["h"] = self.register(obj)
        return answer

    def lookup(self, h: int, kind: str) -> Any:
        return self.objects[h]

    def run_cells(self, cells: list[str], seconds: float) -> None:
        errors, skipped = [], []
        for i, source in enumerate(cells):
            code, magics = strip_magics(source)
            skipped += [{"cell": i, "line": m} for m in magics]
            try:
                compiled = compile(code, f"<单元格 {i + 1}>", "exec")
                signal.setitimer(signal.ITIMER_REAL, seconds)
                try:
                    exec(compiled, self.ns)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as exc:  # the student's code may raise anything; record it and go on
                errors.append({"cell": i, **_describe(exc, seconds)})
        self.send({"ready": True, "errors": errors[:50], "skipped": skipped[:50]})

    def call(self, req: dict[str, Any]) -> dict[str, Any]:
        fn = self.objects[int(req["h"])]
        raw_args = req.get("a", [])
        args = [protocol.decode(a, self.lookup) for a in raw_args]
        kwargs = {str(k): protocol.decode(v, self.lookup) for k, v in req.get("k", {}).items()}
        seconds = float(req.get("t", 30))
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            result = fn(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        answer = self.value(result)
        mutated = {}
        for i, (before, arg) in enumerate(zip(raw_args, args, strict=True)):
            if isinstance(before, dict) and before.get("__t") == "ref":
                continue
            try:
                after = protocol.encode(arg, self.register)
            except protocol.Unencodable:
                continue
            if json.dumps(after) != json.dumps(before):
                mutated[str(i)] = after
        if mutated:
            answer["mut"] = mutated
        return answer

    def get(self, name: str) -> dict[str, Any]:
        if name not in self.ns:
            return {"error": {"type": "NameError", "msg": f"没有定义 {name}"}}
        return self.value(self.ns[name])

    def substitute(self, req: dict[str, Any]) -> dict[str, Any]:
        """Put the reference implementations of ``names`` in place of the notebook's (until ``restore``)."""
        source = req.get("source")
        if isinstance(source, str):
            space: dict[str, Any] = {"__name__": "reference", "__builtins__": builtins}
            signal.setitimer(signal.ITIMER_REAL, float(req.get("t", 30)))
            try:
                exec(compile(source, "<参考实现>", "exec"), space)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            self.reference = space
        if self.reference is None:
            return {"error": {"type": "RuntimeError", "msg": "没有收到参考实现"}}
        self.restore()
        for name in [str(n) for n in req.get("names", [])]:
            if name not in self.reference:
                self.restore()
                return {"error": {"type": "NameError", "msg": f"参考实现中没有 {name}"}}
            self.saved[name] = self.ns.get(name, _MISSING)
            self.ns[name] = self.reference[name]
        return {"v": None}

    def restore(self) -> None:
        for name, old in self.saved.items():
            if old is _MISSING:
                self.ns.pop(name, None)
            else:
                self.ns[name] = old
        self.saved = {}

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req.get("op")
        if op == "get":
            return self.get(str(req["name"]))
        if op == "many":
            return {"many": [self.get(str(n)) for n in req.get("names", [])][:1000]}
        if op == "call":
            return self.call(req)
        if op == "subst":
            return self.substitute(req)
        if op == "restore":
            self.restore()
            return {"v": None}
        obj = self.objects[int(req["h"])]
        if op == "attr":
            return self.value(getattr(obj, str(req["name"])))
        if op == "item":
            return self.value(obj[protocol.decode(req["key"], self.lookup)])
        if op == "repr":
            shown = reprlib.Repr()
            shown.maxstring = shown.maxother = 120
            text = shown.repr(obj)
            return {"v": str(text)[:200]}
        if op == "len":
            return self.value(len(obj))
        if op == "list":
            return self.value(list(obj))
        if op == "setattr":
            setattr(obj, str(req["name"]), protocol.decode(req["value"], self.lookup))
            return {"v": None}
        return {"error": {"type": "ValueError", "msg": f"不认识的请求 {op!r}"}}

    def serve(self) -> None:
        while True:
            line = self.chan_in.readline()
            if not line:
                return
            try:
                req = protocol.loads(line)
            except ValueError:
                return
            if req.get("op") == "exit":
                return
            try:
                answer = self.handle(req)
            except BaseException as exc:
                answer = {"error": _describe(exc, float(req.get("t", 30)))}
            self.send(answer)


def _site_builtins() -> None:
    """``exit``, ``quit``, ``help``, ``copyright`` … as ``site`` defines them (the runner starts with ``-S``)."""
    import site

    site.setquit()
    site.setcopyright()
    site.sethelper()


def main() -> None:
    limits = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    paths = limits.get("path", []) if isinstance(limits, dict) else []
    sys.path.extend(str(p) for p in paths if str(p) not in sys.path)  # the installed packages (numpy …)
    _site_builtins()
    # the channel moves to private descriptors; 0/1/2 become /dev/null so printing costs nothing
    chan_in = os.fdopen(os.dup(0), "rb")
    chan_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        import numpy  # noqa: F401  - imported before the address-space limit, as every set uses it
    except ImportError:
        pass
    set_limits(limits)
    session = Session(chan_in, chan_out)
    first = protocol.loads(chan_in.readline())
    session.run_cells([str(c) for c in first.get("cells", [])], float(first.get("cell_timeout", 30)))
    session.serve()
    chan_out.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
