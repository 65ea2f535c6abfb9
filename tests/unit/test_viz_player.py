"""The animation player: Chinese controls, a layout that fits a narrow column, byte-identical output."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from clusterlab import viz
from clusterlab.communication import ring
from clusterlab.viz import _anim


@pytest.fixture(scope="module")
def player() -> str:
    trace = ring.simulate_all_reduce(np.arange(12, dtype=np.float32).reshape(3, 4))
    return viz.ring_animation_html(trace, key="player_test")


def test_controls_are_chinese(player: str) -> None:
    tooltips = re.findall(r'title="([^"]*)"', player)
    assert tooltips == ["减速", "第一帧", "上一帧", "倒放", "暂停", "播放", "下一帧", "最后一帧", "加速", "播放方式"]
    assert re.findall(r'aria-label="([^"]*)"', player) == tooltips
    assert re.findall(r"<label for=\"_anim_radio\d_player_test\">([^<]*)</label>", player) == ["单次", "循环", "往返"]
    for english in ("Once", "Loop", "Reflect", "Play", "Pause", "Decrease speed", "Increase speed"):
        assert f'"{english}"' not in player and f">{english}<" not in player


def test_layout_fits_a_narrow_column(player: str) -> None:
    (style,) = re.findall(r"<style>(.*?)</style>", player, re.DOTALL)
    rules = dict(re.findall(r"([^{}\n]+)\{([^}]*)\}", style))
    assert "max-width:100%" in rules[".animation"]
    assert "max-width:100%" in rules[".animation img"] and "height:auto" in rules[".animation img"]
    assert "max-width:100%" in rules["input[type=range].anim-slider"]
    assert "flex-wrap:wrap" in rules[".anim-buttons"] and "flex-wrap:wrap" in rules[".anim-state"]
    assert "font-awesome" not in player and "maxcdn" not in player  # offline


def test_player_is_deterministic(player: str) -> None:
    trace = ring.simulate_all_reduce(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert viz.ring_animation_html(trace, key="player_test") == player
    assert _anim.localise_player(player) == player  # idempotent


def test_localise_player_rejects_other_html() -> None:
    with pytest.raises(ValueError, match="html"):
        _anim.localise_player("<div>no player</div>")
