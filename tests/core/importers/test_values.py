from __future__ import annotations

import pytest

from bridge.core.importers.failure import DumpError
from bridge.core.importers.values import (
    read_android_bounds,
    read_bool,
    read_number,
    rect_bounds,
)


def test_android_bounds() -> None:
    assert read_android_bounds("[0,0][1080,2400]", "n") == (0, 0, 1080, 2400)
    assert read_android_bounds(" [ -5, 3 ][ 0 , 0 ] ", "n") == (-5, 3, 0, 0)
    for bad in ("[a,b]", "[0,0][1,1][2,2]", "0,0,1,1", "[0.5,0][1,1]", ""):
        with pytest.raises(DumpError, match="that are not four integers"):
            read_android_bounds(bad, "node 1")


def test_bools() -> None:
    assert read_bool("TRUE", False, "n", "x") and read_bool("1", False, "n", "x")
    assert not read_bool("false", True, "n", "x") and not read_bool(0, True, "n", "x")
    assert read_bool(None, True, "n", "x") and read_bool("", True, "n", "x")
    with pytest.raises(DumpError, match="node 3 has checked 'maybe', expected true or false"):
        read_bool("maybe", False, "node 3", "checked")


def test_numbers_and_rounding() -> None:
    assert read_number("12", "n", "x") == 12 and read_number(" 1.5 ", "n", "x") == 1.5
    for bad in ("nan", "inf", True, None, [1]):
        with pytest.raises(DumpError):
            read_number(bad, "n", "x")
    # each edge rounded half up: 0.5 -> 1, -0.5 -> 0, 2.5 -> 3
    assert rect_bounds(0.5, -0.5, 2.0, 3.0, "n") == (1, 0, 3, 3)
    assert rect_bounds(-35.98201, -64, 446.96402, 795, "n") == (-36, -64, 411, 731)
    with pytest.raises(DumpError, match="outside the 32-bit coordinate range"):
        rect_bounds(0, 0, 2**31, 1, "n")
