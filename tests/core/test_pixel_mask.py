"""``bridge.core.pixel_mask``: which nodes hold a secret, and black rectangles scaled from the
tree's units to the picture's pixels; nothing to mask returns the very same bytes."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageStat

from bridge.core.pixel_mask import (
    CLEAR,
    HOLD,
    MARGIN,
    MaskPlan,
    black_out,
    black_out_rgb,
    holds_a_value,
    paint_black,
    pixel_boxes,
    secret_regions,
)
from bridge.core.secret_mask import MASK
from bridge.wire.enums import Role
from bridge.wire.node import NodeState, SemanticNode


def white_png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(out, format="PNG")
    return out.getvalue()


def mean(png: bytes, box: tuple[int, int, int, int]) -> float:
    with Image.open(io.BytesIO(png)) as image:
        return float(ImageStat.Stat(image.convert("L").crop(box)).mean[0])


def test_password_and_masked_fields_are_secret_regions() -> None:
    nodes = [
        SemanticNode(node_id="n0", role=Role.UNKNOWN, bounds=(0, 0, 100, 200)),
        SemanticNode(node_id="n1", role=Role.INPUT, text=MASK, bounds=(10, 10, 90, 30)),
        SemanticNode(
            node_id="n2",
            role=Role.INPUT,
            bounds=(10, 40, 90, 60),
            state=NodeState(password=True),
        ),
        SemanticNode(node_id="n3", role=Role.TEXT, text="Hello", bounds=(10, 70, 90, 90)),
        SemanticNode(node_id="n4", role=Role.INPUT, value=MASK),  # no bounds: nothing to paint
    ]
    assert secret_regions(nodes) == ((10, 10, 90, 30), (10, 40, 90, 60))


def test_regions_are_scaled_to_the_picture_and_nothing_else_changes() -> None:
    png = white_png(200, 400)  # a 2x picture of a 100 x 200 screen
    out = black_out(png, [(10, 10, 90, 30)], (0, 0, 100, 200))
    assert mean(out, (24, 24, 176, 56)) == 0  # the field, in picture pixels
    assert mean(out, (0, 100, 200, 400)) == 255  # the rest untouched
    assert black_out(png, [], (0, 0, 100, 200)) is png


def test_only_a_secret_field_with_something_in_it_holds_a_value() -> None:
    box = (0, 0, 100, 40)
    empty = SemanticNode(node_id="p", role=Role.INPUT, bounds=box, hint="Password",
                         state=NodeState(password=True))  # fmt: skip
    dots = SemanticNode(node_id="q", role=Role.INPUT, bounds=box, text="••••",
                        state=NodeState(password=True))  # fmt: skip
    typed = SemanticNode(node_id="u", role=Role.INPUT, bounds=box, text=MASK)
    plain = SemanticNode(node_id="t", role=Role.INPUT, bounds=box, text="hello")
    offscreen = SemanticNode(node_id="o", role=Role.INPUT, text=MASK)
    assert not holds_a_value([empty, plain, offscreen])
    assert secret_regions([empty]) == (box,), "an empty password field is still masked"
    assert holds_a_value([empty, dots])
    assert holds_a_value([plain, typed])


def test_pixel_boxes_scale_offset_grow_by_the_margin_and_clamp_to_the_picture() -> None:
    # a 2x picture of a screen whose root starts at (100, 50): 100 x 200 units
    screen = (100, 50, 200, 250)
    assert pixel_boxes(200, 400, [(110, 60, 150, 70)], screen) == [
        (20 - MARGIN, 20 - MARGIN, 100 + MARGIN, 40 + MARGIN)
    ]
    # a fractional right/bottom edge is rounded out, the left/top edge down
    assert pixel_boxes(300, 300, [(0, 0, 1, 1)], (0, 0, 2, 2)) == [
        (0, 0, 150 + MARGIN, 150 + MARGIN)
    ]
    assert pixel_boxes(300, 300, [(1, 1, 2, 2)], (0, 0, 3, 3)) == [
        (100 - MARGIN, 100 - MARGIN, 200 + MARGIN, 200 + MARGIN)
    ]
    # clamped to the picture (inclusive boxes end at width - 1 / height - 1)
    assert pixel_boxes(50, 40, [(0, 0, 500, 400)], None) == [(0, 0, 49, 39)]
    # no screen, or a degenerate one: the regions are the picture's own pixels
    for degenerate in (None, (0, 0, 0, 10), (0, 0, 10, 0), (5, 5, 4, 9)):
        assert pixel_boxes(100, 100, [(10, 20, 30, 40)], degenerate) == [
            (10 - MARGIN, 20 - MARGIN, 30 + MARGIN, 40 + MARGIN)
        ]
    # a region wholly outside the picture leaves no box; boxes keep the regions' order
    assert pixel_boxes(100, 100, [(300, 300, 400, 400)], None) == []
    assert pixel_boxes(100, 100, [(50, 50, 60, 60), (0, 0, 5, 5)], None) == [
        (48, 48, 62, 62),
        (0, 0, 7, 7),
    ]


def test_paint_black_paints_every_mode_black_inside_and_nothing_outside() -> None:
    for mode, white, black in (
        ("L", 255, 0),
        ("RGB", (255, 255, 255), (0, 0, 0)),
        ("RGBA", (255, 255, 255, 255), (0, 0, 0, 255)),
    ):
        image = Image.new(mode, (40, 30), white)
        paint_black(image, [(10, 10, 20, 20)], None)
        assert image.getpixel((15, 15)) == black, mode
        assert image.getpixel((10 - MARGIN, 10 - MARGIN)) == black, mode
        assert image.getpixel((20 + MARGIN, 20 + MARGIN)) == black, mode
        assert image.getpixel((10 - MARGIN - 1, 15)) == white, mode
        assert image.getpixel((15, 20 + MARGIN + 1)) == white, mode


def test_black_out_rgb_paints_packed_pixels_and_returns_the_same_bytes_when_clear() -> None:
    width, height = 8, 6
    rgb = bytes([200, 100, 50]) * (width * height)
    assert black_out_rgb(width, height, rgb, [], None) is rgb
    out = black_out_rgb(width, height, rgb, [(4, 2, 5, 3)], (0, 0, width, height))
    assert len(out) == len(rgb)

    def pixel(x: int, y: int) -> bytes:
        at = (y * width + x) * 3
        return out[at : at + 3]

    assert pixel(4, 2) == b"\0\0\0"
    assert pixel(4 - MARGIN, 2 - MARGIN) == b"\0\0\0"
    assert pixel(0, 5) == bytes([200, 100, 50])
    assert pixel(1, 0) == bytes([200, 100, 50])  # left of the grown box (4 - 2 = 2)
    assert pixel(7, 5) == b"\0\0\0"  # the grown box's far corner (5 + 2, 3 + 2)
    assert sum(1 for i in range(0, len(out), 3) if out[i : i + 3] == b"\0\0\0") == (
        (min(width - 1, 5 + MARGIN) - max(0, 4 - MARGIN) + 1)
        * (min(height - 1, 3 + MARGIN) - max(0, 2 - MARGIN) + 1)
    )


def test_black_out_keeps_the_pictures_mode_and_size_and_reads_a_palette_png() -> None:
    for mode, white in (("L", 255), ("RGB", (255, 255, 255)), ("P", 0)):
        image = Image.new(mode, (60, 40), white)
        if mode == "P":
            image.putpalette([255, 255, 255] + [0, 0, 0] * 255)
        raw = io.BytesIO()
        image.save(raw, format="PNG")
        out = black_out(raw.getvalue(), [(10, 10, 20, 20)], None)
        with Image.open(io.BytesIO(out)) as back:
            assert back.size == (60, 40)
            assert back.mode == ("RGBA" if mode == "P" else mode)
        assert mean(out, (10, 10, 21, 21)) == 0
        assert mean(out, (30, 0, 60, 40)) == 255


def test_a_secret_in_a_label_or_hint_counts_and_empty_bounds_do_not() -> None:
    label = SemanticNode(node_id="a", role=Role.INPUT, label=MASK, bounds=(0, 0, 10, 10))
    hint = SemanticNode(node_id="b", role=Role.INPUT, hint=MASK, bounds=(0, 10, 10, 20))
    flat = SemanticNode(node_id="c", role=Role.INPUT, text=MASK, bounds=(0, 0, 10, 0))
    thin = SemanticNode(node_id="d", role=Role.INPUT, text=MASK, bounds=(5, 0, 5, 10))
    assert secret_regions([label, hint, flat, thin]) == ((0, 0, 10, 10), (0, 10, 10, 20))
    # a secret only in a label or hint holds no value to protect while the screen moves
    assert not holds_a_value([label, hint])
    assert holds_a_value([flat])  # a typed secret's field counts even when drawn flat


def test_mask_plans_unite_holds_and_regions_without_repeats() -> None:
    one = MaskPlan(regions=((0, 0, 1, 1),), screen=(0, 0, 10, 10))
    two = MaskPlan(regions=((0, 0, 1, 1), (2, 2, 3, 3)), screen=(0, 0, 20, 20))
    assert CLEAR.clear and not HOLD.clear and not one.clear
    assert one.union(HOLD) is HOLD and HOLD.union(one) is HOLD
    assert one.union(CLEAR) is one and CLEAR.union(one) is one
    both = one.union(two)
    assert both.regions == ((0, 0, 1, 1), (2, 2, 3, 3))
    assert both.screen == (0, 0, 10, 10) and not both.hold
    assert MaskPlan(regions=((0, 0, 1, 1),)).union(two).screen == (0, 0, 20, 20)


def test_a_scan_against_the_last_looks_again_only_at_replaced_nodes_and_agrees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``scan_secrets`` with the previous scan gives what a whole scan gives, whatever was
    replaced, added or removed; an unchanged node object is not looked at again."""
    import random

    from bridge.core import pixel_mask
    from bridge.core.pixel_mask import scan_secrets

    rng = random.Random(7)

    def node(i: int) -> SemanticNode:
        kind = rng.randrange(6)
        bounds = None if kind == 5 else (0, i, rng.choice([0, 50]), i + 10)
        return SemanticNode(
            node_id=f"n{i}",
            role=Role.INPUT,
            bounds=bounds,
            text=MASK if kind == 1 else rng.choice(["", "hi", None]),
            value=MASK if kind == 2 else None,
            state=NodeState(password=True) if kind == 3 else None,
        )

    nodes = [node(i) for i in range(60)]
    scan = scan_secrets(nodes)
    for _ in range(200):
        nodes = list(nodes)
        for _ in range(rng.randrange(4)):
            i = rng.randrange(len(nodes))
            nodes[i] = node(i)
        if rng.random() < 0.1:
            nodes.append(node(len(nodes)))
        scan = scan_secrets(nodes, scan)
        assert scan.regions == secret_regions(nodes)
        assert scan.filled == holds_a_value(nodes)
        assert scan.held == scan_secrets(nodes).held

    looked: list[str] = []
    real = pixel_mask.holds_secret

    def counting(n: SemanticNode) -> bool:
        looked.append(n.node_id)
        return real(n)

    monkeypatch.setattr(pixel_mask, "holds_secret", counting)
    same = scan_secrets(nodes, scan)
    assert same.held == scan.held and looked == [], "unchanged objects are not looked at"
    changed = list(nodes)
    changed[3] = SemanticNode(node_id="x", role=Role.INPUT, bounds=(0, 0, 9, 9), text=MASK)
    assert 3 in scan_secrets(changed, scan).held and looked == ["x"]
