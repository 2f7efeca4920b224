"""Which page each WebView shows (``bridge.hub.web.pair``): by the place a page says it is on
the screen, then by its title being the WebView's name, then in order; pages that say they
are hidden, and WebViews or pages left over, are not paired."""

from __future__ import annotations

from bridge.devices.web.source import WebPageEndpoint
from bridge.hub.web import WebViewOnScreen, pair

TOP = WebViewOnScreen((0, 200, 1080, 1200), "Shop")
BOTTOM = WebViewOnScreen((0, 1220, 1080, 2300), "News")


def page(name: str, screen: tuple[int, int, int, int] | None = None, *, visible: bool = True,
         title: str = "") -> WebPageEndpoint:  # fmt: skip
    return WebPageEndpoint(ws_url=f"ws://127.0.0.1:9/{name}", title=title, screen=screen,
                           visible=visible)  # fmt: skip


def names(pairs: list[tuple[tuple[int, int, int, int], WebPageEndpoint]]) -> list[tuple[str, str]]:
    where = {TOP.bounds: "top", BOTTOM.bounds: "bottom"}
    return [(where[box], p.ws_url.rsplit("/", 1)[1]) for box, p in pairs]


def test_a_page_that_says_where_it_is_goes_to_the_webview_it_overlaps_most() -> None:
    got = pair([TOP, BOTTOM], [page("b", (0, 1300, 1080, 2200)), page("a", (0, 150, 1080, 1100))])
    assert sorted(names(got)) == [("bottom", "b"), ("top", "a")]


def test_a_hidden_page_is_not_paired_and_a_webview_may_stay_without_one() -> None:
    got = pair([TOP, BOTTOM], [page("gone", (0, 200, 1080, 1200), visible=False),
                               page("b", (0, 1220, 1080, 2300))])  # fmt: skip
    assert names(got) == [("bottom", "b")]


def test_pages_without_a_place_go_by_title_then_in_order() -> None:
    got = pair([TOP, BOTTOM], [page("x", title="News"), page("y", title="Untitled")])
    assert sorted(names(got)) == [("bottom", "x"), ("top", "y")]
    got = pair([TOP, BOTTOM], [page("first"), page("second"), page("third")])
    assert names(got) == [("top", "first"), ("bottom", "second")]


def test_one_webview_takes_the_visible_page_first() -> None:
    got = pair([TOP], [page("tab", visible=False), page("shown")])
    assert names(got) == [("top", "shown")]
