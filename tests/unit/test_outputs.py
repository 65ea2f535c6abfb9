"""clusterlab.book.outputs: stored figures compared by RMS pixel difference, animation HTML frame by frame."""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from clusterlab.book import outputs


def _png(y: np.ndarray, *, label: str = "a", lw: float = 1.5, size: tuple[float, float] = (6.4, 3.9)) -> str:
    fig, ax = plt.subplots(figsize=size, dpi=120)
    ax.semilogx(np.linspace(1, 100, y.size), y, lw=lw, label=label)
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


Y = np.log(np.linspace(1, 100, 50))


def test_last_bit_changes_pass_and_visible_changes_fail() -> None:
    base = _png(Y)
    assert outputs.same_image(base, base)
    assert outputs.image_rms(base, _png(Y * (1 + 4e-16))) <= outputs.IMAGE_RMS_TOL
    for changed in (_png(Y * 1.002), _png(Y, label="b"), _png(Y, lw=1.6),
                    _png(np.where(np.arange(50) == 25, Y * 1.05, Y))):
        assert not outputs.same_image(base, changed)
    assert outputs.image_rms(base, _png(Y, size=(6.4, 4.0))) == float("inf")
    assert not outputs.same_image(base, "not a png")


def test_html_frames_compared_as_images() -> None:
    a, b, c = _png(Y), _png(Y * (1 + 4e-16)), _png(Y * 1.01)
    page = '<div id="x"><img src="data:image/png;base64,{}"><img src="data:image/png;base64,{}"></div>'
    assert outputs.same_html(page.format(a, a), page.format(b, a))
    assert not outputs.same_html(page.format(a, a), page.format(c, a))
    assert not outputs.same_html(page.format(a, a), page.format(a, a).replace("x", "y"))


def test_images_of_finds_shown_and_glued_figures() -> None:
    outs = [{"data": {"image/png": "AAA", "text/plain": "<Figure>"}},
            {"data": {"application/papermill.record/image/png": "BBB"}}, {"text": "hi"}]
    assert outputs.images_of(outs) == [("image/png", "AAA"), ("application/papermill.record/image/png", "BBB")]
