"""The quick forms of what numpy computed on every line crop give numpy's very values and
types: a median and the ink level's percentiles from one partition
(``bridge.vision.inks.median_of``, ``_level_stats``), the detector's input scaled by OpenCV's
table lookup (``bridge.vision.ppocr.PpOcrEngine.detect``) and a line's characters picked
where the class changes (``PpOcrEngine._chars``) rather than column by column."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.skips import need_vision

pytestmark = need_vision


def _numpy_levels(grey: Any) -> tuple[float, Any, Any]:
    import numpy as np

    from bridge.vision.inks import EXTREME

    dark, light = np.percentile(grey, (EXTREME, 100 - EXTREME))
    return float(np.median(grey)), dark, light


def _same(got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    assert got == want
    assert [type(v) for v in got] == [type(v) for v in want]


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(1, 2500),
    kind=st.sampled_from(["grey", "noise", "few", "float64"]),
    seed=st.integers(0, 2**32 - 1),
    rows=st.booleans(),
)
def test_the_median_and_percentiles_are_numpys_bit_for_bit(
    size: int, kind: str, seed: int, rows: bool
) -> None:
    import numpy as np

    from bridge.vision.inks import _level_stats, median_of

    rng = np.random.default_rng(seed)
    grey: Any
    if kind == "grey":  # a line crop's grey levels: the mean of three integer channels
        rgb = rng.integers(0, 256, (size, 3)).astype(np.float32)
        grey = (rgb[:, 0] + rgb[:, 1] + rgb[:, 2]) / 3
    elif kind == "noise":
        grey = rng.random(size, dtype=np.float32) * 255
    elif kind == "few":  # ties everywhere: a flat background and one ink level
        grey = rng.integers(0, 3, size).astype(np.float32) * 120
    else:
        grey = rng.random(size) * 255
    if rows and size % 3 == 0:
        grey = grey.reshape(3, -1)
    before = grey.copy()
    _same(_level_stats(grey), _numpy_levels(grey))
    assert median_of(grey) == float(np.median(grey))
    assert np.array_equal(grey, before), "the caller's levels are left in their order"


def test_other_dtypes_are_left_to_numpy() -> None:
    import numpy as np

    from bridge.vision.inks import _level_stats, median_of

    values = np.array([3, 8, 1, 200, 7, 9], dtype=np.uint8)  # numpy's mean of 7 and 8: 7.5
    assert median_of(values) == 7.5 == float(np.median(values))
    _same(_level_stats(values), _numpy_levels(values))


def test_a_level_made_from_a_percentile_stays_float64() -> None:
    """The reason the percentiles stay numpy float64 scalars: float32 grey levels compared
    with one are compared in float64, with a Python float in float32 (numpy's rule for a
    Python scalar), and a pixel next to the level can change sides. A real line, ``46%``
    on a rain chart, got a wider box from a first version that returned Python floats."""
    import numpy as np

    from bridge.vision.inks import _ink_level

    rng = np.random.default_rng(3)
    grey = np.full((48, 41), 231.0, dtype=np.float32)
    grey[16:32, 4:37] = rng.integers(15, 40, (16, 33)).astype(np.float32) / 3 + 10
    dark, level = _ink_level(grey)
    assert dark and type(level) is np.float64  # (middle + the 3rd percentile) / 2
    light = 255 - grey
    dark, level = _ink_level(light)
    assert not dark and type(level) is np.float64


def test_the_detectors_input_is_the_arithmetic() -> None:
    import cv2
    import numpy as np

    from bridge.vision.ppocr import _levels

    rng = np.random.default_rng(7)
    levels = rng.integers(0, 256, (3, 96, 160), dtype=np.uint8)
    arithmetic = (levels.astype(np.float32) / 255.0 - 0.5) / 0.5
    looked_up = cv2.LUT(levels.reshape(3 * 96, 160), _levels()).reshape(1, 3, 96, 160)
    assert looked_up.dtype == np.float32
    assert np.array_equal(looked_up[0], arithmetic)


def _column_by_column(prob: Any, columns: float, model: Any) -> list[tuple[int, str, float]]:
    """A line's characters as CTC decoding states them, column after column: a class that
    is not the blank and not the class of the column before it."""
    import numpy as np

    from bridge.vision.ppocr import ACCENT, plain_letter

    allowed = prob[: max(1, round(columns)), model.allowed_index]
    pick = allowed.argmax(axis=1)
    index = model.allowed_index[pick]
    best = allowed[np.arange(len(pick)), pick]
    chars: list[tuple[int, str, float]] = []
    previous = 0
    for col, k in enumerate(index.tolist()):
        if k not in (0, previous):
            char = model.chars[k]
            if len(char) > 1 and chars and chars[-1][1] == char[0]:
                chars.pop()
            if best[col] < ACCENT and not char.isascii() and char.isalpha():
                char = plain_letter(char)
            chars.append((col, char, float(best[col])))
        previous = k
    return chars


@pytest.mark.parametrize("seed", range(40))
def test_a_lines_characters_are_those_of_column_by_column_decoding(seed: int) -> None:
    import numpy as np

    from bridge.vision.ppocr import PpOcrEngine

    class Model:  # the classes a recognizer has: the blank, letters, a degree sign, a space
        chars: ClassVar[list[str]] = ["", "a", "b", "7", "é", "°", "°F", "Ω", " "]
        allowed_index = np.array([0, 1, 2, 3, 4, 5, 6, 8], dtype=np.intp)

    rng = np.random.default_rng(seed)
    columns = int(rng.integers(1, 60))
    # runs of one class, blanks between some: repeats collapse, a blank parts two alike
    runs = rng.choice(len(Model.chars), size=columns, p=[0.4] + [0.6 / 8] * 8)
    prob = rng.random((columns + 5, len(Model.chars)), dtype=np.float32) * 0.5
    prob[np.arange(columns), runs] += rng.random(columns, dtype=np.float32) * 0.6 + 0.45
    engine = PpOcrEngine.__new__(PpOcrEngine)
    engine._np = np
    used = columns - float(rng.integers(0, 2)) * 0.4
    got = engine._chars(prob, used, Model)  # type: ignore[arg-type]
    assert got == _column_by_column(prob, used, Model)


@pytest.mark.parametrize("seed", range(20))
def test_the_recognizers_input_is_each_crop_padded_with_its_last_column_then_scaled(
    seed: int,
) -> None:
    import numpy as np

    from bridge.vision.inks import REC_HEIGHT
    from bridge.vision.ppocr import _input

    rng = np.random.default_rng(seed)
    widest = int(rng.integers(1, 40)) * 16
    crops = [
        rng.integers(0, 256, (REC_HEIGHT, int(rng.integers(1, widest + 1)), 3)).astype(np.float32)
        + (rng.random() if seed % 2 else 0.0)  # grid lines painted out leave fractions
        for _ in range(int(rng.integers(1, 9)))
    ]
    want = np.stack(
        [
            (
                (
                    np.pad(c, ((0, 0), (0, widest - c.shape[1]), (0, 0)), "edge")[:, :, ::-1]
                    / 255.0
                    - 0.5
                )
                / 0.5
            ).transpose(2, 0, 1)
            for c in crops
        ]
    ).astype(np.float32)
    got = _input(widest, crops)
    assert got.dtype == np.float32 and got.shape == (len(crops), 3, REC_HEIGHT, widest)
    assert np.array_equal(got, want)
