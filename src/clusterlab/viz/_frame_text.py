"""What a frame of a collective's animation says, in words: the rule line of its side panel, the labels of its
arrows, and its text alternative (:func:`collective_frame_text`), all read from the scene the frame is drawn from.

The text alternative is one short Chinese sentence per state, built from the same numbers the picture shows: the
step counter and phase, the sends of the step (who sends which piece to whom, and how many bytes), how many boxes
are complete (all N inputs, for reductions) or hold data, the cumulative α-β time when it is shown, and the bytes
the busiest rank has sent so far. Nothing here draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..communication.trace import CollectiveTrace, Send
from ..units import fmt_bytes, fmt_seconds
from ._scene import _PHASE, TEXT_MODE_MAX
from ._style import byte_unit

if TYPE_CHECKING:
    from ._scene import _Scene

__all__ = ["arrow_text", "collective_frame_text", "phase_key", "rule"]

_PLAIN_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
#: at most this many sends are listed one by one in a frame's text (beyond: their number only)
_LISTED_SENDS = 8
#: at most this many complete boxes are named one by one
_LISTED_BOXES = 4


def phase_key(tr: CollectiveTrace, step: int) -> str:
    return "inputs" if step == 0 else tr.steps[step - 1].phase


def rule(tr: CollectiveTrace, key: str) -> str:
    """The rule of phase ``key`` (``"inputs"`` for the start), as the side panel prints it."""
    c = tr.slots
    if key == "inputs":
        if tr.op in ("all_reduce", "reduce_scatter") and tr.algorithm == "ring":
            return "缓冲区切成 N 块；a₂ = rank 0（a）输入的第 2 块"
        if tr.op == "all_reduce":
            key = "b…f = b+c+d+e+f" if tr.ranks > TEXT_MODE_MAX else "a+b = a、b 两份输入之和"
            return f"部分和逐层加到根，再逐层发回；{key}"
        if tr.op == "broadcast":
            return f"根 rank {tr.root} 的消息切成 c = {c} 块，沿链逐块向下游转发"
        if tr.op == "reduce":
            return f"缓冲区切成 c = {c} 块，沿链逐块加向根 rank {tr.root}"
        if tr.op == "all_gather":
            return "每个 rank 只有自己的一块；b₁ = rank 1（b）的那块"
        if tr.op == "all_to_all":
            return "发送缓冲的第 j 块归 rank j；a₁ = a 要给 rank 1 的块"
        return f"rank {tr.root} 把整个缓冲区发给 rank {tr.peer}"
    tree = tr.algorithm == "tree"
    rules = {
        "reduce_scatter": "接收方把收到的块加到自己的副本上（+=）",
        "all_gather": "接收方用收到的完整块覆盖自己的副本（=）",
        "broadcast": "父节点把完整结果发给子节点，子节点覆盖（=）" if tree
        else "接收方存下收到的块（=），下一步转发给下游",
        "reduce": "子节点把部分和发给父节点，父节点相加（+=）" if tree
        else "接收方把部分和加到自己的块上（+=），再往根传",
        "all_to_all": "第 s 步：rank r 把给 rank r+s 的块直接发过去",
        "send_recv": "接收方存下整条消息（=）",
    }
    return rules[key]


def arrow_text(scene: _Scene, step: int, snd: Send) -> str:
    """The label of the arrow of ``snd`` in state ``step``: the chunk number, or what the sent box holds."""
    if scene.chunked:
        return f"块 {snd.chunk}"
    return scene.labels[step - 1][snd.src][snd.chunk]


def _sends(scene: _Scene, step: int) -> str:
    st = scene.tr.steps[step - 1]
    sizes = {s.nbytes for s in st.sends}
    unit = byte_unit(max(sizes) if max(sizes) > 0 else 1.0)
    count = f"{len(st.sends)} 条消息"
    if len(sizes) == 1:
        size = fmt_bytes(next(iter(sizes)), unit)
        count += f"（{size}）" if len(st.sends) == 1 else f"，每条 {size}"
    if len(st.sends) > _LISTED_SENDS:
        return count
    listed = "、".join(f"rank {s.src}→{s.dst}（{arrow_text(scene, step, s).translate(_PLAIN_DIGITS)}）"
                       for s in st.sends)
    return f"{count}：{listed}"


def _boxes(scene: _Scene, step: int) -> str:
    tr = scene.tr
    n, slots = tr.ranks, tr.slots
    counts = scene.held[step].sum(axis=2)  # [rank, slot] → how many inputs the box holds
    if not scene.reducing:
        if len(tr.groups) > 1:  # a send and a receive buffer: what has arrived is in the receive buffer
            per = slots // len(tr.groups)
            recv = counts[:, per * (len(tr.groups) - 1):]
            return f"接收缓冲里有数据的块 {int((recv > 0).sum())} / {recv.size}"
        return f"有数据的块 {int((counts > 0).sum())} / {n * slots}"
    if slots == 1:
        done = [r for r in range(n) if int(counts[r, 0]) == n]
        out = f"已得到全部 {n} 份输入之和的 rank {len(done)} / {n}"
        if 0 < len(done) < n:
            out += "（" + "、".join(f"rank {r}" for r in done) + "）"
        return out
    full = [(r, c) for r in range(n) for c in range(slots) if int(counts[r, c]) == n]
    out = f"归约完成（含全部 {n} 份输入）的块 {len(full)} / {n * slots}"
    if 0 < len(full) <= _LISTED_BOXES:
        by_rank: dict[int, list[str]] = {}
        for r, c in full:
            by_rank.setdefault(r, []).append(str(int(tr.pieces[r, c])))
        out += "（" + "；".join(f"rank {r} 的块 {'、'.join(p)}" for r, p in by_rank.items()) + "）"
    return out


def collective_frame_text(scene: _Scene, step: int, cost: tuple[float, float] | None) -> str:
    """The text alternative of state ``step`` of ``scene`` (``cost`` = (α, β) when the frame shows the time)."""
    tr = scene.tr
    total = tr.num_steps
    zh = _PHASE[phase_key(tr, step)][0]
    if step == 0:
        parts = [f"第 0 / {total} 步，{zh}：{rule(tr, 'inputs').translate(_PLAIN_DIGITS)}"]
    else:
        st = tr.steps[step - 1]
        head = f"第 {step} / {total} 步，{zh}"
        if len(tr.phases) > 1:
            head += f"（本阶段第 {st.phase_step + 1} / {tr.phase_length(st.phase)} 步）"
        parts = [f"{head}：{_sends(scene, step)}"]
    parts.append(_boxes(scene, step))
    if cost is not None:
        parts.append(f"累计 α-β 时间 {fmt_seconds(tr.time_after(step, *cost))}")
    sent = tr.bytes_sent_after(step)
    top = float(tr.bytes_sent.max())
    unit = byte_unit(top if top > 0 else 1.0)
    parts.append(f"发送最多的 rank 已发 {fmt_bytes(float(sent.max()), unit)}（全程 {fmt_bytes(top, unit)}）")
    return "；".join(parts) + "。"
