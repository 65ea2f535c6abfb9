"""The matplotlib (jshtml) animation player steps when its next-frame button is clicked."""

from __future__ import annotations

PAGE = "part2/02-ring-allreduce.html"


def test_next_frame_button_steps_the_animation(new_page):
    page = new_page()
    page.goto(PAGE)
    page.errors.clear()  # page-load errors are reported by test_pages
    player = page.locator("div.animation").first
    img, slider = player.locator("img"), player.locator("input.anim-slider")
    first_src, first_frame = img.get_attribute("src"), slider.input_value()
    assert first_src and first_src.startswith("data:image/")
    player.locator("button[onclick$='.next_frame()']").click()  # whatever its label
    assert slider.input_value() == str(int(first_frame) + 1)
    assert img.get_attribute("src") != first_src
    assert not page.errors
