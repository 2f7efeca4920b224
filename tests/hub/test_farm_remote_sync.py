"""A relayed feed's sync is never lost to deduplication: news that arrives while a sync runs
(the owner came back, the farm reconnected) gets an attempt of its own after it.

The link is a stand-in for NATS here (the real one is exercised by tests/farm/); what is
tested is the scheduling inside ``RemoteDevices``: the first join fails on the old state while
the owner comes back, and the members must still be resynced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from bridge.farm.link import Unreachable
from bridge.farm.relay import RelayFeed
from bridge.hub.farm_remote import RemoteDevices
from bridge.wire.client_protocol import SubscribeResult
from bridge.wire.codec import WireFormat
from bridge.wire.farm import RelayJoined
from tests.farm.test_relay import BASE, Member

pytestmark = pytest.mark.anyio


@dataclass
class _Config:
    hub: str = "A"


@dataclass
class OwnerComingBack:
    """The first join waits for ``release`` and fails (the owner is not answering yet);
    every later join succeeds."""

    config: _Config = field(default_factory=_Config)
    release: anyio.Event = field(default_factory=anyio.Event)
    entered: anyio.Event = field(default_factory=anyio.Event)
    joins: int = 0

    def stream_subject(self, stream: str, fmt: str, owner: str) -> str:
        return f"s.{owner}.{stream}.{fmt}"

    async def follow(self, subject: str, callback: Any) -> object:
        return object()

    async def request(self, owner: str, message: Any, timeout_s: float) -> Any:
        self.joins += 1
        if self.joins == 1:
            self.entered.set()
            await self.release.wait()
            return Unreachable("no responders", nobody=True)
        return RelayJoined(
            result=SubscribeResult(subscription="d:compact", seq=7, generation=9, snapshot=BASE)
        )


async def test_a_sync_asked_for_during_a_failing_one_runs_after_it_and_resyncs() -> None:
    link = OwnerComingBack()
    remote = RemoteDevices(None, link, spawn=lambda f: None, log=None)  # type: ignore[arg-type]
    fmt = WireFormat.JSON
    feed = RelayFeed("C", "d", "d:compact", True, False, fmt)
    member = Member(fmt)
    feed.members.add(member)
    key = ("d:compact", fmt)
    remote.feeds[key] = feed
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: remote._sync(key, feed, announce=True))  # the farm reconnected
        await link.entered.wait()
        tg.start_soon(lambda: remote._sync(key, feed, announce=True))  # the owner came back
        await anyio.sleep(0.05)
        link.release.set()
    assert link.joins == 2
    assert feed.in_sync and feed.seq == 7
    assert len(member.got) == 1 and b'"type":"snapshot"' in member.got[0]
    assert not remote._syncing and not remote._again


async def test_one_sync_alone_joins_once() -> None:
    link = OwnerComingBack()
    link.joins = 1  # skip the failing first join
    remote = RemoteDevices(None, link, spawn=lambda f: None, log=None)  # type: ignore[arg-type]
    fmt = WireFormat.MSGPACK
    feed = RelayFeed("C", "d", "d:compact", True, False, fmt)
    key = ("d:compact", fmt)
    remote.feeds[key] = feed
    await remote._sync(key, feed, announce=False)
    assert link.joins == 2 and feed.in_sync
