"""The step-by-step animation of one data-parallel step (§9.6.2): frames, captions, size, determinism."""

from __future__ import annotations

import re
import warnings

import matplotlib

matplotlib.use("Agg")

import pytest

from clusterlab import viz
from clusterlab.communication import overlap
from clusterlab.units import MiB
from clusterlab.viz import _overlap

_FRAME = re.compile(r'frames\[\d+\] = "data:image/png;base64,')


def _schedule(layers: int, *, cap: float = 25 * MiB, forward: float = 5e-3) -> overlap.DDPSchedule:
    """``layers`` equal layers of 12 MiB gradient and 0.5 ms backward each; 16 ranks, 5 µs, 50 GB/s."""
    return overlap.simulate_ddp([0.5e-3] * layers, [12 * MiB] * layers, 16, 5e-6, 50e9, bucket_cap=cap,
                                first_bucket_cap=None, forward_time=forward)


def test_every_event_is_in_exactly_one_frame() -> None:
    s = _schedule(40)
    steps = _overlap._ddp_steps(s, 20)
    assert len(steps.frames) == 20 and steps.frames[0] == (0.0, ())
    events = [e for _, ev in steps.frames for e in ev]
    assert len(events) == len(set(events)) == 1 + 40 + 2 * len(s.buckets)  # forward, gradients, start + end
    times = [t for t, _ in steps.frames]
    assert times == sorted(times) and times[-1] == s.step
    # the forward pass and every instant after backward have frames of their own
    assert steps.frames[1][1] == ((_overlap._FORWARD, 0),)
    tail = [ev for t, ev in steps.frames if t > steps.compute_end]
    assert all(len({s.timeline.starts[steps.reduces[b]] if k == _overlap._START else
                    s.timeline.ends[steps.reduces[b]] for k, b in ev}) == 1 for ev in tail)


def test_few_events_get_one_frame_each() -> None:
    s = _schedule(3, cap=1, forward=0.0)  # one bucket per layer, no forward pass
    steps = _overlap._ddp_steps(s, 30)
    instants = {*s.timeline.ends, *s.timeline.starts[3:]}
    assert len(steps.frames) == 1 + len(instants)
    assert _overlap._headline(s, steps, 0) == "一步开始：反向从最后一层算起"
    assert _overlap._headline(s, steps, 1) == "算完第 1 个梯度张量；第 1 个桶装满（12 MiB），开始全归约"


def test_captions_say_what_happened_and_the_exposed_time() -> None:
    s = _schedule(40)
    steps = _overlap._ddp_steps(s, 20)
    heads = [_overlap._headline(s, steps, i) for i in range(len(steps.frames))]
    assert heads[0] == "一步开始：计算流先做前向，通信流空闲"
    assert heads[1].startswith("前向结束")
    assert any("开始全归约" in h for h in heads) and any("全归约结束" in h for h in heads)
    assert any("反向结束" in h for h in heads)
    assert heads[-1].endswith("这一步结束")
    assert max(len(h) for h in heads) <= 65
    last = _overlap._status(s, steps, len(steps.frames) - 1, 1e-3, "ms")
    assert last.endswith(f"暴露的通信 {s.exposed * 1e3:.1f} ms") and s.exposed > 0
    assert _overlap._status(s, steps, 0, 1e-3, "ms").endswith("暴露的通信 0.0 ms")


def test_animation_draws_frames_deterministically(no_leak: None,
                                                  strict_warnings: list[warnings.WarningMessage]) -> None:
    s = _schedule(24)
    html = viz.ddp_step_animation_html(s, max_frames=3, key="t_ddp", dpi=40)
    assert len(_FRAME.findall(html)) == 3
    assert 'id="_anim_imgt_ddp"' in html and "播放" in html
    assert viz.ddp_step_animation_html(s, max_frames=3, key="t_ddp", dpi=40) == html
    assert viz.ddp_step_animation(s, max_frames=3, key="t_ddp", dpi=40).data == html


def test_thirty_frames_stay_light(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    s = _schedule(64)
    html = viz.ddp_step_animation_html(s, key="t_ddp30")
    assert len(_FRAME.findall(html)) == 30
    assert len(html.encode("utf-8")) < 400_000


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"schedule": "x"}, "schedule"),
    ({"max_frames": 1}, "max_frames"),
    ({"unit": 0}, "unit"),
    ({"key": "a b"}, "key"),
])
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"schedule": _schedule(4), **kwargs}
    with pytest.raises(ValueError, match=match):
        viz.ddp_step_animation_html(**args)  # type: ignore[arg-type]
