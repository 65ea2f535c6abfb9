"""The grader is an installable package: a console entry point, ``python -m``, the old command as a thin wrapper,
the old ``grading`` imports as aliases, and no ``sys.path`` edits inside the package."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import tomllib

from .helpers import ROOT


def test_console_entry_point_is_declared_and_resolves() -> None:
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = spec["project"]["scripts"]["clusterlab-grade"]
    module, _, attr = target.partition(":")
    main = getattr(importlib.import_module(module), attr)
    assert callable(main) and main.__module__ == "clusterlab_grade.cli"


def test_commands_answer_help() -> None:
    for cmd in ([sys.executable, "-m", "clusterlab_grade", "--help"],
                [sys.executable, str(ROOT / "tools" / "gradebook.py"), "--help"]):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False, cwd=ROOT / "tests")
        assert out.returncode == 0 and "clusterlab-grade" in out.stdout and "--merge" in out.stdout, out.stderr


def test_old_imports_are_the_package_modules() -> None:
    import gradebook
    from grading import judge, master

    import clusterlab_grade.cli
    import clusterlab_grade.judge
    import clusterlab_grade.master

    assert gradebook is clusterlab_grade.cli
    assert judge is clusterlab_grade.judge and master is clusterlab_grade.master


def test_no_sys_path_edits_in_the_package() -> None:
    """The package imports its own modules as a package. The one exception is the sandbox's runner: started with
    ``python -I -S`` (no ``site``, so no ``.pth`` file of the environment runs in the sandbox), it appends the
    site-packages folders the grader names (``sandbox.site_paths``, which only reads the grader's path)."""
    edit = re.compile(r"sys\.path\s*(?:\.(?:insert|append|extend|remove|pop|clear)\(|\[|\+?=[^=])")
    for path in sorted((ROOT / "src" / "clusterlab_grade").glob("*.py")):
        edits = edit.findall(path.read_text(encoding="utf-8"))
        assert edits == (["sys.path.extend("] if path.name == "runner.py" else []), path.name
