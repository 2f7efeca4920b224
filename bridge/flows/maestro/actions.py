"""What a Maestro command compiles to when mobridge's own steps (``bridge.flows.compile``) do
not say it: element selectors with Maestro's relations, waits Maestro does implicitly, text
typing forms, scripts, network state, and refusals decided where the step runs.

``bridge.flows.maestro.run`` executes them (the runner hands every ``MaestroAction`` there).
Each is plain data, checked when the file loads; nothing here talks to a hub.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge.wire.query import SemanticQuery


class MaestroAction:
    """Base of the actions below (the runner dispatches on it)."""


@dataclass(frozen=True)
class Pick:
    """A Maestro element selector. ``query`` is what the hub resolves (text/id/state and
    ``childOf`` as ``within``); ``index`` picks among matches in document order; the rest
    filters the hub's matches by position and size before one is acted on (its NodeRef is
    then resolved again by the hub). ``unsupported`` names a part no device here can honour
    (the step is refused with it)."""

    query: SemanticQuery
    index: int | None = None
    relations: tuple[tuple[str, Pick], ...] = ()
    size: tuple[int | None, int | None, int] | None = None
    id_regex: str | None = None
    unsupported: str | None = None
    said: str = ""
    traits: tuple[str, ...] = ()
    """Maestro's ``traits``: ``text`` (has a text), ``square`` (width and height within
    3 % of each other), ``long-text`` (a text over 200 characters)."""

    @property
    def simple(self) -> bool:
        """The hub alone resolves it (no relation, size or id pattern)."""
        return (
            not self.relations and self.size is None and self.id_regex is None and not self.traits
        )


@dataclass(frozen=True)
class OnElement(MaestroAction):
    """``tapOn`` / ``doubleTapOn`` / ``longPressOn`` / ``copyTextFrom`` on one element:
    waited for (``wait_ms``, as Maestro looks for an element before it gives up), then acted
    on; ``repeat`` taps ``delay_ms`` apart."""

    what: str
    pick: Pick
    repeat: int = 1
    delay_ms: int = 100
    wait_ms: int = 7000
    relative: tuple[float, float, bool] | None = None
    """Maestro's ``point`` given with a selector: where inside the element to act (pixels
    from its top-left corner, or percent of its size when the flag is set)."""


@dataclass(frozen=True)
class AtPoint(MaestroAction):
    """A tap, double tap or long press at a screen point, in pixels or percent."""

    what: str
    x: float
    y: float
    percent: bool
    repeat: int = 1
    delay_ms: int = 100


@dataclass(frozen=True)
class Visible(MaestroAction):
    """``assertVisible`` / ``assertNotVisible`` / ``extendedWaitUntil``: waits up to
    ``timeout_ms`` until the element is present (or absent)."""

    pick: Pick
    present: bool
    timeout_ms: int


@dataclass(frozen=True)
class Typing(MaestroAction):
    """``inputText`` (``text``), ``pasteText`` (``maestro.copiedText``) and the
    ``inputRandom*`` commands (``kind``), typed into the focused input."""

    kind: str
    text: str | None = None
    length: int = 8
    ignored: tuple[str, ...] = ()
    """Keys of the mapping Maestro ignores (``inputText: {id: ..., text: ...}``): named in
    the step's report, never acted on."""
    redact: bool = False
    """``inputText: {redact: true}``: said in the report (typed text never is in one)."""


@dataclass(frozen=True)
class Erase(MaestroAction):
    """``eraseText``: ``count`` characters (Maestro's default 50) before the cursor."""

    count: int = 50


@dataclass(frozen=True)
class SwipeSpec(MaestroAction):
    """A swipe: by ``direction`` on the screen (or from an element), or from ``start`` to
    ``end`` (pixels, or percent when ``percent``)."""

    direction: str | None = None
    start: tuple[float, float] | None = None
    end: tuple[float, float] | None = None
    percent: bool = False
    pick: Pick | None = None
    duration_ms: int = 400


@dataclass(frozen=True)
class ScrollTo(MaestroAction):
    """``scrollUntilVisible``: scroll (``direction``: where the content comes from) until the
    element is on screen, within ``timeout_ms``."""

    pick: Pick
    direction: str
    timeout_ms: int
    swipe_ms: int = 601
    """How long each swipe takes: Maestro's ``speed`` (0-100, default 40) as
    ``1000 * (100 - speed) / 100 + 1`` ms."""
    visibility: int = 100
    """How much of the element (percent of its area) must be on screen."""
    center: bool = False
    """``centerElement``: swipe on (at most 4 more times) until the element's centre is
    near the screen's centre in the scrolling direction."""


@dataclass(frozen=True)
class LaunchApp(MaestroAction):
    """``launchApp`` with ``permissions`` and/or ``arguments``: each permission set first
    (``grant`` / ``revoke`` / ``reset`` for Maestro's allow / deny / unset, ``all``: every
    one mobridge names), then ``launch`` runs, carrying ``arguments`` (a list's items become
    names with empty values; a device whose agent takes none refuses the step);
    ``skipped``: permission names no device here sets (named on the report)."""

    launch: Any
    permissions: tuple[tuple[str, str], ...] = ()
    skipped: tuple[str, ...] = ()
    arguments: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Screenshot(MaestroAction):
    """``takeScreenshot`` with ``cropOn``: the screenshot cut to the element's bounds."""

    name: str
    crop: Pick


@dataclass(frozen=True)
class ScreenScroll(MaestroAction):
    """``scroll``: the screen's content one page down (a swipe up the middle of it)."""


@dataclass(frozen=True)
class Script(MaestroAction):
    """``runScript`` (a file's text) or ``evalScript``: run in the test's JavaScript host;
    ``env`` values may hold ``${...}``; ``line`` is the first line of ``code`` in ``file``."""

    code: str
    file: str
    line: int
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AssertTrue(MaestroAction):
    """``assertTrue``: the condition text, ``${...}`` evaluated, must be truthy."""

    condition: str


@dataclass(frozen=True)
class Refuse(MaestroAction):
    """A command that loads but cannot run: refused at the step with ``reason``. With
    ``platforms``, only there (elsewhere ``otherwise`` runs, or the step passes)."""

    reason: str
    platforms: frozenset[str] | None = None
    otherwise: Any = None


@dataclass(frozen=True)
class Network(MaestroAction):
    """``setAirplaneMode`` (``airplane`` true/false) or ``toggleAirplaneMode`` (None)."""

    airplane: bool | None


@dataclass(frozen=True)
class Travel(MaestroAction):
    """``travel``: the device's location moved along ``points`` at ``speed`` m/s."""

    points: tuple[tuple[float, float], ...]
    speed: float


@dataclass(frozen=True)
class Settle(MaestroAction):
    """``waitForAnimationToEnd``: the screen unchanged for a moment, within ``timeout_ms``."""

    timeout_ms: int


@dataclass(frozen=True)
class Templated(MaestroAction):
    """A command whose values hold ``${...}``: its data is evaluated in the test's JavaScript
    host when the step starts, then compiled and run like any other (``base``: the flow file's
    directory, for files it names)."""

    name: str
    data: Any
    file: str
    line: int
    base: str
    app_id: str


@dataclass(frozen=True)
class Scope(MaestroAction):
    """A ``runFlow`` / ``retry`` that gives ``env``: the values (``${...}`` evaluated) become
    variables of the JavaScript host, then ``inner`` (a block or a flow) runs."""

    env: dict[str, str]
    inner: Any
