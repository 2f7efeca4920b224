from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.importers.failure import DumpError
from bridge.core.importers.safe_json import decode_json, json_depth, line_column


def _reference_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_reference_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_reference_depth(v) for v in value.values()), default=0)
    return 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:é'),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=3), kids, max_size=3)
    ),
    max_leaves=30,
)


@given(JSON_VALUES)
def test_json_depth_matches_the_structure(value: object) -> None:
    data = json.dumps(value, ensure_ascii=False).encode()
    assert json_depth(data) == _reference_depth(value)
    assert decode_json(data) == value


def test_line_column_counts_characters() -> None:
    data = "ab\nçd".encode()
    assert line_column(data, 0) == (1, 1)
    assert line_column(data, 3) == (2, 1)
    assert line_column(data, 5) == (2, 2)  # after the two-byte 'ç'


def test_too_deep_is_refused_before_decoding() -> None:
    with pytest.raises(DumpError, match="JSON nested 600 containers deep; the limit is 528"):
        decode_json(b"[" * 600 + b"]" * 600)
    assert decode_json(b"[" * 528 + b"]" * 528) is not None
