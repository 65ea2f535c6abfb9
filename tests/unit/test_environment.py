"""environment.yml (conda users) pins the same versions as the pip lock file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)$", line.strip())
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def conda_pins() -> dict[str, str]:
    text = (ROOT / "environment.yml").read_text()
    pattern = re.compile(r"^\s*-\s*([A-Za-z0-9_.\-]+)=([^=\s]+)\s*$", re.M)
    return {m.group(1).lower(): m.group(2) for m in pattern.finditer(text)}


def test_conda_pins_equal_lock():
    locked = lock()
    pins = conda_pins()
    assert "python" in pins
    for name, version in pins.items():
        if name == "python":
            continue
        assert name in locked, f"{name} is pinned in environment.yml but not in requirements/lock.txt"
        assert locked[name] == version, f"{name}: environment.yml {version} != lock {locked[name]}"


def test_python_version_agrees_with_pyproject():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11" and conda_pins()["python"].startswith("3.11")


def test_conda_pip_section_uses_the_lock():
    text = (ROOT / "environment.yml").read_text()
    assert "-r requirements/lock.txt" in text and "-e ." in text


def test_top_level_pins_are_in_the_lock():
    locked = lock()
    for line in (ROOT / "requirements" / "requirements.in").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if m:
            assert locked.get(m.group(1).lower().replace("_", "-")) == m.group(2), m.group(1)
