"""``python -m clusterlab_grade …`` is ``clusterlab-grade …``."""

from .cli import main

raise SystemExit(main())
