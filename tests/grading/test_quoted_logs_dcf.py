"""The real-data questions of determinism (q4), checkpoint (q4) and failures (q2) parse a public log or table that
ships next to the master notebook: the notebook quotes the data file line for line, and the file states its source
with the commit it was read at. No sandbox is needed."""

from __future__ import annotations

import json

from .helpers import SOURCE


def quoted(set_name: str, variable: str) -> list[str]:
    """The lines of the triple-quoted literal assigned to ``variable`` in the set's master notebook."""
    nb = json.loads((SOURCE / set_name / f"{set_name}.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"] if f"{variable} = " in "".join(c["source"]))
    return cell.split(f'{variable} = """\\\n')[1].split('"""')[0].splitlines()


def test_determinism_q4_quotes_the_mlperf_logs() -> None:
    data = (SOURCE / "determinism" / "mlperf_v07_resnet_8xv100.txt").read_text(encoding="utf-8")
    kept = data.split("# Below: the kept lines.\n")[1].splitlines()
    assert quoted("determinism", "MLPERF_LOG") == kept
    assert sum(line.startswith("# result_") for line in kept) == 5  # five runs of one submission
    assert sum('"key": "run_start"' in line for line in kept) == 5
    assert sum('"key": "run_stop"' in line for line in kept) == 5
    assert all(line.startswith((":::MLLOG ", "# result_")) for line in kept)
    assert "0a8a85a209c8e45b661596c382cc20f4e32fd2fe" in data
