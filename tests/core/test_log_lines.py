"""Device log lines for subscribers (bridge/core/log_lines.py): filters, masking, backlog."""

from __future__ import annotations

from bridge.core.log_lines import LINE_OVERHEAD, LogBacklog, LogFilter, make_filter, mask_line
from bridge.core.secret_mask import MASK, SecretMasker
from bridge.wire.device_media import LogLine


def _line(seq: int, text: str = "x", **fields: object) -> LogLine:
    return LogLine(seq=seq, level=fields.pop("level", "info"), text=text, **fields)  # type: ignore[arg-type]


def _filter(app: str | None = None, level: str | None = None, grep: str | None = None) -> LogFilter:
    got = make_filter(app, level, grep)  # type: ignore[arg-type]
    assert isinstance(got, LogFilter), got
    return got


def test_no_filter_keeps_every_line() -> None:
    assert _filter().keeps(_line(1, level="verbose"))


def test_app_filter_keeps_only_that_apps_lines() -> None:
    keep = _filter(app="com.shop")
    assert keep.keeps(_line(1, app="com.shop"))
    assert not keep.keeps(_line(2, app="com.other"))
    assert not keep.keeps(_line(3))


def test_level_filter_keeps_that_level_and_more_severe() -> None:
    warn = _filter(level="warn")
    kept = [lvl for lvl in ("verbose", "debug", "info", "warn", "error", "fatal")
            if warn.keeps(_line(1, level=lvl))]  # fmt: skip
    assert kept == ["warn", "error", "fatal"]


def test_grep_searches_the_text_or_the_tag() -> None:
    grep = _filter(grep="time.?out")
    assert grep.keeps(_line(1, "request timeout"))
    assert grep.keeps(_line(2, "failed", tag="timeout-watch"))
    assert not grep.keeps(_line(3, "ok", tag="net"))
    assert not grep.keeps(_line(4, "ok"))
    both = _filter(app="a", level="error", grep="boom")
    assert both.keeps(_line(5, "boom", app="a", level="fatal"))
    assert not both.keeps(_line(6, "boom", app="a", level="warn"))
    assert not both.keeps(_line(7, "calm", app="a", level="error"))


def test_a_refused_pattern_is_named_with_the_rule_it_broke() -> None:
    refused = make_filter(None, None, "(a)\\1")
    assert isinstance(refused, str)
    assert refused.startswith("--grep '(a)\\\\1': ")


def test_mask_line_rewrites_only_lines_that_show_a_secret() -> None:
    masker = SecretMasker()
    masker.typed("s3cret-pass")
    clean = _line(1, "nothing here", tag="t", app="a", pid=9, at_ms=5)
    assert mask_line(clean, masker) is clean
    leaked = _line(2, "pw=s3cret-pass", tag="t", app="a", pid=9, at_ms=5, level="warn")
    masked = mask_line(leaked, masker)
    assert "s3cret-pass" not in masked.text and MASK in masked.text
    assert (masked.seq, masked.level, masked.tag, masked.app, masked.pid, masked.at_ms) == (
        2, "warn", "t", "a", 9, 5,
    )  # fmt: skip
    # the secret's start on the previous line: the rest is masked on this one
    tail = mask_line(_line(3, "pass and more"), masker, previous="pw=s3cret-")
    assert not tail.text.startswith("pass")


def test_the_backlog_drops_the_oldest_past_its_line_or_byte_bound_and_counts_them() -> None:
    backlog = LogBacklog(max_lines=3, max_bytes=10_000)
    for seq in range(5):
        backlog.add(_line(seq))
    assert [ln.seq for ln in backlog.lines] == [2, 3, 4]
    assert backlog.gap == 2 and backlog.dropped_total == 2
    assert backlog.bytes == 3 * (1 + LINE_OVERHEAD)
    by_bytes = LogBacklog(max_lines=100, max_bytes=2 * (10 + LINE_OVERHEAD))
    for seq in range(3):
        by_bytes.add(_line(seq, "0123456789"))
    assert [ln.seq for ln in by_bytes.lines] == [1, 2] and by_bytes.gap == 1
    assert by_bytes.bytes == 2 * (10 + LINE_OVERHEAD)


def test_take_sends_the_oldest_within_the_budget_and_resets_the_gap() -> None:
    backlog = LogBacklog(max_lines=2, max_bytes=10_000)
    for seq in range(4):
        backlog.add(_line(seq, "abcd"))
    size = 4 + LINE_OVERHEAD
    lines, gap = backlog.take(budget_bytes=size, max_lines=10)
    assert [ln.seq for ln in lines] == [2] and gap == 2
    assert backlog.bytes == size and backlog.gap == 0 and backlog.dropped_total == 2
    lines, gap = backlog.take(budget_bytes=1, max_lines=10)  # at least one line
    assert [ln.seq for ln in lines] == [3] and gap == 0 and backlog.bytes == 0
    assert backlog.take(budget_bytes=10_000, max_lines=10) == ([], 0)


def test_take_stops_at_max_lines_and_at_the_exact_budget() -> None:
    backlog = LogBacklog(max_lines=10, max_bytes=10_000)
    for seq in range(4):
        backlog.add(_line(seq, "abcd"))
    size = 4 + LINE_OVERHEAD
    lines, _ = backlog.take(budget_bytes=10_000, max_lines=2)
    assert [ln.seq for ln in lines] == [0, 1]
    lines, _ = backlog.take(budget_bytes=2 * size, max_lines=10)
    assert [ln.seq for ln in lines] == [2, 3]


def test_take_counts_every_line_it_sends_against_the_budget() -> None:
    backlog = LogBacklog(max_lines=10, max_bytes=10_000)
    for seq in range(5):
        backlog.add(_line(seq, "abcd"))
    lines, _ = backlog.take(budget_bytes=2 * (4 + LINE_OVERHEAD), max_lines=10)
    assert [ln.seq for ln in lines] == [0, 1]


def test_a_single_character_left_of_a_cut_secret_is_masked_on_the_next_line() -> None:
    masker = SecretMasker()
    masker.typed("s3cret-pass")
    line = _line(1, "s ok")
    assert mask_line(line, masker, previous="pw=s3cret-pas").text == f"{MASK} ok"
    assert mask_line(line, masker) is line  # without the line before, "s" is ordinary text
