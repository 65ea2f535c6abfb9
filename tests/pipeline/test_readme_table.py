"""The instructor's table of sets in exercises/README.md lists every set with its real question count and points."""

from __future__ import annotations

import re

from clusterlab_grade import master
from tests.grading.helpers import SOURCE


def test_readme_table_matches_the_masters() -> None:
    text = (SOURCE.parent / "README.md").read_text(encoding="utf-8")
    rows = {m.group(1): (int(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"^\| `([\w-]+)` \|[^\n]*\| (\d+) \| (\d+(?:\.\d+)?) \|$", text, re.M)}
    sets = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())
    assert sorted(rows) == sets
    for name in sets:
        parsed = master.parse(SOURCE / name / f"{name}.ipynb", (SOURCE / name / "variant.py").read_text("utf-8"))
        real = (len(parsed.questions), float(sum(q.points for q in parsed.questions)))
        assert rows[name] == real, f"{name}: README says {rows[name]}, the master has {real}"
