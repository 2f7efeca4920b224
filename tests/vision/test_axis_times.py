"""A time axis's tick whose colon was lost (``bridge.vision.words.times_in_rows``)."""

from __future__ import annotations

from bridge.vision.words import Word, times_in_rows
from tests.skips import need_vision


def _row(*texts: str, top: int = 100) -> list[list[Word]]:
    """One line a word for each of ``texts``, side by side in one row, 20 pixels tall."""
    return [[Word(t, (10 + 80 * k, top, 60 + 80 * k, top + 20), 0.99)] for k, t in enumerate(texts)]


def _texts(lines: list[list[Word]]) -> list[str]:
    return [" ".join(w.text for w in line) for line in lines]


def test_a_number_among_a_row_of_times_gets_its_colon_back() -> None:
    lines = _row("12:30", "12115", "13:00", "1345", "14:00")
    assert _texts(times_in_rows(lines)) == ["12:30", "12:15", "13:00", "13:45", "14:00"]


def test_a_number_beside_one_time_or_none_or_among_words_stays() -> None:
    assert _texts(times_in_rows(_row("12:30", "1345", "2024"))) == ["12:30", "1345", "2024"]
    assert _texts(times_in_rows(_row("1200", "1345", "1400"))) == ["1200", "1345", "1400"]
    times = _row("12:30", "13:00", "14:00")
    sentence = [[Word("Sat", (400, 100, 440, 120), 0.99), Word("2024", (450, 100, 500, 120), 0.99)]]
    assert _texts(times_in_rows([*times, *sentence])) == ["12:30", "13:00", "14:00", "Sat 2024"]


def test_a_number_that_is_no_time_or_in_another_row_stays() -> None:
    assert _texts(times_in_rows(_row("12:30", "13:00", "2475"))) == ["12:30", "13:00", "2475"]
    assert _texts(times_in_rows(_row("12:30", "13:00", "1390"))) == ["12:30", "13:00", "1390"]
    lines = [*_row("12:30", "13:00"), *_row("1345", top=300)]
    assert _texts(times_in_rows(lines)) == ["12:30", "13:00", "1345"]
    # the mates must be as long as the time would be: ``9:00`` ticks make no ``13:45``
    assert _texts(times_in_rows(_row("9:00", "9:30", "1345"))) == ["9:00", "9:30", "1345"]


@need_vision
def test_juggluco_reads_its_time_axis_whole() -> None:
    """Juggluco's glucose chart in landscape (tests/vision/real): its time axis's ``13:45``
    and ``12:15`` read ``1345`` and ``12115``, their colons thin beside a grid line."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    texts = [
        line.text for line, _ in read_lines(engine, score.load("juggluco-glucose-chart-landscape"))
    ]
    assert "13:45" in texts and "12:15" in texts, texts
    assert "1345" not in texts and "12115" not in texts, texts
