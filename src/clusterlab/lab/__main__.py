"""``python -m clusterlab.lab variants …``: see :mod:`clusterlab.lab.variants`."""

from __future__ import annotations

import sys

from . import variants


def main(argv: list[str]) -> int:
    if argv[:1] == ["variants"]:
        return variants.main(argv[1:])
    print("usage: python -m clusterlab.lab variants record OUT.json", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
