"""The student notebooks published in the site: one per exercise set, without solutions or hidden tests, and
reachable through the links the book uses ({download} links to ``_exercises/<set>.ipynb``)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "exercises" / "source"
PUBLISHED = ROOT / "book" / "_exercises"
HTML = ROOT / "book" / "_build" / "html"

SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def secrets(set_name: str) -> tuple[set[str], set[str]]:
    """Solution lines and hidden test names of a set, read from its master notebook.

    A line the master also gives students outside any solution (e.g. in the buggy code of a debugging task, or a
    ``for r in range(n):`` any loop shares) is not a secret."""
    solution_lines: set[str] = set()
    given_lines: set[str] = set()
    hidden_tests: set[str] = set()
    for cell in cells(SOURCE / set_name / f"{set_name}.ipynb"):
        if cell["cell_type"] != "code":
            continue
        body = text(cell)
        hidden = bool(re.search(r"hidden:\s*true", body))
        inside = False
        for line in body.splitlines():
            stripped = line.strip()
            if stripped.startswith("# BEGIN SOLUTION"):
                inside = True
            elif stripped.startswith("# END SOLUTION"):
                inside = False
            elif stripped.endswith("# SOLUTION"):
                solution_lines.add(stripped.removesuffix("# SOLUTION").strip())
            elif inside and len(stripped) >= 12 and not stripped.startswith("#"):
                solution_lines.add(stripped)
            elif not inside and not hidden:
                given_lines.add(stripped)
        if hidden:
            hidden_tests.update(re.findall(r"def (test_\w+)", body))
    return solution_lines - given_lines, hidden_tests


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href and href.endswith(".ipynb"):
            self.hrefs.append(href)


def notebook_links(page: str) -> dict[str, Path]:
    """``{set: file in the site}`` for every notebook link on a built page, resolved like a browser would."""
    parser = Links()
    parser.feed((HTML / page).read_text(encoding="utf-8"))
    out = {}
    for href in parser.hrefs:
        target = unquote(urljoin(f"http://site/{page}", href)).removeprefix("http://site/")
        out[Path(target).stem] = HTML / target
    return out


def test_one_student_notebook_per_set():
    assert SETS, "no exercise sets found"
    assert sorted(p.stem for p in PUBLISHED.glob("*.ipynb")) == SETS


@pytest.mark.parametrize("set_name", SETS)
def test_student_notebook_holds_no_answers(set_name):
    solution_lines, hidden_tests = secrets(set_name)
    assert solution_lines and hidden_tests, f"{set_name}: markers not found in the master notebook"
    student = PUBLISHED / f"{set_name}.ipynb"
    body = "\n".join(text(c) for c in cells(student))
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN TESTS", "hidden: true", "【隐藏测试】"):
        assert marker not in body, f"{set_name}: {marker!r} in the student notebook"
    assert not re.search(r"^\s*(from|import)\s+clusterlab\b", body, re.M), f"{set_name}: imports clusterlab"
    code_lines = {line.strip() for c in cells(student) if c["cell_type"] == "code" for line in text(c).splitlines()}
    leaked = sorted(solution_lines & code_lines)
    assert not leaked, f"{set_name}: solution code in the student notebook: {leaked[:5]}"
    named = sorted(t for t in hidden_tests if re.search(rf"\b{t}\b", body))
    assert not named, f"{set_name}: hidden tests in the student notebook: {named}"


def test_links_reach_the_published_notebooks():
    links = notebook_links("intro.html")
    assert sorted(links) == SETS, f"intro links {sorted(links)}"
    for set_name, target in links.items():
        assert target.is_file(), f"{set_name}: link target {target} missing from the site"
        assert target.read_bytes() == (PUBLISHED / f"{set_name}.ipynb").read_bytes()
    # any section page that links a set must reach the same file
    for page in sorted(HTML.glob("part*/*.html")):
        for set_name, target in notebook_links(page.relative_to(HTML).as_posix()).items():
            assert target.is_file(), f"{page.name}: link to {set_name} does not resolve"


@pytest.mark.parametrize("name", SETS)
def test_every_student_code_cell_parses(name: str) -> None:
    """A student can run every cell of the published notebook (and of the built one, when built): no answer
    statement leaves a continuation line behind."""
    import ast

    paths = [PUBLISHED / f"{name}.ipynb", ROOT / "exercises" / "_build" / name / "student" / f"{name}.ipynb"]
    for path in (p for p in paths if p.is_file()):
        for i, cell in enumerate(cells(path)):
            if cell["cell_type"] != "code":
                continue
            src = "\n".join(ln for ln in text(cell).splitlines() if not ln.lstrip().startswith(("%", "!")))
            try:
                ast.parse(src)
            except SyntaxError as e:
                pytest.fail(f"{path.relative_to(ROOT)}: cell {i} does not parse: {e}")
