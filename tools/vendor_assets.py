"""Copy the JavaScript the built book needs into the build tree, so the site makes no request to a CDN.

MathJax 3 comes from the PyPI package ``django-static-mathjax`` (pinned in requirements/lock.txt); it is copied to
``<dest>/mathjax`` and served as ``_static/vendor/mathjax/tex-chtml.js`` (``html_extra_path: ["_extra"]`` keeps it out
of Jupyter Book's automatic script injection, which would otherwise add every ``*.js`` under ``_static``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def mathjax_source() -> Path:
    import mathjax  # provided by django-static-mathjax

    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").is_file():
        raise SystemExit(f"MathJax not found under {root}; is django-static-mathjax installed?")
    return root


def main(dest: str) -> None:
    target = Path(dest) / "mathjax"
    src = mathjax_source()
    if (target / "tex-chtml.js").is_file() and (target / "tex-chtml.js").stat().st_size == (
        src / "tex-chtml.js"
    ).stat().st_size:
        return
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, target, ignore=shutil.ignore_patterns("*.map"))
    print(f"MathJax → {target}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "book/_extra/_static/vendor")
