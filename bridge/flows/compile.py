"""Flow files -> checked, runnable programs (``Flow``: a header and ``Step``s).

Everything a flow says is checked here, before anything runs: the YAML layout (header
document, ``---``, a list of one-key steps), every step's value against its type in
``bridge.flows.model`` (unknown keys, wrong types, values out of range), variables, regexes
(RE2, as the hub runs them), targets with nothing to find, ``runFlow`` files that are missing
or call each other in a cycle, blocks (``repeat``, ``retry``, ``expectRefusal``, ``runFlow``
with ``commands``) nested deeper than ``MAX_BLOCK_DEPTH``, the ``optional`` / ``when`` a step
may carry (inside its mapping or beside its name), the header's hooks and ``timeout``. Each
mistake is a ``FlowError`` naming the file and line; a suite with any mistake raises
``FlowErrors`` with all of them. A ``when: {true: ...}`` is decided here (variables are
known at load time); ``visible`` / ``notVisible`` / ``platform`` when the step would start.

Variables: ``${NAME}`` in a string value is looked up in, first to last: the ``env`` of the
``runFlow`` step that called the file, ``--env NAME=VALUE`` (``cli``), the process
environment, the file's own header ``env``.

The caller keeps what it needs next: ``load_suite`` returns one ``Flow`` per test file, in
lexical order; ``bridge.flows.runner`` runs them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import re2
import yaml

from bridge.flows import formats
from bridge.flows import model as m
from bridge.flows.errors import FlowError, FlowErrors, Place
from bridge.flows.maestro.actions import MaestroAction
from bridge.flows.maestro.workspace import config_file, workspace
from bridge.flows.source import Converter, Source, key_node, locate, read_source
from bridge.wire import conditions as wc
from bridge.wire.action import Verify
from bridge.wire.enums import (
    ActionVerb,
    ErrorCode,
    GestureKind,
    GlobalAction,
    KeyName,
    MatchMode,
    Orientation,
)
from bridge.wire.query import QueryState, SemanticQuery, TextMatch, Within

FLOW_SUFFIXES = (".yaml", ".yml")
SKIPPED_NAMES = frozenset({"README.md"})
SCRIPT_SUFFIXES = frozenset({".js"})
MAX_REGEX = 256
MAX_FLOW_DEPTH = 16
MAX_BLOCK_DEPTH = 8
"""How deep blocks (repeat, retry, runFlow commands, expectRefusal) may nest in one file."""
MAX_STEPS = 2000
FALSE_WORDS = frozenset({"", "false", "0", "no", "off"})
_RE2_OPTIONS: Any = re2.Options()
_RE2_OPTIONS.log_errors = False
_KEYS = {"back": GlobalAction.BACK, "home": GlobalAction.HOME}
_KEYS["recents"] = GlobalAction.RECENTS
_KEYS["notifications"] = GlobalAction.NOTIFICATION_SHADE


# ---- what a compiled flow is --------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    app_id: str
    clear_state: bool = False


@dataclass(frozen=True)
class StopApp:
    app_id: str


@dataclass(frozen=True)
class OpenLink:
    uri: str


@dataclass(frozen=True)
class NodeAction:
    verb: ActionVerb
    query: SemanticQuery
    value: str | None = None
    value_ref: str | None = None
    verify: Verify | None = None
    gesture_fallback: bool = False


@dataclass(frozen=True)
class Scroll:
    container: SemanticQuery | None
    forward: bool


@dataclass(frozen=True)
class ScrollUntil:
    element: SemanticQuery
    container: SemanticQuery | None
    forward: bool
    max_scrolls: int


@dataclass(frozen=True)
class Press:
    action: GlobalAction


@dataclass(frozen=True)
class WaitUntil:
    condition: wc.Condition
    timeout_ms: int | None
    expect: str
    """What the step expects, in words, for the report ("a node showing 'Home'")."""


@dataclass(frozen=True)
class TakeScreenshot:
    name: str


@dataclass(frozen=True)
class RunFlow:
    flow: Flow


@dataclass(frozen=True)
class PointGesture:
    """A gesture at a point on the screen (``tap``/``longPress``/``doubleTap`` with ``point``)."""

    kind: GestureKind
    x: int
    y: int
    hold_ms: int | None = None


@dataclass(frozen=True)
class SwipeAt:
    """A swipe on the screen from a point (``swipe: {direction, from}``)."""

    direction: str
    x: int
    y: int
    distance: int | None


@dataclass(frozen=True)
class TypeFocused:
    text: str | None
    value_ref: str | None
    submit: bool


@dataclass(frozen=True)
class KeyPressed:
    key: KeyName


@dataclass(frozen=True)
class SetOrientation:
    orientation: Orientation


@dataclass(frozen=True)
class AppManage:
    """``terminateApp`` / ``installApp`` / ``uninstallApp`` (hub device actions), and the
    ``clear`` of a ``clearState`` reset."""

    what: str
    subject: str
    sha256: str | None = None
    approve: bool = False


@dataclass(frozen=True)
class AssertLog:
    """``assertLog``: a log line matching ``grep`` since the test began, or within the
    timeout."""

    grep: str
    app: str | None
    level: str | None
    timeout_ms: int | None


@dataclass(frozen=True)
class Recording:
    """``startRecording: NAME`` (name set) or ``stopRecording`` (name None)."""

    name: str | None


@dataclass(frozen=True)
class Capability:
    """A device capability of issue 21: ``alert`` (choice / button), ``assertAlert``
    (title), ``setPermission``, ``setLocation`` / ``clearLocation``, ``pinch`` /
    ``twoFingerTap`` (query or point, scale), ``setClipboard`` (text / secret),
    ``assertClipboard`` (text) and ``hideKeyboard``."""

    what: str
    text: str | None = None
    """alert: the choice; assertAlert: the title words; setClipboard / assertClipboard: the
    text; setPermission: the action."""
    button: str | None = None
    secret: str | None = None
    subject: str | None = None
    """setPermission: the app id."""
    permission: str | None = None
    approve: bool = False
    latitude: float | None = None
    longitude: float | None = None
    query: SemanticQuery | None = None
    point: tuple[int, int] | None = None
    scale: float = 2.0
    timeout_ms: int | None = None


@dataclass(frozen=True)
class When:
    """When a guarded step or block runs (every given test must hold)."""

    visible: SemanticQuery | None = None
    not_visible: SemanticQuery | None = None
    platform: str | None = None
    truth: bool | None = None
    said: str = ""
    """The test in words, for the report (``visible 'Login'``)."""
    script: str | None = None
    """A Maestro ``true: ${...}``: JavaScript, evaluated when the step would start."""


@dataclass(frozen=True)
class Block:
    """Steps run as one step: ``runFlow`` commands, ``repeat``, ``retry``, ``expectRefusal``."""

    steps: list[Step]
    times: int | None = None
    while_: When | None = None
    max_retries: int = 0
    refusal: ErrorCode | None = None
    times_script: str | None = None
    """A Maestro ``times: ${...}``: the count, evaluated when the block starts."""


Action = (
    Launch
    | StopApp
    | OpenLink
    | NodeAction
    | Scroll
    | ScrollUntil
    | Press
    | WaitUntil
    | TakeScreenshot
    | RunFlow
    | PointGesture
    | SwipeAt
    | TypeFocused
    | KeyPressed
    | SetOrientation
    | AppManage
    | AssertLog
    | Recording
    | Capability
    | Block
    | MaestroAction
)


@dataclass(frozen=True)
class Step:
    kind: str
    """The step's name as written (``tap``, ``assertVisible``, ...)."""
    place: Place
    source: str
    """The step as written in the file (variables not expanded)."""
    action: Action
    optional: bool = False
    """A failure is reported as ``tolerated`` and the steps after it run."""
    when: When | None = None
    """Run only when this holds (else the step is ``skipped`` with the reason)."""
    label: str | None = None
    """The step's name in reports (Maestro's ``label``)."""


@dataclass
class Flow:
    """One flow file, checked: header, setup steps and steps."""

    file: str
    path: Path
    header: m.FlowHeader
    setup: list[Step] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    on_start: list[Step] = field(default_factory=list)
    on_complete: list[Step] = field(default_factory=list)
    maestro: bool = False
    """Written in Maestro's format (its steps may need the test's JavaScript host)."""
    env: dict[str, str] = field(default_factory=dict)
    """A Maestro header's env, as written (``${...}`` evaluated when the test starts)."""

    @property
    def timeout_s(self) -> float | None:
        """The test's time limit in seconds (the header's ``timeout``), or None."""
        return duration_s(self.header.timeout)

    @property
    def name(self) -> str:
        return self.header.name or self.path.stem

    @property
    def app_id(self) -> str:
        return self.header.app_id


# ---- loading ------------------------------------------------------------------------------------


def suite_files(paths: Sequence[str]) -> list[tuple[Path, str]]:
    """The test files that ``paths`` name: files as given, directories' ``*.yaml`` / ``*.yml``
    in lexical order (not descending: subdirectories hold flows that tests run).
    ``README.md`` is skipped; any other file in a directory is a mistake."""
    found: list[tuple[Path, str]] = []
    errors: list[FlowError] = []
    for given in paths:
        path = Path(given)
        if path.is_dir() and config_file(path) is not None:  # a Maestro workspace
            try:
                space = workspace(path, given)
            except FlowError as exc:
                errors.append(exc)
                continue
            found.extend((p, str(path / p.relative_to(path))) for p in space.files)
            continue
        if path.is_dir():
            for child in sorted(path.iterdir(), key=lambda p: p.name):
                if child.is_dir() or child.name in SKIPPED_NAMES or child.name.startswith("."):
                    continue
                if child.suffix in SCRIPT_SUFFIXES:  # the scripts Maestro flows run
                    continue
                shown = str(path / child.name)
                if child.suffix in FLOW_SUFFIXES:
                    found.append((child, shown))
                else:
                    errors.append(
                        FlowError(
                            Place(shown, 1),
                            "not a flow file (flows end in .yaml or .yml; README.md is skipped)",
                        )
                    )
        elif path.exists():
            found.append((path, given))
        else:
            errors.append(FlowError(Place(given, 1), f"{given}: no such file or directory"))
    if errors:
        raise FlowErrors(errors)
    if not found:
        raise FlowErrors([FlowError(Place(", ".join(paths) or ".", 1), "no flow files found")])
    return found


def load_suite(
    paths: Sequence[str], cli: Mapping[str, str], environ: Mapping[str, str]
) -> list[Flow]:
    """Every test of ``paths``, checked (raises FlowErrors listing every mistake)."""
    loader = FlowLoader(cli, environ)
    flows: list[Flow] = []
    errors: list[FlowError] = []
    for path, shown in suite_files(paths):
        try:
            flows.append(loader.load(path, shown))
        except FlowErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise FlowErrors(unique(errors))
    for given in paths:  # a Maestro workspace's own tag filter
        if Path(given).is_dir() and config_file(Path(given)) is not None:
            space = workspace(Path(given), given)
            if space.include_tags or space.exclude_tags:
                chosen = {p.resolve() for p in space.files}
                inside = [f for f in flows if f.path in chosen]
                kept = select_by_tags(inside, space.include_tags, space.exclude_tags)
                flows = [f for f in flows if f not in inside or f in kept]
    return flows


def unique(errors: Sequence[FlowError]) -> list[FlowError]:
    """``errors`` without repeats: a subflow that several flows run is reported once."""
    seen: set[tuple[str, int, int, str]] = set()
    out: list[FlowError] = []
    for error in errors:
        key = (error.place.file, error.place.line, error.place.column, error.message)
        if key not in seen:
            seen.add(key)
            out.append(error)
    return out


def select_by_tags(flows: list[Flow], include: Sequence[str], exclude: Sequence[str]) -> list[Flow]:
    """The tests to run: those with a tag in ``include`` (every test when it is empty) and
    none in ``exclude`` (exclusion wins). Tags compare exactly."""
    wanted, unwanted = set(include), set(exclude)
    return [
        f
        for f in flows
        if (not wanted or wanted & set(f.header.tags)) and not unwanted & set(f.header.tags)
    ]


class FlowLoader:
    """Loads flow files (each read once) into ``Flow``s for one set of variables."""

    def __init__(self, cli: Mapping[str, str], environ: Mapping[str, str]) -> None:
        self.cli = dict(cli)
        self.environ = dict(environ)
        self._sources: dict[Path, Source] = {}
        self.warnings: list[FlowError] = []
        """What loads but will fail when it runs (a Maestro ``runFlow``/``runScript`` file that
        is not there), in the order found; ``mobridge test --check`` prints them."""

    def load(self, path: Path, shown: str) -> Flow:
        """The checked flow of one test file (raises FlowErrors)."""
        try:
            return self._flow(path, shown, (), {}, None)
        except FlowError as exc:
            raise FlowErrors([exc]) from None

    def _source(self, path: Path, shown: str, at: FlowError | None) -> Source:
        key = path.resolve()
        if key not in self._sources:
            self._sources[key] = read_source(path, shown, at)
        return self._sources[key]

    def _flow(
        self,
        path: Path,
        shown: str,
        stack: tuple[Path, ...],
        call_env: Mapping[str, str],
        at: FlowError | None,
    ) -> Flow:
        source = self._source(path, shown, at)
        for fmt in formats.installed():  # foreign formats, installed by the composition root
            verdict = fmt.detect(source)
            if verdict:
                flow: Flow = fmt.load(self, source, stack, call_env)
                return flow
            if verdict is None:  # only names both formats share: whichever reads it
                try:
                    return self._mobridge(source, stack, call_env)
                except FlowErrors as ours:
                    try:
                        theirs_flow: Flow = fmt.load(self, source, stack, call_env)
                        return theirs_flow
                    except FlowErrors as theirs:
                        mobridge_only = any(
                            e.message.startswith("unknown variable") for e in ours.errors
                        )
                        fewer = len(ours.errors) <= len(theirs.errors)
                        raise (ours if fewer and not mobridge_only else theirs) from None
        return self._mobridge(source, stack, call_env)

    def _mobridge(
        self, source: Source, stack: tuple[Path, ...], call_env: Mapping[str, str]
    ) -> Flow:
        errors: list[FlowError] = []
        header_node, steps_node = _layout(source)
        header = _header(source, header_node)
        limit = duration_s(header.timeout)
        if limit is not None and not 0 < limit <= m.MAX_TEST_TIMEOUT_S:
            raise FlowErrors(
                [
                    source.error(
                        locate(header_node, "$.timeout")[0],
                        f"timeout must be more than 0 and at most {m.MAX_TEST_TIMEOUT_S} s",
                    )
                ]
            )
        variables = {**header.env, **self.environ, **self.cli, **call_env}
        flow = Flow(file=source.display, path=source.path, header=header)
        ctx = _Context(
            self,
            source,
            Converter(source, variables),
            (*stack, source.path),
            errors,
            header.app_id,
        )
        for key, attr in (
            ("setup", "setup"),
            ("onFlowStart", "on_start"),
            ("onFlowComplete", "on_complete"),
        ):
            node, missing = locate(header_node, f"$.{key}")
            if missing is None and isinstance(node, yaml.SequenceNode) and node is not header_node:
                setattr(flow, attr, ctx.steps(node))
        flow.steps = ctx.steps(steps_node)
        if errors:
            raise FlowErrors(errors)
        return flow


def _layout(source: Source) -> tuple[yaml.Node, yaml.SequenceNode]:
    docs = source.documents
    example = "a header (appId: ...), then a line '---', then the steps (- tap: ...)"
    if not docs:
        raise FlowErrors([source.error(None, f"the file is empty; a flow is {example}")])
    if len(docs) > 2:
        raise FlowErrors([source.error(docs[2], f"a third YAML document; a flow is {example}")])
    if not isinstance(docs[0], yaml.MappingNode):
        raise FlowErrors([source.error(docs[0], f"the header is missing; a flow is {example}")])
    if len(docs) == 1:
        raise FlowErrors([source.error(docs[0], f"no steps; a flow is {example}")])
    steps = docs[1]
    if not isinstance(steps, yaml.SequenceNode):
        raise FlowErrors([source.error(steps, "the steps must be a list (- tap: ...)")])
    return docs[0], steps


def _header(source: Source, node: yaml.Node) -> m.FlowHeader:
    data = _literal(source, node)
    try:
        return msgspec.convert(data, m.FlowHeader, strict=True)
    except msgspec.ValidationError as exc:
        error = _validation_error(source, node, m.FlowHeader, str(exc), "header")
        raise FlowErrors([error]) from None


def _literal(source: Source, node: yaml.Node) -> Any:
    """Header data: no variable expansion (the header defines variables)."""

    class Literal(Converter):
        def expand(self, text: str, node: yaml.Node) -> str:
            return text

    return Literal(source, {}).data(node)


@dataclass
class _Context:
    loader: FlowLoader
    source: Source
    conv: Converter
    stack: tuple[Path, ...]
    errors: list[FlowError]
    app_id: str
    depth: int = 0

    def fail(self, node: yaml.Node | None, message: str) -> FlowError:
        return self.source.error(node, message)

    def steps(self, node: yaml.SequenceNode) -> list[Step]:
        out: list[Step] = []
        if len(node.value) > MAX_STEPS:
            self.errors.append(self.fail(node, f"more than {MAX_STEPS} steps in one list"))
            return out
        for item in node.value:
            try:
                out.append(self.step(item))
            except FlowError as exc:
                self.errors.append(exc)
            except FlowErrors as exc:
                self.errors.extend(exc.errors)
        return out

    def step(self, item: yaml.Node) -> Step:
        name, name_node = self._step_name(item)
        guard = m.Guarded()
        if isinstance(item, yaml.ScalarNode):
            data: Any = {name: None}
            value_node: yaml.Node = item
        else:
            data = self.conv.data(item)
            value_node = next(v for k, v in item.value if getattr(k, "value", None) == name)
            beside = {k: data.pop(k) for k in m.MODIFIERS if k in data}
            if beside:
                try:
                    guard = msgspec.convert(beside, m.Guarded, strict=True)
                except msgspec.ValidationError as exc:
                    raise _validation_error(
                        self.source, item, m.Guarded, str(exc), "step"
                    ) from None
        kind = m.STEPS[name]
        try:
            typed = msgspec.convert(data, kind, strict=True)
        except msgspec.ValidationError as exc:
            raise _validation_error(self.source, item, kind, str(exc), name) from None
        place = self.source.place(name_node)
        value = getattr(typed, _attr(kind))
        optional = guard.optional or bool(getattr(value, "optional", False))
        when_spec: m.WhenSpec | None = guard.when or getattr(value, "when", None)
        when_node = _at(item, "when") if guard.when else _at(value_node, "when")
        when = None if when_spec is None else self.when(when_spec, when_node)
        action = self._action(name, value, value_node, item)
        return Step(
            kind=name,
            place=place,
            source=self.source.snippet(item),
            action=action,
            optional=optional,
            when=when,
        )

    def when(self, spec: m.WhenSpec, node: yaml.Node) -> When:
        """A compiled ``when`` (or ``while``): targets checked, ``true`` decided now."""
        if spec == m.WhenSpec():
            raise self.fail(node, "when needs visible, notVisible, platform or true")
        said: list[str] = []
        visible = not_visible = None
        if spec.visible is not None:
            visible = self.query(spec.visible, _at(node, "visible"))
            said.append(f"visible {describe(visible)}")
        if spec.not_visible is not None:
            not_visible = self.query(spec.not_visible, _at(node, "notVisible"))
            said.append(f"not visible {describe(not_visible)}")
        if spec.platform is not None:
            said.append(f"platform {spec.platform}")
        truth: bool | None = None
        if spec.true is not None:
            truth = (
                spec.true
                if isinstance(spec.true, bool)
                else spec.true.strip().lower() not in FALSE_WORDS
            )
            said.append(f"true is {str(truth).lower()}")
        return When(visible, not_visible, spec.platform, truth, " and ".join(said))

    def _step_name(self, item: yaml.Node) -> tuple[str, yaml.Node]:
        if isinstance(item, yaml.ScalarNode) and isinstance(item.value, str):
            name = item.value
            if name in m.BARE_STEPS:
                return name, item
            if name in m.STEPS:
                raise self.fail(item, f"step {name!r} needs a value ({name}: ...)")
            raise self.fail(item, _unknown_step(name))
        if not isinstance(item, yaml.MappingNode) or not item.value:
            raise self.fail(item, "a step is a mapping with one key, like '- tap: Sign in'")
        pairs = [(k, getattr(k, "value", "?")) for k, _ in item.value]
        named = [(k, v) for k, v in pairs if v not in m.MODIFIERS]
        if not named:
            raise self.fail(item, "a step needs its name beside optional/when, like '- tap: OK'")
        first, name = named[0]
        if len(named) > 1:
            known = [v for _, v in named if v in m.STEPS]
            odd = next((v for _, v in named if v not in m.STEPS), None)
            close = difflib.get_close_matches(str(odd), list(m.MODIFIERS), n=1) if odd else []
            if close:
                hint = f"; did you mean '{close[0]}'?"
            elif len(known) == 1:
                hint = f"; indent the options under '{known[0]}:'"
            else:
                hint = "; write each step as its own '- ' item"
            raise self.fail(
                named[1][0],
                "a step has exactly one key (its name; optional and when may be added), "
                f"this one has {len(named)}: {', '.join(str(v) for _, v in named)}{hint}",
            )
        if name not in m.STEPS:
            raise self.fail(first, _unknown_step(str(name)))
        return str(name), first

    # ---- step values -> actions ------------------------------------------------------------

    def _action(self, name: str, value: Any, node: yaml.Node, item: yaml.Node) -> Action:
        match name:
            case "launchApp":
                if isinstance(value, m.LaunchSpec):
                    return Launch(value.app_id or self._app(), value.clear_state)
                return Launch(value or self._app())
            case "stopApp":
                return StopApp(value or self._app())
            case "clearState":
                return Launch(value or self._app(), clear_state=True)
            case "openLink":
                return OpenLink(value)
            case "tap" | "longPress":
                verb = ActionVerb.CLICK if name == "tap" else ActionVerb.LONG_CLICK
                tap = value if isinstance(value, m.TapSpec) else None
                if tap is not None and tap.point is not None:
                    return self._point(name, tap, node)
                if tap is not None and tap.hold_ms is not None:
                    raise self.fail(_at(node, "holdMs"), "holdMs goes with point (X,Y)")
                query = self.query(value, node)
                return NodeAction(
                    verb,
                    query,
                    verify=self.verify(tap.verify if tap else None, node),
                    gesture_fallback=bool(tap and tap.gesture_fallback),
                )
            case "inputText":
                typing: m.InputSpec = value
                if (typing.text is None) == (typing.secret is None):
                    raise self.fail(node, "inputText needs exactly one of text and secret")
                if typing.into is None:
                    if typing.verify is not None:
                        raise self.fail(_at(node, "verify"), "verify needs a field (into)")
                    return TypeFocused(typing.text, typing.secret, typing.submit)
                if typing.submit:
                    raise self.fail(_at(node, "submit"), "submit goes with no 'into' (the focus)")
                return NodeAction(
                    ActionVerb.SET_TEXT,
                    self.query(typing.into, _at(node, "into")),
                    value=typing.text,
                    value_ref=typing.secret,
                    verify=self.verify(typing.verify, node),
                )
            case "eraseText":
                verify = value.verify if isinstance(value, m.EraseSpec) else None
                return NodeAction(
                    ActionVerb.CLEAR_TEXT, self.query(value, node), verify=self.verify(verify, node)
                )
            case "scroll":
                scroll = value or m.ScrollSpec()
                return Scroll(self._optional(scroll.in_, node, "in"), scroll.direction == "forward")
            case "swipe":
                swipe = value if isinstance(value, m.SwipeSpec) else m.SwipeSpec(direction=value)
                if swipe.from_ is not None:
                    if swipe.in_ is not None:
                        raise self.fail(_at(node, "from"), "give 'in' or 'from', not both")
                    x, y = _xy(swipe.from_)
                    return SwipeAt(swipe.direction, x, y, swipe.distance)
                if swipe.distance is not None:
                    raise self.fail(_at(node, "distance"), "distance goes with from (X,Y)")
                forward = swipe.direction in ("up", "left")
                return Scroll(self._optional(swipe.in_, node, "in"), forward)
            case "scrollUntilVisible":
                return ScrollUntil(
                    self.query(value.element, _at(node, "element")),
                    self._optional(value.in_, node, "in"),
                    value.direction == "forward",
                    value.max_scrolls,
                )
            case "pressKey":
                key = value.key if isinstance(value, m.KeySpec) else value
                if key in _KEYS:
                    return Press(_KEYS[key])
                return KeyPressed(KeyName(key.upper()))
            case "doubleTap":
                point = value.point if isinstance(value, m.PointSpec) else value
                x, y = _xy(point)
                return PointGesture(GestureKind.DOUBLE_TAP, x, y)
            case "setOrientation":
                return SetOrientation(value)
            case "terminateApp" | "uninstallApp":
                spec = value if isinstance(value, m.TerminateSpec) else m.TerminateSpec(value)
                what = "terminate" if name == "terminateApp" else "uninstall"
                return AppManage(what, spec.app_id or self._app(), approve=spec.approve)
            case "installApp":
                if value.file is not None:
                    local = (self.source.path.parent / value.file).resolve()
                    return AppManage("install-file", str(local), value.sha256, value.approve)
                return AppManage("install", value.package, value.sha256, value.approve)
            case "assertLog":
                log = value if isinstance(value, m.AssertLogSpec) else m.AssertLogSpec(grep=value)
                return AssertLog(log.grep, log.app, log.level, log.timeout_ms)
            case "startRecording":
                return Recording(value)
            case "stopRecording":
                return Recording(None)
            case (
                "alert"
                | "assertAlert"
                | "setPermission"
                | "setLocation"
                | "clearLocation"
                | "pinch"
                | "twoFingerTap"
                | "setClipboard"
                | "assertClipboard"
                | "hideKeyboard"
            ):
                return self._capability(name, value, node)
            case "repeat":
                return self._block(name, value, node)
            case "retry" | "expectRefusal":
                return self._block(name, value, node)
            case "assertVisible" | "assertNotVisible":
                query = self.query(value, node)
                timeout = value.timeout_ms if isinstance(value, m.AssertSpec) else None
                cond: wc.Condition = (
                    wc.Present(query=query) if name == "assertVisible" else wc.Absent(query=query)
                )
                words = "present" if name == "assertVisible" else "absent"
                return WaitUntil(cond, timeout, f"{describe(query)} {words}")
            case "assertValue":
                query = self.query(value.element, _at(node, "element"))
                return WaitUntil(
                    wc.ValueEquals(equals=value.equals, query=query),
                    value.timeout_ms,
                    f"{describe(query)} has the value {value.equals!r}",
                )
            case "assertState":
                query = self.query(value.element, _at(node, "element"))
                state = QueryState(
                    enabled=value.enabled,
                    checked=value.checked,
                    selected=value.selected,
                    focused=value.focused,
                    clickable=value.clickable,
                )
                if state == QueryState():
                    raise self.fail(node, "assertState needs a state (checked: true, ...)")
                said = ", ".join(
                    f"{k}={v}".lower()
                    for k, v in msgspec.structs.asdict(state).items()
                    if v is not None
                )
                return WaitUntil(
                    wc.StateIs(query=query, state=state),
                    value.timeout_ms,
                    f"{describe(query)} is {said}",
                )
            case "assertScreen":
                shown = value if isinstance(value, m.AssertScreenSpec) else None
                screen = shown.name if shown else value
                return WaitUntil(
                    wc.ScreenShown(name=screen),
                    shown.timeout_ms if shown else None,
                    f"the screen {screen!r} shown",
                )
            case "waitFor":
                cond = self.condition(value.condition, _at(node, "condition"))
                return WaitUntil(cond, value.timeout_ms, "the condition met")
            case "takeScreenshot":
                return TakeScreenshot(value)
            case "runFlow":
                if isinstance(value, m.RunFlowSpec) and value.commands is not None:
                    if value.file is not None or value.env:
                        raise self.fail(
                            _at(node, "commands"), "runFlow takes a file (with env) or commands"
                        )
                    return self._block(name, value, node)
                return self._run_flow(value, node)
        raise self.fail(item, f"step {name!r} is not implemented")  # pragma: no cover

    def _point(self, name: str, tap: m.TapSpec, node: yaml.Node) -> PointGesture:
        has_target = any(
            getattr(tap, f) is not None for f in ("text", "label", "id", "role", "within", "state")
        )
        if has_target or tap.verify is not None or tap.gesture_fallback:
            raise self.fail(_at(node, "point"), "point (X,Y) is the target: drop the others")
        if name == "tap" and tap.hold_ms is not None:
            raise self.fail(_at(node, "holdMs"), "holdMs is for longPress")
        x, y = _xy(tap.point or "")
        kind = GestureKind.TAP if name == "tap" else GestureKind.LONG_PRESS
        return PointGesture(kind, x, y, tap.hold_ms)

    def _block(self, name: str, value: Any, node: yaml.Node) -> Block:
        at = _at(node, "commands")
        if not isinstance(at, yaml.SequenceNode) or at is node:
            raise self.fail(node, f"{name} needs commands: a list of steps")
        if self.depth >= MAX_BLOCK_DEPTH:
            raise self.fail(at, f"blocks nested deeper than {MAX_BLOCK_DEPTH}")
        if not at.value:
            raise self.fail(at, f"{name}: commands is empty")
        self.depth += 1
        try:
            steps = self.steps(at)  # their mistakes are collected; the load fails at its end
        finally:
            self.depth -= 1
        match name:
            case "repeat":
                spec: m.RepeatSpec = value
                if spec.times is None and spec.while_ is None:
                    raise self.fail(node, "repeat needs times, while, or both")
                cond = None if spec.while_ is None else self.when(spec.while_, _at(node, "while"))
                return Block(steps, times=spec.times, while_=cond)
            case "retry":
                return Block(steps, max_retries=value.max_retries)
            case "expectRefusal":
                return Block(steps, refusal=value.code)
        return Block(steps)

    def _app(self) -> str:
        return self.app_id

    def _capability(self, name: str, value: Any, node: yaml.Node) -> Capability:
        """A device-capability step (``Capability``), its arguments checked."""
        match name:
            case "alert":
                spec = value if isinstance(value, m.AlertSpec) else m.AlertSpec(choice=value)
                if (spec.choice is None) == (spec.button is None):
                    raise self.fail(node, "alert takes accept, dismiss or {button: TEXT}")
                return Capability(name, text=spec.choice, button=spec.button)
            case "assertAlert":
                if isinstance(value, m.AssertAlertSpec):
                    return Capability(name, text=value.title, timeout_ms=value.timeout_ms)
                return Capability(name, text=value)
            case "setPermission":
                perm: m.PermissionSpec = value
                return Capability(name, text=perm.action, subject=perm.app_id or self._app(),
                                  permission=perm.permission, approve=perm.approve)  # fmt: skip
            case "setLocation":
                return Capability(name, latitude=value.latitude, longitude=value.longitude)
            case "pinch" | "twoFingerTap":
                touch = value if isinstance(value, m.PinchSpec) else m.PinchSpec(element=value)
                if touch.element is not None and touch.point is not None:
                    raise self.fail(node, f"{name} takes element or point, not both")
                query = self._optional(touch.element, node, "element")
                point = _xy(touch.point) if touch.point is not None else None
                return Capability(name, query=query, point=point, scale=touch.scale)
            case "setClipboard":
                clip = value if isinstance(value, m.ClipboardSpec) else m.ClipboardSpec(text=value)
                if (clip.text is None) == (clip.secret is None):
                    raise self.fail(node, "setClipboard needs exactly one of text and secret")
                return Capability(name, text=clip.text, secret=clip.secret)
            case "assertClipboard":
                return Capability(name, text=value)
        return Capability(name)  # clearLocation, hideKeyboard

    def _optional(self, target: m.Target | None, node: yaml.Node, key: str) -> SemanticQuery | None:
        return None if target is None else self.query(target, _at(node, key))

    def query(self, target: Any, node: yaml.Node) -> SemanticQuery:
        """A wire SemanticQuery from a flow target (a text, or a Query / its subclasses)."""
        if isinstance(target, str):
            return SemanticQuery(text=TextMatch(value=target))
        assert isinstance(target, m.Query)
        if target.text is None and target.label is None and target.id is None:
            if target.role is None and target.state is None:
                raise self.fail(
                    node, "a target needs text, label, id, role or state (within and nth narrow it)"
                )
        mode = target.match or MatchMode.NORMALIZED_EXACT
        for text in (target.text, target.label, _within_text(target.within)):
            if text is not None and mode is MatchMode.REGEX:
                self._regex(text, node)
        within: Within | None = None
        if isinstance(target.within, str):
            within = Within(text=TextMatch(value=target.within, match=mode))
        elif target.within is not None:
            w = target.within
            if w.text is None and w.role is None and w.id is None:
                raise self.fail(node, "within needs text, role or id")
            within = Within(
                role=w.role,
                text=None if w.text is None else TextMatch(value=w.text, match=mode),
                resource_id=w.id,
            )
        state = None
        if target.state is not None and target.state != m.StateSpec():
            s = target.state
            state = QueryState(
                enabled=s.enabled,
                checked=s.checked,
                selected=s.selected,
                focused=s.focused,
                clickable=s.clickable,
            )
        return SemanticQuery(
            role=target.role,
            text=None if target.text is None else TextMatch(value=target.text, match=mode),
            label=None if target.label is None else TextMatch(value=target.label, match=mode),
            resource_id=target.id,
            state=state,
            within=within,
            first_visible=target.first_visible,
            nth=target.nth,
        )

    def _regex(self, pattern: str, node: yaml.Node) -> None:
        if len(pattern) > MAX_REGEX:
            raise self.fail(node, f"a REGEX may have {MAX_REGEX} characters, not {len(pattern)}")
        try:
            re2.compile(pattern, _RE2_OPTIONS)
        except re2.error as exc:
            reason = exc.args[0] if exc.args else exc
            if isinstance(reason, bytes):
                reason = reason.decode(errors="replace")
            raise self.fail(
                node,
                f"bad REGEX {pattern!r}: {reason} (RE2 syntax: no lookaround or backreferences)",
            ) from None

    def condition(self, cond: m.Condition, node: yaml.Node) -> wc.Condition:
        match cond:
            case m.PresentCond(query=q):
                return wc.Present(query=self.query(q, _at(node, "query")))
            case m.AbsentCond(query=q):
                return wc.Absent(query=self.query(q, _at(node, "query")))
            case m.ValueCond(equals=equals, query=q):
                query = None if q is None else self.query(q, _at(node, "query"))
                return wc.ValueEquals(equals=equals, query=query)
            case m.StateCond(query=q, state=s):
                return wc.StateIs(
                    query=self.query(q, _at(node, "query")),
                    state=QueryState(**msgspec.structs.asdict(s)),
                )
            case m.ScreenCond(name=name):
                return wc.ScreenShown(name=name)
            case m.AppCond(app_id=app_id):
                return wc.AppForeground(app_id=app_id)
            case m.StableCond(for_ms=for_ms):
                return wc.Stable(for_ms=for_ms)
            case m.ClipboardCond(equals=equals):
                return wc.ClipboardEquals(equals=equals)
            case m.AllOfCond(conditions=subs):
                return wc.AllOf(conditions=self._subs(subs, node))
            case m.AnyOfCond(conditions=subs):
                return wc.AnyOf(conditions=self._subs(subs, node))
            case m.NotCond(condition=sub):
                return wc.Not(condition=self.condition(sub, _at(node, "condition")))
        raise self.fail(node, f"unknown condition {cond!r}")  # pragma: no cover

    def _subs(self, subs: list[m.Condition], node: yaml.Node) -> tuple[wc.Condition, ...]:
        items = _at(node, "conditions")
        nodes = items.value if isinstance(items, yaml.SequenceNode) else []
        return tuple(
            self.condition(sub, nodes[i] if i < len(nodes) else node) for i, sub in enumerate(subs)
        )

    def verify(self, spec: m.VerifySpec | None, node: yaml.Node) -> Verify | None:
        if spec is None:
            return None
        at = _at(node, "verify")
        expected = (
            None if spec.expected is None else self.condition(spec.expected, _at(at, "expected"))
        )
        return Verify(
            policy=spec.policy,
            expected=expected,
            timeout_ms=8000 if spec.timeout_ms is None else spec.timeout_ms,
            stable_for_ms=400 if spec.stable_for_ms is None else spec.stable_for_ms,
        )

    def _run_flow(self, value: str | m.RunFlowSpec, node: yaml.Node) -> RunFlow:
        spec = value if isinstance(value, m.RunFlowSpec) else m.RunFlowSpec(file=value)
        at = _at(node, "file") if isinstance(value, m.RunFlowSpec) else node
        if spec.file is None:
            raise self.fail(node, "runFlow needs a file (with env) or commands")
        target = (self.source.path.parent / spec.file).resolve()
        shown = _shown(self.source.display, spec.file)
        if target in self.stack:
            names = [p.name for p in self.stack[self.stack.index(target) :]] + [target.name]
            raise self.fail(at, f"runFlow {spec.file}: a cycle of flows: {' -> '.join(names)}")
        if len(self.stack) >= MAX_FLOW_DEPTH:
            raise self.fail(at, f"runFlow nested deeper than {MAX_FLOW_DEPTH} flows")
        call = self.fail(at, f"runFlow {spec.file}")
        flow = self.loader._flow(target, shown, self.stack, spec.env, call)
        return RunFlow(flow)


def _attr(kind: type[m.FlowStruct]) -> str:
    return kind.__struct_fields__[0]


def _xy(point: str) -> tuple[int, int]:
    x, y = point.split(",")
    return int(x), int(y)


def duration_s(value: str | float | None) -> float | None:
    """A header duration (``500ms``, ``90s``, ``2m`` or a number of seconds) in seconds."""
    if value is None or isinstance(value, int | float):
        return None if value is None else float(value)
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*", value)
    if found is None:  # the model's pattern admits nothing else
        raise ValueError(f"not a duration: {value!r}")
    number = float(found.group(1))
    return {"ms": number / 1000, "s": number, "m": number * 60}[found.group(2)]


def _at(node: yaml.Node, key: str) -> yaml.Node:
    """The value node of ``key`` in ``node`` (``node`` itself when absent)."""
    found, missing = locate(node, f"$.{key}")
    return node if missing is not None else found


def _within_text(within: str | m.WithinSpec | None) -> str | None:
    if within is None or isinstance(within, str):
        return within
    return within.text


def _shown(caller: str, file: str) -> str:
    parent = Path(caller).parent
    return str(parent / file) if str(parent) != "." else file


def _unknown_step(name: str) -> str:
    close = difflib.get_close_matches(name, list(m.STEPS), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"unknown step {name!r}; {hint}steps: {', '.join(m.STEPS)}"


# ---- msgspec errors -> file, line and what was expected -----------------------------------------

_AT = re.compile(r"^(?P<what>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<key>[^`]*)`")
_MISSING = re.compile(r"Object missing required field `(?P<key>[^`]*)`")


def _validation_error(
    source: Source, root: yaml.Node, kind: type[Any], message: str, where: str
) -> FlowError:
    found = _AT.match(message)
    what = found.group("what") if found else message
    path = (found.group("path") if found else None) or "$"
    node, _ = locate(root, path)
    shown_path = path.removeprefix("$").removeprefix(".") or where
    expected = _expected(kind, path)
    if (u := _UNKNOWN.match(what)) is not None:
        key = u.group("key")
        fields = _fields(kind, path)
        close = difflib.get_close_matches(key, fields, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return source.error(
            key_node(node, key) or node,
            f"unknown key {key!r} in {shown_path}; {hint}expected one of: {', '.join(fields)}",
        )
    if (mi_ := _MISSING.match(what)) is not None:
        return source.error(node, f"{shown_path}: missing {mi_.group('key')!r}")
    tail = f"; expected {expected}" if expected else ""
    return source.error(node, f"{shown_path}: {what[0].lower()}{what[1:]}{tail}")


def _walk(kind: type[Any], path: str) -> list[mi.Type]:
    """Every type the error path may point at (unions followed along every branch)."""
    current: list[mi.Type] = [mi.type_info(kind)]
    for found in re.finditer(r"\.([^.\[]+)|\[(\d+)\]", path.removeprefix("$")):
        key = found.group(1)
        nxt: list[mi.Type] = []
        for t in _flatten(current):
            if key is not None and isinstance(t, mi.StructType):
                nxt.extend(f.type for f in t.fields if f.encode_name == key)
            elif key is None and isinstance(t, mi.ListType):
                nxt.append(t.item_type)
            elif key is not None and isinstance(t, mi.DictType):
                nxt.append(t.value_type)
        current = nxt
    return _flatten(current)


def _flatten(types: list[mi.Type]) -> list[mi.Type]:
    out: list[mi.Type] = []
    for t in types:
        if isinstance(t, mi.UnionType):
            out.extend(_flatten(list(t.types)))
        else:
            out.append(t)
    return out


def _fields(kind: type[Any], path: str) -> list[str]:
    names: list[str] = []
    for t in _walk(kind, path):
        if isinstance(t, mi.StructType):
            names.extend(f.encode_name for f in t.fields if f.encode_name not in names)
            if t.tag_field and t.tag_field not in names:
                names.insert(0, t.tag_field)
    return names


def _expected(kind: type[Any], path: str) -> str:
    values: list[str] = []
    for t in _walk(kind, path):
        if isinstance(t, mi.EnumType):
            values.extend(str(e.value) for e in t.cls)
        elif isinstance(t, mi.LiteralType):
            values.extend(str(v) for v in t.values)
    return f"one of: {', '.join(values)}" if values else ""


def describe(query: SemanticQuery) -> str:
    """A query in words, for reports ("BUTTON 'Continue' within 'Basic plan' #0")."""
    parts: list[str] = []
    if query.role is not None:
        parts.append(query.role.value)
    if query.text is not None:
        parts.append(repr(query.text.value))
    if query.label is not None:
        parts.append(f"label {query.label.value!r}")
    if query.resource_id is not None:
        parts.append(f"id {query.resource_id!r}")
    if query.state is not None:
        said = [
            f"{k}={v}".lower()
            for k, v in msgspec.structs.asdict(query.state).items()
            if v is not None
        ]
        parts.append("[" + ", ".join(said) + "]")
    if query.within is not None and query.within.text is not None:
        parts.append(f"within {query.within.text.value!r}")
    if query.nth is not None:
        parts.append(f"#{query.nth}")
    return " ".join(parts) or "any node"
