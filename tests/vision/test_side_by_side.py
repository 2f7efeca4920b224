"""The recognizers' batches run side by side on the engine's workers
(``bridge.vision.ppocr.Recognizer.run_all``, ``WORKERS``): the same outputs, in order, as one
run after the other, a lone batch split in two halves with the same output as whole, inputs
drawn lazily (a bounded number held at once), and a run's error raised at its turn."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bridge.vision.ppocr import SPLIT_ROWS, WORKERS, PpOcrEngine
from tests.skips import need_vision


def _engine() -> PpOcrEngine:
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    return engine


def _inputs(widths: list[tuple[int, int]]) -> list[Any]:
    import numpy as np

    rng = np.random.default_rng(7)
    return [rng.uniform(-1, 1, (rows, 3, 48, width)).astype(np.float32) for rows, width in widths]


@need_vision
@pytest.mark.parametrize("model", ["_main", "_second"])
def test_batches_side_by_side_read_as_one_after_the_other(model: str) -> None:
    """Five batches of several widths, and a lone batch of ``SPLIT_ROWS`` + 2 lines (run as
    two halves): each output is the very array a run of its own gives, in the inputs'
    order, each with its input."""
    import numpy as np

    recognizer = getattr(_engine(), model)
    with ThreadPoolExecutor(WORKERS) as pool:
        for widths in (
            [(8, 64), (3, 160), (1, 320), (5, 96), (2, 48)],
            [(SPLIT_ROWS + 2, 200)],
        ):
            xs = _inputs(widths)
            got = list(recognizer.run_all(pool, iter(xs)))
            assert [x for x, _ in got] == xs  # the same objects, in order
            for x, (_, probs) in zip(xs, got, strict=True):
                assert np.array_equal(probs, recognizer.run(x))
                assert probs.shape[0] == x.shape[0]


@need_vision
def test_inputs_are_drawn_a_few_ahead_of_the_caller() -> None:
    """A caller that has taken the first output has made the recognizer draw at most
    ``WORKERS`` + 1 more inputs of a long stream (a reading of many lines holds a few
    batches at once, not all of them)."""
    recognizer = _engine()._main
    drawn = 0

    def stream() -> Iterator[Any]:
        nonlocal drawn
        for x in _inputs([(2, 32)] * 20):
            drawn += 1
            yield x

    with ThreadPoolExecutor(WORKERS) as pool:
        outputs = recognizer.run_all(pool, stream())
        next(outputs)
        assert drawn <= WORKERS + 2
        assert sum(1 for _ in outputs) == 19
    assert drawn == 20


@need_vision
def test_a_failed_run_raises_at_its_turn() -> None:
    """An input of the wrong shape fails in its worker; the error reaches the caller when
    that input's turn comes, after the outputs before it."""
    import numpy as np

    recognizer = _engine()._main
    good = _inputs([(2, 64)])[0]
    bad = np.zeros((1, 5, 48, 64), dtype=np.float32)  # five channels: the model takes three
    with ThreadPoolExecutor(WORKERS) as pool:
        outputs = recognizer.run_all(pool, iter([good, bad, good]))
        assert next(outputs)[0] is good
        with pytest.raises(Exception, match=r"channel|dimension|shape|Invalid"):
            next(outputs)
