"""Every animation frame carries a text alternative written from the data it is drawn from: the step and its sends,
the boxes that are complete, the α-β time and the bytes sent (collectives); the time, progress and exposed
communication (one data-parallel step). The player carries them as ``alt`` and ``data-alts``."""

from __future__ import annotations

import html
import itertools
import json
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from clusterlab import viz
from clusterlab.communication import overlap, primitives, ring
from clusterlab.communication.trace import from_ring_trace
from clusterlab.units import MiB, fmt_bytes, fmt_seconds
from clusterlab.viz import _anim, _overlap
from clusterlab.viz._frame_text import collective_frame_text
from clusterlab.viz._scene import make_scene
from clusterlab.viz._style import byte_unit

ALPHA, BETA = 5e-6, 25e9
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def alts_of(player: str) -> tuple[str, list[str]]:
    """(the frame image's alt, the texts of data-alts) of one player's HTML."""
    (tag,) = re.findall(r"<img id=\"_anim_img[^\"]*\"[^>]*>", player)
    alt = html.unescape(re.search(r'\balt="([^"]*)"', tag).group(1))
    return alt, json.loads(html.unescape(re.search(r'\bdata-alts="([^"]*)"', tag).group(1)))


def test_ring_all_reduce_frames_say_their_step_sends_blocks_time_and_bytes() -> None:
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    trace = ring.simulate_all_reduce(x)
    alt, alts = alts_of(viz.ring_animation_html(trace, latency=ALPHA, bandwidth=BETA, key="alts"))
    tr = from_ring_trace(trace)
    assert len(alts) == tr.num_steps + 1 == 7 and alt == alts[0]
    unit = byte_unit(float(tr.bytes_sent.max()))
    for k, text in enumerate(alts):
        assert text.startswith(f"第 {k} / 6 步")
        assert f"累计 α-β 时间 {fmt_seconds(tr.time_after(k, ALPHA, BETA))}" in text
        assert f"已发 {fmt_bytes(float(tr.bytes_sent_after(k).max()), unit)}" in text
        if k:
            for s in tr.steps[k - 1].sends:
                assert f"rank {s.src}→{s.dst}（块 {s.chunk}）" in text
    assert "归约-散播" in alts[1] and "全收集" in alts[4]
    # after reduce-scatter every rank holds one complete block, named with its number; at the end all 16
    complete = tr.contributions_after(3).sum(axis=2) == 4
    named = [f"rank {r} 的块 {int(tr.pieces[r, c])}" for r, c in zip(*np.nonzero(complete), strict=True)]
    assert "块 4 / 16" in alts[3] and all(n in alts[3] for n in named)
    assert "块 16 / 16" in alts[6]


def test_neighbouring_frames_differ_in_their_numbers() -> None:
    rng = np.random.default_rng(5)
    traces = [primitives.simulate(op, rng.integers(0, 9, size=(4, 8)).astype(np.float32))
              for op in ("broadcast", "reduce", "all_gather", "all_to_all", "send_recv")]
    traces.append(primitives.simulate("all_reduce", np.ones((7, 6), np.float32), algorithm="tree"))
    for tr in traces:
        scene = make_scene(tr)
        texts = [collective_frame_text(scene, k, (ALPHA, BETA)) for k in range(tr.num_steps + 1)]
        for a, b in itertools.pairwise(texts):
            assert _NUMBER.findall(a) != _NUMBER.findall(b), (tr.op, a, b)


def test_tree_all_reduce_names_the_ranks_that_have_the_sum() -> None:
    tr = primitives.simulate("all_reduce", np.ones((7, 6), np.float32), algorithm="tree")
    scene = make_scene(tr)
    done = [r for r in range(7) if tr.contributions_after(5)[r, 0].all()]
    assert 0 < len(done) < 7
    assert f"已得到全部 7 份输入之和的 rank {len(done)} / 7（{'、'.join(f'rank {r}' for r in done)}）" in (
        collective_frame_text(scene, 5, None))


def test_data_step_frames_say_time_progress_and_exposure() -> None:
    s = overlap.simulate_ddp([0.5e-3] * 12, [12 * MiB] * 12, 16, 5e-6, 50e9, bucket_cap=25 * MiB,
                             first_bucket_cap=None, forward_time=5e-3)
    alt, alts = alts_of(viz.ddp_step_animation_html(s, max_frames=12, key="ddp_alts"))
    steps = _overlap._ddp_steps(s, 12)
    assert len(alts) == len(steps.frames) and alt == alts[0]
    for i, text in enumerate(alts):
        assert text.startswith(_overlap._headline(s, steps, i))
        assert f"t = {steps.frames[i][0] / 1e-3:.1f} ms" in text
    assert f"暴露的通信 {s.exposed / 1e-3:.1f} ms" in alts[-1]
    assert len(set(alts)) == len(alts)


def test_alts_must_match_the_frames() -> None:
    trace = ring.simulate_all_reduce(np.ones((3, 3), np.float32))
    scene = make_scene(from_ring_trace(trace))
    from clusterlab.viz._collective import draw
    with pytest.raises(ValueError, match="one text per frame"):
        _anim.jshtml(lambda fig, i: draw(fig, scene, i, None, None), 5, figsize=(4, 3), key="x", interval=500,
                     dpi=40, alts=["a"] * 4)
    with pytest.raises(ValueError, match="non-empty"):
        _anim.check_alts(["a", " "])
    with pytest.raises(ValueError, match="sequence"):
        _anim.check_alts("abc")
