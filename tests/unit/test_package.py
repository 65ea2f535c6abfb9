"""The package house: layers point one way, modules stay small, validation lives once, old names still resolve."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import clusterlab

SRC = Path(clusterlab.__file__).parent
COMPUTE = ("units.py", "validate.py", "communication", "cluster", "faults")


def _modules(*parts: str) -> list[Path]:
    out: list[Path] = []
    for part in parts:
        p = SRC / part
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("path", _modules(*COMPUTE), ids=lambda p: str(p.relative_to(SRC)))
def test_compute_never_imports_presentation(path: Path) -> None:
    bad = {m for m in _imports(path) if "viz" in m.split(".") or "book" in m.split(".") or "matplotlib" in m}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", _modules("."), ids=lambda p: str(p.relative_to(SRC)))
def test_modules_stay_small(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 520


def test_no_private_argument_checks_outside_validate() -> None:
    for path in _modules("."):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert not defs & {"_check_int", "check_int", "_int", "_fraction", "check_positive", "check_ranks"}, path


def test_time_constants_only_in_units() -> None:
    for path in _modules("."):
        if path.name == "units.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                assert not names & {"MINUTE", "HOUR", "DAY"}, path


@pytest.mark.parametrize(
    ("old", "new"),
    [("collectives", "clusterlab.communication.collectives"), ("checkpoint", "clusterlab.faults.checkpoint"),
     ("training", "clusterlab.cluster.training"), ("quiz", "clusterlab.book.quiz")],
)
def test_old_flat_names_resolve_with_a_warning(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=new):
        mod = getattr(clusterlab, old)
    assert mod is importlib.import_module(new)
    with pytest.raises(AttributeError):
        clusterlab.no_such_module  # noqa: B018


def test_publish_is_importable_from_the_book_package() -> None:
    from clusterlab.book import publish

    assert callable(publish) and publish.__module__ == "clusterlab.book.glue"


def test_publish_figure_glues_and_closes_a_matplotlib_figure(monkeypatch) -> None:
    import matplotlib.pyplot as plt
    import myst_nb

    from clusterlab.book import publish_figure

    seen = []
    monkeypatch.setattr(myst_nb, "glue", lambda key, obj, display=True: seen.append((key, obj, display)))
    fig = plt.figure()
    assert publish_figure("963-fig-x", fig) is fig
    assert seen == [("963-fig-x", fig, False)]
    assert fig.number not in plt.get_fignums(), "the figure must be closed (no second display)"


def test_publish_figure_rejects_numbers_and_bad_keys() -> None:
    import pytest

    from clusterlab.book import publish_figure

    with pytest.raises(ValueError, match="use publish"):
        publish_figure("963-x", 3.0)
    with pytest.raises(ValueError, match="key must be"):
        publish_figure("Bad Key", object())
