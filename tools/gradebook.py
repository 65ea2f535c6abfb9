"""Kept for one release: ``python tools/gradebook.py …`` is ``clusterlab-grade …`` (:mod:`clusterlab_grade.cli`).

Imported as a module, ``gradebook`` is :mod:`clusterlab_grade.cli` itself.
"""

from __future__ import annotations

import sys

from clusterlab_grade import cli

if __name__ == "__main__":
    raise SystemExit(cli.main())
sys.modules[__name__] = cli
