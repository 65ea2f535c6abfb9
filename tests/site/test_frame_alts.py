"""Every animation frame of the built site has its own text alternative, written from the frame's data: the player's
image carries one text per frame (``data-alts``, the first also as ``alt``), each says which step or moment the
frame shows with its numbers, and no two neighbouring frames say the same numbers (static checks of the HTML; the
browser test that the text follows the frame on screen is tests/browser/test_accessibility.py)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
PLAYER = re.compile(r'<div class="animation">\s*(<img id="_anim_img(\w+)"[^>]*>)')
NUMBER = re.compile(r"\d+(?:\.\d+)?")

pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def players() -> list[tuple[str, str, str, list[str], int]]:
    """(page, player id, alt, data-alts, number of frames) of every animation of the site."""
    out = []
    for path in sorted(HTML.rglob("*.html")):
        rel = path.relative_to(HTML).as_posix()
        if rel.startswith("_"):
            continue
        text = path.read_text(encoding="utf-8")
        for m in PLAYER.finditer(text):
            tag, key = m.group(1), m.group(2)
            alt = re.search(r'\balt="([^"]*)"', tag)
            listed = re.search(r'\bdata-alts="([^"]*)"', tag)
            script = text[m.end():].split("</script>", 1)[0]  # the player's frames follow its controls
            frames = len(re.findall(r'frames\[\d+\] = "data:image/', script))
            out.append((rel, key, html.unescape(alt.group(1)) if alt else "",
                        json.loads(html.unescape(listed.group(1))) if listed else [], frames))
    return out


def test_every_frame_has_its_own_text():
    found = players()
    assert len(found) >= 9, f"only {len(found)} animations found"
    for rel, key, alt, alts, frames in found:
        where = f"{rel} #{key}"
        assert frames >= 2, f"{where}: {frames} frames"
        assert len(alts) == frames, f"{where}: {len(alts)} texts for {frames} frames"
        assert alt == alts[0], f"{where}: the image's alt is not the first frame's text"
        for i, text in enumerate(alts):
            assert re.search(r"[\u4e00-\u9fff]", text) and NUMBER.search(text), f"{where} frame {i + 1}: {text!r}"
        for i in range(1, frames):
            assert NUMBER.findall(alts[i]) != NUMBER.findall(alts[i - 1]), (
                f"{where}: frames {i} and {i + 1} say the same numbers: {alts[i]!r}")


def test_each_text_names_its_own_step_or_moment():
    """A collective's frame k says "第 k / T 步"; a time line's frame says its moment "t = … ms", later each frame."""
    for rel, key, _, alts, _ in players():
        assert alts, f"{rel} #{key}: no texts for its frames"
        if all(t.startswith("第 ") for t in alts):
            total = len(alts) - 1
            assert [t.split("，", 1)[0] for t in alts] == [f"第 {k} / {total} 步" for k in range(len(alts))], (rel, key)
        else:
            times = [float(m.group(1)) for m in (re.search(r"t = (\d+(?:\.\d+)?) ms", t) for t in alts) if m]
            assert len(times) == len(alts) and times == sorted(times) and len(set(times)) == len(times), (rel, key)
