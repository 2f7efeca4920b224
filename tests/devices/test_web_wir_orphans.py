"""pymobiledevice3's ``WebinspectorService`` keeps every answer it gets in one table shared by
all sessions (``wir_message_results``), and nothing of its own takes them off. The iPhone's
Web Inspector binding (``bridge.devices.ios.web_wir``) takes its wrapping messages' answers
off: those of open pages, those arriving after a page closed, and those of ids a page gave
up on. (No pymobiledevice3 needed: the table is a dict.)"""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest

from bridge.devices.ios.web_inspector import WirPage
from bridge.devices.ios.web_wir import MAX_ORPHANS, WirInspector, WirTransport

pytestmark = pytest.mark.anyio
BASE = 0x60000000


class _Service:
    def __init__(self) -> None:
        self.wir_message_results: dict[int, Any] = {}
        self.is_connected = True
        self.torn: list[tuple[Any, ...]] = []

    async def teardown_inspector_socket(self, *args: Any) -> None:
        self.torn.append(args)

    def session_events(self, session_id: str) -> deque[Any]:
        return deque()


async def _never() -> tuple[Any, Any]:
    raise AssertionError("not opened here")


def _page(page_id: int) -> WirPage:
    return WirPage(app_id="PID:1", page_id=page_id, title="", url="", type="WIRTypeWebPage")


def _pair() -> tuple[_Service, WirInspector, WirTransport, WirTransport]:
    service = _Service()
    inspector = WirInspector(_never, None)
    inspector.service = service
    first, second = (WirTransport(inspector, service, _page(i)) for i in (1, 2))
    inspector.transports |= {first, second}
    return service, inspector, first, second


async def test_answers_that_arrive_after_their_page_closed_are_taken_off() -> None:
    service, inspector, first, second = _pair()
    first._outer = {BASE + 1, BASE + 2}
    await first.close()
    assert service.torn, "the socket was torn down"
    late = {BASE + 1: {"result": {}}, BASE + 2: {"result": {}}}
    service.wir_message_results.update(late)
    service.wir_message_results[7] = {"result": {}}  # pymobiledevice3's own: left alone
    second._forget_outer_answers()
    assert service.wir_message_results == {7: {"result": {}}}
    assert not inspector.orphans


async def test_ids_a_page_gave_up_on_are_taken_off_when_answered() -> None:
    service, inspector, _, second = _pair()
    waiting = range(BASE + 100, BASE + 100 + 4097)
    second._outer = set(waiting)
    second._forget_outer_answers()
    assert len(second._outer) == 4097 - 2048 and len(inspector.orphans) == 2048
    service.wir_message_results.update({i: {"result": {}} for i in waiting})
    second._forget_outer_answers()
    assert not service.wir_message_results and not second._outer and not inspector.orphans


def test_orphans_are_bounded() -> None:
    _, inspector, _, _ = _pair()
    inspector.orphaned(range(BASE, BASE + MAX_ORPHANS + 10))
    assert len(inspector.orphans) <= MAX_ORPHANS
    assert BASE + MAX_ORPHANS + 9 in inspector.orphans, "the newest are kept"
