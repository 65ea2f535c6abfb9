"""The same training under different machine settings, each in a fresh process, compared bit by bit (§9.6.5.2).

A numpy program chooses two things by the CPU it runs on, before the first line of the program runs: the BLAS kernel
(OpenBLAS probes the CPU at load time; ``OPENBLAS_CORETYPE`` overrides it) and the SIMD implementation of each
ufunc such as ``tanh`` (numpy's run-time dispatch; ``NPY_DISABLE_CPU_FEATURES`` removes levels from the choice).
Both are fixed for the life of a process, so comparing them needs one process per setting: :func:`run` starts
``python -m clusterlab.lab variants child`` with the setting's environment, which trains
:func:`clusterlab.faults.divergence.training_divergence` (both runs with the ring order, so the two runs of one
process are identical) and prints the final parameters' bits with a description of the machine as JSON.
:func:`compare` counts the parameters whose bits differ between two such runs.

:data:`SETTINGS` names the settings. ``as-is`` inherits the caller's environment unchanged; ``numpy-baseline``
adds ``NPY_DISABLE_CPU_FEATURES`` so that numpy uses its baseline code (x86-64: SSE4.2 without AVX or FMA);
``openblas-auto`` removes ``OPENBLAS_CORETYPE`` so that OpenBLAS picks the kernel by itself; ``openblas-haswell``
and ``openblas-prescott`` force those two kernels (x86-64 only). The book's record of one machine is made, with
neither variable set in the shell, by ``python -m clusterlab.lab variants record
book/_data/determinism_machines.json``; the test suite and the
notebook's live check use only ``as-is`` and ``numpy-baseline`` and never set ``OPENBLAS_CORETYPE``.

Sources: OpenBLAS ``DYNAMIC_ARCH`` and ``OPENBLAS_CORETYPE`` (OpenBLAS README, "Setting the number of threads /
Overriding the detected CPU"); numpy's runtime dispatch and ``NPY_DISABLE_CPU_FEATURES`` (numpy reference manual,
"CPU build options" / "Runtime dispatch").
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import platform
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from ..validate import choice
from .machine import cpu_model

__all__ = ["RECORD_SETTINGS", "SETTINGS", "TRAINING", "Run", "Setting", "SettingSummary", "applicable", "compare",
           "load", "load_training", "machine", "main", "record", "run", "summarise"]


@dataclass(frozen=True)
class Setting:
    """One way to start the child process: environment variables to set (``set``) and to remove (``unset``)."""

    name: str
    set: Mapping[str, str]
    unset: tuple[str, ...] = ()
    x86_only: bool = False


#: numpy's SIMD levels above the x86-64 baseline (numpy 2.4): disabling them leaves the baseline code
NPY_ABOVE_BASELINE: Final = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"

SETTINGS: Final = {
    s.name: s
    for s in (
        Setting("as-is", {}),
        Setting("numpy-baseline", {"NPY_DISABLE_CPU_FEATURES": NPY_ABOVE_BASELINE}, x86_only=True),
        Setting("openblas-auto", {}, ("OPENBLAS_CORETYPE",)),
        Setting("openblas-haswell", {"OPENBLAS_CORETYPE": "Haswell"}, x86_only=True),
        Setting("openblas-prescott", {"OPENBLAS_CORETYPE": "Prescott"}, x86_only=True),
    )
}


@dataclass(frozen=True)
class Run:
    """One child process's result: the setting, the ``backend``, the machine as the child saw it (see
    :func:`machine`), the final parameters of run A as float32 bit patterns, and the final evaluation loss."""

    setting: str
    backend: str
    machine: Mapping[str, Any]
    params_hex: str
    loss: float

    @property
    def params(self) -> np.ndarray:
        return np.frombuffer(bytes.fromhex(self.params_hex), dtype=np.float32)


def _openblas() -> tuple[str, str]:
    """(configuration string, kernel in use) of the OpenBLAS that numpy loaded, or ('', '') if not found."""
    here = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(os.path.join(here, "..", "numpy.libs", "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        out = []
        for fn in ("scipy_openblas_get_config64_", "scipy_openblas_get_corename64_"):
            f = getattr(lib, fn, None)
            if f is None:
                out.append("")
                continue
            f.restype = ctypes.c_char_p
            out.append(f().decode())
        return out[0], out[1]
    return "", ""


def machine() -> dict[str, Any]:
    """What decides the bits in this process: CPU model and architecture, numpy version, the SIMD level numpy uses
    for float32 ``tanh`` and float64 ``exp``, the SIMD features it found, OpenBLAS's configuration and the kernel it
    chose, and the two environment variables that override the choices."""
    from numpy._core._multiarray_umath import __cpu_features__  # type: ignore[import-not-found]
    from numpy.lib.introspect import opt_func_info

    def level(name: str, sig: str) -> str:
        info = opt_func_info(func_name=f"^{name}$", signature=sig).get(name, {})
        return str(next(iter(info.values()), {}).get("current", ""))

    config, core = _openblas()
    return {
        "cpu": cpu_model(),
        "arch": platform.machine(),
        "numpy": np.__version__,
        "simd_tanh_f32": level("tanh", "float32"),
        "simd_exp_f64": level("exp", "float64"),
        "simd_found": " ".join(k for k, v in __cpu_features__.items()
                               if v and k.startswith(("AVX512", "X86_V", "ASIMD", "SVE"))),
        "openblas": config.split("  ")[0] if config else "",
        "openblas_core": core,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", ""),
        "NPY_DISABLE_CPU_FEATURES": os.environ.get("NPY_DISABLE_CPU_FEATURES", ""),
    }


#: the training every child runs (§9.6.5.2's: 8 ranks, 60 steps, seed 0), with the ring order in both runs
TRAINING: Final = {"ranks": 8, "steps": 60, "seed": 0}


def _child(backend: str) -> dict[str, Any]:
    from ..faults.divergence import training_divergence

    res = training_divergence(TRAINING["ranks"], TRAINING["steps"], orders=("ring", "ring"), seed=TRAINING["seed"],
                              backend=backend)
    return {"backend": backend, "machine": machine(), "params_hex": res.final_parameters[0].tobytes().hex(),
            "loss": float(res.loss[0, -1])}


def applicable(setting: str) -> bool:
    """Whether ``setting`` means anything on this machine (the x86-64-only ones do not on ARM64)."""
    s = SETTINGS[choice("setting", setting, tuple(SETTINGS))]
    return not s.x86_only or platform.machine().lower() in ("x86_64", "amd64")


def run(setting: str, backend: str, *, timeout: float = 120.0) -> Run:
    """Train in a fresh ``python`` process started with ``setting``'s environment (see :data:`SETTINGS`) and
    ``backend`` (``"fixed"`` or ``"blas"``, see :func:`~clusterlab.faults.divergence.training_divergence`)."""
    s = SETTINGS[choice("setting", setting, tuple(SETTINGS))]
    be = choice("backend", backend, ("fixed", "blas"))
    env = {k: v for k, v in os.environ.items() if k not in s.unset}
    env.update(s.set)
    out = subprocess.run([sys.executable, "-m", "clusterlab.lab", "variants", "child", be], env=env,
                         capture_output=True, text=True, timeout=timeout, check=True)
    data = json.loads(out.stdout)
    return Run(s.name, be, data["machine"], data["params_hex"], data["loss"])


def compare(a: Run, b: Run) -> tuple[int, int]:
    """(how many parameters differ in at least one bit, the largest float32 ULP distance) between two runs."""
    from ..faults.determinism import ulp_distance

    d = ulp_distance(a.params, b.params)
    return int(np.count_nonzero(d)), int(d.max())


#: the settings a record compares (``openblas-auto`` equals ``as-is`` where ``OPENBLAS_CORETYPE`` is not set)
RECORD_SETTINGS: Final = ("as-is", "numpy-baseline", "openblas-haswell", "openblas-prescott")


def record(path: str | Path, settings: Sequence[str] = RECORD_SETTINGS) -> dict[str, Any]:
    """Run both backends under every applicable setting and write the runs as JSON to ``path`` (the book's record
    of one machine). Returns what it wrote."""
    runs = [run(s, be) for s in settings if applicable(s) for be in ("blas", "fixed")]
    rows = [{"setting": r.setting, "backend": r.backend, "machine": dict(r.machine), "params_hex": r.params_hex,
             "loss": r.loss} for r in runs]
    data = {"machine": machine(), "training": dict(TRAINING), "runs": rows}
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return data


def load(path: str | Path) -> list[Run]:
    """The runs of a record written by :func:`record` (its training configuration: :func:`load_training`)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [Run(r["setting"], r["backend"], r["machine"], r["params_hex"], r["loss"]) for r in data["runs"]]


def load_training(path: str | Path) -> dict[str, int]:
    """The training configuration (ranks, steps, seed) a record was made with."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {k: int(v) for k, v in data["training"].items()}


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[0] == "child":
        print(json.dumps(_child(argv[1])))
        return 0
    if len(argv) == 2 and argv[0] == "record":
        data = record(argv[1])
        first = {r["backend"]: r for r in data["runs"] if r["setting"] == data["runs"][0]["setting"]}
        for r in data["runs"]:
            base = first[r["backend"]]
            same = r["params_hex"] == base["params_hex"]
            print(f"{r['setting']:18} {r['backend']:5} core={r['machine']['openblas_core']:9} "
                  f"tanh={r['machine']['simd_tanh_f32']:17} {'same bits' if same else 'DIFFERENT'}")
        return 0
    print("usage: python -m clusterlab.lab variants record OUT.json | variants child fixed|blas", file=sys.stderr)
    return 2


@dataclass(frozen=True)
class SettingSummary:
    """One setting of a record against the record's first setting: OpenBLAS's kernel and numpy's SIMD level for
    float32 ``tanh`` in that process; for each backend, how many final parameters differ in at least one bit and
    the largest ULP distance."""

    setting: str
    openblas_core: str
    simd_tanh_f32: str
    blas_differing: int
    blas_max_ulp: int
    fixed_differing: int
    fixed_max_ulp: int


def summarise(runs: Sequence[Run]) -> list[SettingSummary]:
    """Per setting of ``runs`` (in order), the differences from the first setting (see :class:`SettingSummary`)."""
    by = {(r.setting, r.backend): r for r in runs}
    settings = list(dict.fromkeys(r.setting for r in runs))
    if not settings or any((s, be) not in by for s in settings for be in ("blas", "fixed")):
        raise ValueError("runs must hold both backends for every setting")
    out = []
    for s in settings:
        b, f = by[s, "blas"], by[s, "fixed"]
        nb_, ub = compare(b, by[settings[0], "blas"])
        nf, uf = compare(f, by[settings[0], "fixed"])
        out.append(SettingSummary(s, str(b.machine.get("openblas_core", "")), str(b.machine.get("simd_tanh_f32", "")),
                                  nb_, ub, nf, uf))
    return out
