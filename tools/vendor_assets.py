"""Copy the JavaScript the built book needs into the build tree, so the site makes no request to a CDN; and fetch,
once, the JavaScript that only the browser tests use.

* **MathJax 3** comes from the PyPI package ``django-static-mathjax`` (pinned in requirements/lock.txt). Only what
  the pages use is copied to ``<dest>/mathjax`` (``MATHJAX_FILES``): the loader, the core, TeX input, CommonHTML
  output and its font data, the assistive-MathML component, the TeX extensions that ``\\require`` or autoload may
  fetch, and the web fonts; no source maps, no SVG output, no menu (0.4 MB that every page loaded with the combined
  ``tex-chtml.js``), no speech engine (24 MB → 1.6 MB). The pages load ``_static/vendor/mathjax/startup.js``, which
  fetches the components named in ``mathjax3_config.loader.load`` (``_config.yml``). ``html_extra_path: ["_extra"]``
  keeps these files out of Jupyter Book's automatic script injection, which would otherwise add every ``*.js``
  under ``_static``.
* **axe-core** (the accessibility engine the browser tests run on every page) comes from the npm registry at the
  version and integrity hash pinned in ``requirements/npm/package-lock.json``; ``npm ci`` installs it into
  ``.venv/node`` (never into the site). Without npm the step is skipped with one line, and so are the
  accessibility tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NPM_DIR = ROOT / "requirements" / "npm"
NODE_PREFIX = ROOT / ".venv" / "node"

# relative to MathJax's es5 directory; a trailing "/" copies the whole folder (no *.map files)
MATHJAX_FILES = (
    "startup.js",
    "core.js",
    "input/tex.js",
    "output/chtml.js",
    "output/chtml/fonts/tex.js",
    "a11y/assistive-mml.js",
    "input/tex/extensions/",
    "output/chtml/fonts/woff-v2/",
)


def mathjax_source() -> Path:
    import mathjax  # provided by django-static-mathjax

    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").is_file():
        raise SystemExit(f"MathJax not found under {root}; is django-static-mathjax installed?")
    return root


def _mathjax_manifest(src: Path) -> list[str]:
    files: list[str] = []
    for entry in MATHJAX_FILES:
        if entry.endswith("/"):
            files += sorted(
                p.relative_to(src).as_posix() for p in (src / entry).rglob("*") if p.is_file() and p.suffix != ".map"
            )
        else:
            files.append(entry)
    return files


def vendor_mathjax(dest: str | Path) -> Path:
    target = Path(dest) / "mathjax"
    src = mathjax_source()
    files = _mathjax_manifest(src)
    stamp = target / ".manifest.json"
    wanted = {f: (src / f).stat().st_size for f in files}
    if stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == wanted:
        return target
    if target.exists():
        shutil.rmtree(target)
    for f in files:
        (target / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / f, target / f)
    stamp.write_text(json.dumps(wanted, sort_keys=True), encoding="utf-8")
    print(f"MathJax → {target} ({sum(wanted.values()) / 1e6:.1f} MB, {len(files)} files)")
    return target


def locked_version(package: str) -> str:
    lock = json.loads((NPM_DIR / "package-lock.json").read_text(encoding="utf-8"))
    return str(lock["packages"][f"node_modules/{package}"]["version"])


def axe_core_path(prefix: Path = NODE_PREFIX) -> Path:
    return prefix / "node_modules" / "axe-core" / "axe.min.js"


def axe_core_installed(prefix: Path = NODE_PREFIX) -> bool:
    meta = prefix / "node_modules" / "axe-core" / "package.json"
    if not (axe_core_path(prefix).is_file() and meta.is_file()):
        return False
    return bool(json.loads(meta.read_text(encoding="utf-8"))["version"] == locked_version("axe-core"))


def vendor_axe_core(prefix: Path = NODE_PREFIX) -> Path | None:
    """``npm ci`` from the pinned lock into ``prefix`` (once); the path of ``axe.min.js``, or None without npm."""
    if axe_core_installed(prefix):
        return axe_core_path(prefix)
    npm = shutil.which("npm")
    if npm is None:
        print("axe-core: npm not found, accessibility tests will be skipped")
        return None
    prefix.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(NPM_DIR / name, prefix / name)
    subprocess.run(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(prefix)],
        check=True,
    )
    print(f"axe-core {locked_version('axe-core')} → {axe_core_path(prefix)}")
    return axe_core_path(prefix)


def main(dest: str) -> None:
    vendor_mathjax(dest)
    vendor_axe_core()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "book/_extra/_static/vendor")
