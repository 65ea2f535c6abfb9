"""``python -m clusterlab.lab variants …`` (:mod:`clusterlab.lab.variants`), ``… emulate …``
(:mod:`clusterlab.lab.emulate`), ``… faults …`` (:mod:`clusterlab.lab.faultlab`)."""

from __future__ import annotations

import sys

from . import variants

USAGE = ("usage: python -m clusterlab.lab variants record OUT.json\n"
         "       python -m clusterlab.lab emulate --nodes N --ranks-per-node R --rate 200mbit [--json]\n"
         "       python -m clusterlab.lab faults --nodes N --mtbf 4 --faults 20 [--json]")


def main(argv: list[str]) -> int:
    if argv[:1] == ["variants"]:
        return variants.main(argv[1:])
    if argv[:1] == ["faults"]:
        from . import faultlab

        return faultlab.main(argv[1:])
    if argv[:1] == ["emulate"]:
        from . import emulate

        return emulate.main(argv[1:])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
