"""clusterlab.viz: CJK fonts without glyph warnings, ring pictures and animation, traffic charts, widget."""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from clusterlab import viz
from clusterlab.communication import collectives, ring
from clusterlab.units import GB, fmt_seconds
from clusterlab.viz import _style

CJK_TITLE = "环形 All-Reduce：第 3 步 −1.5"


def trace_of(n: int, length: int = 8) -> ring.RingTrace:
    data = np.arange(n * length, dtype=np.float32).reshape(n, length)
    return ring.simulate_all_reduce(data)


def texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


# --------------------------------------------------------------------------------------------------------
# fonts and setup
# --------------------------------------------------------------------------------------------------------
def test_setup_is_idempotent_and_sets_cjk_fallback() -> None:
    fam = viz.setup()
    n_fonts = len(matplotlib.font_manager.fontManager.ttflist)
    assert viz.setup() == fam
    assert len(matplotlib.font_manager.fontManager.ttflist) == n_fonts  # fonts registered only once
    assert fam == viz.BUNDLED_FAMILY or fam in viz.CJK_FAMILIES
    assert list(matplotlib.rcParams["font.family"]) == ["DejaVu Sans", fam]
    assert matplotlib.rcParams["svg.fonttype"] == "path"
    assert matplotlib.rcParams["svg.hashsalt"] is not None
    assert matplotlib.rcParams["animation.embed_limit"] <= 20


def test_bundled_mpl_font_is_used() -> None:
    files = _style._bundled_font_files()
    assert files and files[0].name == "NotoSansCJKsc-Regular.otf"
    assert viz.cjk_family() == viz.BUNDLED_FAMILY
    assert list(matplotlib.rcParams["font.family"]) == ["DejaVu Sans", viz.BUNDLED_FAMILY]
    fm = matplotlib.font_manager
    for weight, name in (("normal", "NotoSansCJKsc-Regular.otf"), ("bold", "NotoSansCJKsc-Bold.otf")):
        path = fm.findfont(fm.FontProperties(family=viz.BUNDLED_FAMILY, weight=weight), fallback_to_default=False)
        assert Path(path).name == name
    # only the bundled files carry the family name, whatever CJK fonts the system has
    owners = {Path(e.fname).name for e in fm.fontManager.ttflist if e.name == viz.BUNDLED_FAMILY}
    assert owners == {f.name for f in files}


def _chinese_png() -> bytes:
    fig = Figure(figsize=(2.4, 1.0), dpi=60)
    fig.text(0.05, 0.55, "归约-散播 all-reduce 12 GB", fontsize=11)
    fig.text(0.05, 0.15, "加粗：全收集", fontsize=11, fontweight="bold")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def test_figures_do_not_depend_on_system_cjk_fonts(monkeypatch: pytest.MonkeyPatch) -> None:
    viz.setup()
    fm = matplotlib.font_manager
    with_system = _chinese_png()
    # hide every font that is not a bundled file (as on a machine without system CJK fonts) and draw again
    bundled = {str(f) for f in _style._bundled_font_files()}
    kept = [e for e in fm.fontManager.ttflist if e.fname in bundled or "DejaVu" in e.name]
    monkeypatch.setattr(fm.fontManager, "ttflist", kept)
    fm.fontManager._findfont_cached.cache_clear()
    try:
        assert _chinese_png() == with_system
    finally:
        monkeypatch.undo()
        fm.fontManager._findfont_cached.cache_clear()


def test_ensure_setup_repairs_rcdefaults_but_keeps_user_tweaks() -> None:
    try:
        matplotlib.rcdefaults()
        assert viz.cjk_family() not in matplotlib.rcParams["font.family"]
        _style.ensure_setup()
        assert list(matplotlib.rcParams["font.family"]) == ["DejaVu Sans", viz.cjk_family()]
        matplotlib.rcParams["font.size"] = 13
        _style.ensure_setup()
        assert matplotlib.rcParams["font.size"] == 13
    finally:
        viz.setup()


def test_missing_font_raises_bilingual_error() -> None:
    with pytest.raises(viz.CJKFontError, match="找不到中文字体") as err:
        _style._find_cjk_family([], ("No Such Family Anywhere",))
    assert "No CJK font found" in str(err.value)
    assert "mpl-font" in str(err.value)


def test_system_family_is_found_when_no_bundled_font() -> None:
    assert _style._find_cjk_family([], ("No Such Family", "DejaVu Sans")) == "DejaVu Sans"


def test_chinese_labels_render_without_glyph_warnings(strict_warnings: list[warnings.WarningMessage]) -> None:
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.plot([0, 1], [-1.5, 1.0])
    ax.set_title(CJK_TITLE, fontweight="bold")
    ax.set_xlabel("rank 数 N（对数轴）")
    ax.set_ylabel("字节（GB）")
    ax.text(0.5, 0, "a₀+b₀+c₀ 归约-散播 全收集", ha="center")
    for fmt in ("png", "svg"):
        fig.savefig(io.BytesIO(), format=fmt)
    assert not strict_warnings


def test_glyph_check_can_fail_without_the_cjk_font() -> None:
    """The warning the tests rely on does appear when the CJK fallback is missing."""
    fig = Figure(figsize=(2, 1))
    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        fig.text(0.1, 0.5, "环形")
        with pytest.warns(UserWarning, match="Glyph .* missing"):
            fig.savefig(io.BytesIO(), format="png")


def test_import_is_silent_and_light() -> None:
    code = (
        "import sys, clusterlab\n"
        "assert 'matplotlib' not in sys.modules, 'compute modules imported matplotlib'\n"
        "from clusterlab import viz\n"
        "for mod in ('matplotlib.pyplot', 'ipywidgets', 'mpl_font', 'IPython.display'):\n"
        "    assert mod not in sys.modules, mod\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and out.stderr == ""


def test_save_figure_is_byte_identical(tmp_path: Path) -> None:
    for fmt in ("png", "svg"):
        blobs = []
        for i in range(2):
            fig = Figure(figsize=(3, 2))
            fig.subplots().set_title(CJK_TITLE)
            blobs.append(viz.save_figure(fig, tmp_path / f"f{i}.{fmt}", dpi=50).read_bytes())
        assert blobs[0] == blobs[1], fmt
    with pytest.raises(ValueError, match="path"):
        viz.save_figure(Figure(), tmp_path / "f.jpg")


# --------------------------------------------------------------------------------------------------------
# ring pictures
# --------------------------------------------------------------------------------------------------------
def test_chunk_labels() -> None:
    assert viz.rank_letter(0) == "a" and viz.rank_letter(3) == "d"
    assert viz.chunk_label([True, False, True], 2) == "a₂+c₂"
    assert viz.chunk_label(np.array([False, True]), 11) == "b₁₁"


@pytest.mark.parametrize("n", [3, 4])
def test_ring_step_figure_text_mode_matches_trace(
    n: int, no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    tr = trace_of(n)
    total = 2 * (n - 1)
    for step in (0, 1, n - 1, n, total):
        fig = viz.ring_step_figure(tr, step, latency=5e-6, bandwidth=50e9)
        if step in (0, total):
            fig.canvas.draw()  # glyph warnings appear at draw time
        words = texts(fig)
        plt.close(fig)
        contrib = tr.contributions_after(step)
        expected = {viz.chunk_label(contrib[r, c], c) for r in range(n) for c in range(n)}
        assert expected <= set(words)
        assert f"第 {step} / {total} 步" in " ".join(words)
        phase = "初始输入" if step == 0 else ("归约-散播" if step <= n - 1 else "全收集")
        assert any(w.startswith(phase) for w in words)
        arrows = sorted(w for w in words if w.startswith("块 "))
        if step == 0:
            assert arrows == []
        else:
            assert arrows == sorted(f"块 {s.chunk}" for s in tr.steps[step - 1].sends)
        t = tr.time_after(step, 5e-6, 50e9)
        assert any(w.startswith("累计 α-β 时间") and w.endswith(fmt_seconds(t)) for w in words)
    full = {viz.chunk_label([True] * n, c) for c in range(n)}
    assert full <= expected  # after the last step every chunk is fully reduced


def test_ring_step_figure_colour_mode_n8(
    no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    tr = trace_of(8, 16)
    fig = viz.ring_step_figure(tr, 10)
    fig.canvas.draw()
    words = texts(fig)
    plt.close(fig)
    assert "全收集  All-Gather" in words
    assert "第 10 / 14 步（本阶段第 3 / 7 步）" in words
    arrows = sorted(w for w in words if w.startswith("块 "))
    assert arrows == sorted(f"块 {s.chunk}" for s in tr.steps[9].sends)
    assert not any("α-β" in w and "累计" in w for w in words)  # no time without latency and bandwidth


def test_bytes_panel_follows_trace(no_leak: None) -> None:
    tr = trace_of(4, 10)  # uneven chunks: 3, 3, 2, 2 elements
    step = 3
    fig = viz.ring_step_figure(tr, step)
    bars = fig.axes[2].containers[0]
    plt.close(fig)
    np.testing.assert_allclose(bars.datavalues, tr.bytes_sent_after(step))  # unit is B for 40-byte buffers


# --------------------------------------------------------------------------------------------------------
# animation
# --------------------------------------------------------------------------------------------------------
_TAG = re.compile(r"<(link|script)\b[^>]*>", re.IGNORECASE)


def external_refs(html: str) -> list[str]:
    """``<link>`` / ``<script>`` tags that would make the browser fetch something over http(s)."""
    remote = re.compile(r"(href|src)\s*=\s*[\"']?https?://", re.IGNORECASE)
    return [m.group(0) for m in _TAG.finditer(html) if remote.search(m.group(0))]


def frames_of(html: str) -> list[bytes]:
    found = re.findall(r'frames\[(\d+)\] = "data:image/png;base64,([^"]*)"', html)
    assert [int(i) for i, _ in found] == list(range(len(found)))
    return [base64.b64decode(data.replace("\\\n", "")) for _, data in found]


def test_ring_animation_n4_frames_size_offline(
    no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    tr = trace_of(4)
    anim = viz.ring_animation(tr, latency=5e-6, bandwidth=50e9)
    html = anim.data
    frames = frames_of(html)
    assert len(frames) == 2 * (4 - 1) + 1
    sizes = {Image.open(io.BytesIO(f)).size for f in frames}
    assert len(sizes) == 1  # every frame has the same pixel size
    assert len(html.encode()) <= 300_000
    assert external_refs(html) == []
    assert "maxcdn" not in html and "font-awesome" not in html
    assert re.search(r"[0-9a-f]{32}", re.sub(r"base64,[^\"]*", "", html)) is None  # no uuid4 left
    assert 'checked' in re.search(r'value="once"[^>]*>', html).group(0)  # type: ignore[union-attr]


def test_ring_animation_is_deterministic_and_keyed(no_leak: None) -> None:
    tr = trace_of(2, 4)
    a = viz.ring_animation_html(tr, dpi=50)
    b = viz.ring_animation_html(trace_of(2, 4), dpi=50)
    assert a == b
    assert len(frames_of(a)) == 3
    keyed = viz.ring_animation_html(tr, key="ring_n2", dpi=50)
    assert 'id="_anim_imgring_n2"' in keyed and "animring_n2 = new Animation" in keyed
    ids = re.findall(r'id="_anim_img(\w+)"', a)
    assert len(ids) == 1
    assert keyed == a.replace(ids[0], "ring_n2")


def test_anim_html_on_plain_to_jshtml() -> None:
    from matplotlib.animation import FuncAnimation

    fig = Figure(figsize=(1, 1), dpi=30)
    ax = fig.subplots()
    (line,) = ax.plot([0, 1], [0, 0])
    anim = FuncAnimation(fig, lambda i: [line.set_ydata([0, i])], frames=3, interval=100)
    raw = anim.to_jshtml(default_mode="once")
    assert "maxcdn" in raw  # what the post-processing removes
    out = viz.anim_html(raw, key="k1", colors=None)
    assert external_refs(out) == [] and "_anim_imgk1" in out
    assert len(frames_of(out)) == 3
    with pytest.raises(ValueError, match="raw"):
        viz.anim_html("<div>no animation</div>")
    with pytest.raises(ValueError, match="key"):
        viz.anim_html(raw, key="bad key!")
    with pytest.raises(ValueError, match="colors"):
        viz.anim_html(raw, colors=3)


# --------------------------------------------------------------------------------------------------------
# traffic charts
# --------------------------------------------------------------------------------------------------------
def test_naive_vs_ring_load_bars(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    size, n = 2e9, 8
    fig = viz.naive_vs_ring_load(size, n)
    fig.canvas.draw()
    ax_sent, ax_recv = fig.axes[:2]
    plt.close(fig)
    for ax in (ax_sent, ax_recv):
        naive, ring_bars = ax.containers[:2]
        np.testing.assert_allclose(naive.datavalues, [size * (n - 1) / GB] + [size / GB] * (n - 1))
        np.testing.assert_allclose(ring_bars.datavalues, [2 * size * (n - 1) / n / GB] * n)
    assert "GB" in ax_sent.get_ylabel()


def test_volume_and_time_vs_ranks_data(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    size, alpha, beta = 1e9, 5e-6, 50e9
    ns = [2, 4, 8, 16, 64, 1024]
    fig = viz.volume_and_time_vs_ranks(size, ns, alpha, beta)
    fig.canvas.draw()
    ax_v, ax_t = fig.axes[:2]
    plt.close(fig)
    vol = ax_v.get_lines()[0].get_ydata()
    np.testing.assert_allclose(vol, [2 * size * (n - 1) / n / GB for n in ns])
    assert ax_v.get_lines()[1].get_ydata()[0] == pytest.approx(2 * size / GB)  # the 2S asymptote
    total = ax_t.get_lines()[0].get_ydata()
    scale = 1e-3  # ms: the largest time here is 50 ms
    expected = [collectives.alpha_beta_time("all_reduce", size, n, alpha, beta) / scale for n in ns]
    np.testing.assert_allclose(total, expected)
    latency_band = ax_t.collections[1].get_paths()[0].vertices[:, 1].max()
    assert latency_band == pytest.approx(max(expected))  # the stack tops out at the total
    assert ax_t.get_xscale() == "log" and ax_v.get_xscale() == "log"
    assert "ms" in ax_t.get_ylabel()


# --------------------------------------------------------------------------------------------------------
# widget
# --------------------------------------------------------------------------------------------------------
def test_ring_explorer_redraws(no_leak: None) -> None:
    box = viz.ring_explorer(max_ranks=3, length=2)
    ranks, play, step = box.children[0].children
    picture = box.children[1]
    assert (ranks.min, ranks.max, ranks.value) == (2, 3, 3)
    assert step.max == play.max == 4
    first = bytes(picture.value)
    assert first.startswith(b"\x89PNG")
    step.value = 2
    assert bytes(picture.value) != first
    ranks.value = 2
    assert step.max == play.max == 2
    assert step.value == 2


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
def test_validation_errors_name_the_parameter(no_leak: None) -> None:
    tr3 = trace_of(3)
    cases = [
        (lambda: viz.ring_step_figure("trace", 0), "trace"),  # type: ignore[arg-type]
        (lambda: viz.ring_step_figure(trace_of(9), 0), "max_ranks"),
        (lambda: viz.ring_step_figure(tr3, 0, max_ranks=2), "max_ranks"),
        (lambda: viz.ring_step_figure(tr3, 0, max_ranks=99), "max_ranks"),
        (lambda: viz.ring_step_figure(tr3, -1), "step"),
        (lambda: viz.ring_step_figure(tr3, 5), "step"),
        (lambda: viz.ring_step_figure(tr3, 1.0), "step"),  # type: ignore[arg-type]
        (lambda: viz.ring_step_figure(tr3, True), "step"),
        (lambda: viz.ring_step_figure(tr3, 0, latency=1e-6), "bandwidth"),
        (lambda: viz.ring_step_figure(tr3, 0, bandwidth=1e9), "latency"),
        (lambda: viz.ring_step_figure(tr3, 0, latency=-1.0, bandwidth=1e9), "latency"),
        (lambda: viz.ring_step_figure(tr3, 0, latency=0.0, bandwidth=0.0), "bandwidth"),
        (lambda: viz.ring_step_figure(tr3, 0, title=3), "title"),  # type: ignore[arg-type]
        (lambda: viz.ring_animation(trace_of(9)), "max_ranks"),
        (lambda: viz.ring_animation(tr3, key="a b"), "key"),
        (lambda: viz.ring_animation(tr3, interval=0), "interval"),
        (lambda: viz.ring_animation(tr3, dpi=1000), "dpi"),
        (lambda: viz.naive_vs_ring_load(0.0, 4), "size"),
        (lambda: viz.naive_vs_ring_load(1e9, 1), "ranks"),
        (lambda: viz.naive_vs_ring_load(1e9, 33), "ranks"),
        (lambda: viz.naive_vs_ring_load(1e9, 2.5), "ranks"),  # type: ignore[arg-type]
        (lambda: viz.volume_and_time_vs_ranks(1e9, [], 1e-6, 1e9), "ranks_list"),
        (lambda: viz.volume_and_time_vs_ranks(1e9, [1, 2], 1e-6, 1e9), "ranks_list"),
        (lambda: viz.volume_and_time_vs_ranks(1e9, 8, 1e-6, 1e9), "ranks_list"),  # type: ignore[arg-type]
        (lambda: viz.volume_and_time_vs_ranks(-1.0, [2], 1e-6, 1e9), "size"),
        (lambda: viz.volume_and_time_vs_ranks(1e9, [2], -1e-6, 1e9), "latency"),
        (lambda: viz.volume_and_time_vs_ranks(1e9, [2], 1e-6, 0.0), "bandwidth"),
        (lambda: viz.ring_explorer(max_ranks=1), "max_ranks"),
        (lambda: viz.ring_explorer(max_ranks=17), "max_ranks"),
        (lambda: viz.ring_explorer(length=0), "length"),
        (lambda: viz.ring_explorer(dtype="bool"), "dtype"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()


# --------------------------------------------------------------------------------------------------------
# every collective primitive (clusterlab.communication.primitives traces, one engine)
# --------------------------------------------------------------------------------------------------------
from clusterlab.communication import primitives  # noqa: E402

PRIM_CASES = [(op, alg) for op in collectives.OPS for alg in primitives.ALGORITHMS[op]]
PHASE_WORDS = {
    "broadcast": "广播  Broadcast",
    "reduce": "归约  Reduce",
    "reduce_scatter": "归约-散播  Reduce-Scatter",
    "all_gather": "全收集  All-Gather",
    "all_to_all": "全交换  All-to-All",
    "send_recv": "点对点  Send/Recv",
}


def assert_texts_inside(fig: Figure) -> None:
    """No label runs off the figure (the canvas must have been drawn)."""
    box = fig.bbox
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ticks = {id(t) for ax in fig.axes for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]}
    for t in fig.findobj(Text):  # tick labels outside the view limits exist but are not drawn: skip ticks
        if t.get_text() and t.get_visible() and id(t) not in ticks:
            ext = t.get_window_extent(renderer)
            assert box.x0 - 1 <= ext.x0 and ext.x1 <= box.x1 + 1, t.get_text()
            assert box.y0 - 1 <= ext.y0 and ext.y1 <= box.y1 + 1, t.get_text()


def prim_trace(op: str, alg: str, n: int = 4) -> primitives.CollectiveTrace:
    length = 2 if op == "all_gather" else 2 * n
    return primitives.simulate(op, np.arange(n * length, dtype=np.float32).reshape(n, length), alg)


@pytest.mark.parametrize(("op", "alg"), PRIM_CASES)
def test_collective_step_figure_every_primitive(
    op: str, alg: str, no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    tr = prim_trace(op, alg)
    total = tr.num_steps
    for step in sorted({0, 1, (total + 1) // 2, total}):
        fig = viz.collective_step_figure(tr, step, latency=5e-6, bandwidth=50e9)
        if step in (0, total):
            fig.canvas.draw()  # glyph warnings appear at draw time
            assert_texts_inside(fig)
        words = texts(fig)
        bars = fig.axes[2].containers[0]
        plt.close(fig)
        joined = " ".join(words)
        assert f"第 {step} / {total} 步" in joined
        phase = "初始输入  Inputs" if step == 0 else PHASE_WORDS[tr.steps[step - 1].phase]
        assert phase in words
        title = "全归约 All-Reduce" if op == "all_reduce" else PHASE_WORDS[op].replace("  ", " ")
        assert any(w.startswith(title + "（") for w in words)
        np.testing.assert_allclose(bars.datavalues, tr.bytes_sent_after(step))  # bytes, unit B here
        t = tr.time_after(step, 5e-6, 50e9)
        assert any(w.startswith("累计 α-β 时间") and w.endswith(fmt_seconds(t)) for w in words)
        held = tr.contributions_after(step)
        sub = tr.slots > len(tr.groups)
        boxes = {viz.slot_label(held[r, c], int(tr.pieces[r, c]), subscript=sub)
                 for r in range(tr.ranks) for c in range(tr.slots)} - {""}
        assert boxes <= set(words)
        arrows = sorted(w for w in words if w.startswith("块 "))
        if step == 0:
            assert arrows == []
        elif sub and len(tr.groups) == 1:  # one buffer in chunks: arrows name the chunk
            assert arrows == sorted(f"块 {s.chunk}" for s in tr.steps[step - 1].sends)
        else:  # arrows name what the message holds
            before = tr.contributions_after(step - 1)
            for s in tr.steps[step - 1].sends:
                assert viz.slot_label(before[s.src, s.chunk], int(tr.pieces[s.src, s.chunk]), subscript=sub) in words


def test_collective_titles_and_counters(no_leak: None) -> None:
    tr = prim_trace("all_reduce", "tree")
    fig = viz.collective_step_figure(tr, 0)
    words = texts(fig)
    plt.close(fig)
    assert "全归约 All-Reduce（单棵二叉树，N = 4，S = 32 B）" in words
    assert "第 0 / 4 步（共 2⌈log₂N⌉ = 4 步）" in words
    fig = viz.collective_step_figure(prim_trace("broadcast", "chain"), 2, title="自定义")
    words = texts(fig)
    plt.close(fig)
    assert "自定义" in words and "第 2 / 5 步" in words
    assert not any("本阶段" in w for w in words)  # one phase: no phase counter


def test_tree_layout_puts_parents_above_children(no_leak: None) -> None:
    tr = prim_trace("all_reduce", "tree", 7)
    fig = viz.collective_step_figure(tr, 0, latency=1e-6, bandwidth=1e9)
    fig.canvas.draw()
    assert_texts_inside(fig)
    plt.close(fig)
    fig = viz.collective_step_figure(tr, 1)
    heads = {t.get_text(): t.get_position() for t in fig.findobj(Text) if t.get_text().startswith("rank ")}
    plt.close(fig)
    tree = tr.tree
    assert tree is not None
    for r in range(7):
        if tree.parent[r] >= 0:
            child = heads[f"rank {r} · {viz.rank_letter(r)}"]
            parent = heads[f"rank {tree.parent[r]} · {viz.rank_letter(tree.parent[r])}"]
            assert parent[1] > child[1]
    xs = sorted(heads[f"rank {r} · {viz.rank_letter(r)}"][0] for r in range(7) if not tree.children[r])
    assert xs == sorted(set(xs))  # leaves never share a column


def test_collective_step_figure_accepts_ring_trace(no_leak: None) -> None:
    tr = trace_of(4)
    a = viz.ring_step_figure(tr, 3)
    b = viz.collective_step_figure(tr, 3)
    wa, wb = texts(a), texts(b)
    plt.close(a)
    plt.close(b)
    only_a, only_b = set(wa) - set(wb), set(wb) - set(wa)  # only the titles differ
    assert only_a == {"环形 All-Reduce（N = 4，S = 32 B）"} and only_b == {"全归约 All-Reduce（环形，N = 4，S = 32 B）"}
    assert len(wa) == len(wb)


def test_collective_animation_frames_offline(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    tr = prim_trace("all_to_all", "pairwise", 3)
    html = viz.collective_animation(tr, latency=5e-6, bandwidth=50e9, dpi=50).data
    frames = frames_of(html)
    assert len(frames) == tr.num_steps + 1 == 3
    assert len({Image.open(io.BytesIO(f)).size for f in frames}) == 1
    assert all(Image.open(io.BytesIO(f)).mode == "P" for f in frames)  # palette-compressed
    assert external_refs(html) == [] and "maxcdn" not in html and "font-awesome" not in html
    assert re.search(r"[0-9a-f]{32}", re.sub(r"base64,[^\"]*", "", html)) is None  # no uuid4 left


def test_collective_animation_is_deterministic_and_keyed(no_leak: None) -> None:
    tr = prim_trace("all_reduce", "tree", 2)
    html = viz.collective_animation_html(tr, dpi=40)
    assert len(frames_of(html)) == tr.num_steps + 1 == 3
    assert viz.collective_animation_html(prim_trace("all_reduce", "tree", 2), dpi=40) == html
    keyed = viz.collective_animation_html(tr, dpi=40, key="prim_1")
    ids = re.findall(r'id="_anim_img(\w+)"', html)
    assert len(ids) == 1 and keyed == html.replace(ids[0], "prim_1")


def test_collective_validation(no_leak: None) -> None:
    tr = prim_trace("broadcast", "chain")
    cases = [
        (lambda: viz.collective_step_figure("trace", 0), "trace"),  # type: ignore[arg-type]
        (lambda: viz.collective_step_figure(prim_trace("all_to_all", "pairwise", 9), 0), "max_ranks"),
        (lambda: viz.collective_step_figure(tr, 0, max_ranks=17), "max_ranks"),
        (lambda: viz.collective_step_figure(tr, 6), "step"),
        (lambda: viz.collective_step_figure(tr, 0, latency=1e-6), "bandwidth"),
        (lambda: viz.collective_step_figure(tr, 0, title=1), "title"),  # type: ignore[arg-type]
        (lambda: viz.collective_animation(tr, key="a-b"), "key"),
        (lambda: viz.collective_animation(tr, interval=50), "interval"),
        (lambda: viz.collective_animation(tr, dpi=10), "dpi"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()


def test_slot_label_compacts_long_runs() -> None:
    assert viz.slot_label([True, True, False, True], 1) == "a₁+b₁+d₁"
    assert viz.slot_label([True] * 3, 0, subscript=False) == "a+b+c"
    assert viz.slot_label([False, True, True, True, True, True, True], 0, subscript=False) == "b…g"
    assert viz.slot_label([True, True, False, True, True, True, False, True], 2) == "a₂+b₂+d₂…f₂+h₂"
    assert viz.slot_label([False] * 3, 0) == ""
