"""Maestro flow files -> checked ``Flow``s that mobridge's runner runs (Maestro's format as a
first-class input beside mobridge's YAML).

What a Maestro file says is checked when it loads, as mobridge's own files are: its header
(``appId``, ``name``, ``tags``, ``env``, ``onFlowStart``, ``onFlowComplete``, ``jsEngine``;
other keys are kept as Maestro keeps them), every command against Maestro's table
(``bridge.flows.maestro.commands``: unknown commands and keys are mistakes at their line and
column, with the closest real name), values (numbers may be strings; enums compare
case-insensitively), selectors (``text``/``id`` are Maestro's full-match regular
expressions, checked with RE2), ``runFlow`` / ``runScript`` files (missing files, cycles,
script syntax) and every ``${...}`` expression's JavaScript syntax. Mistakes are collected:
a bad header does not stop the commands from being checked.

Semantics stay mobridge's: a selector is resolved by the hub, and one that matches several
elements is refused (AMBIGUOUS_MATCH) unless it says ``index:`` — the runner's
``first_match`` option (``mobridge test --first-match``) picks the first instead and lists
each such choice. ``label`` names a step in reports. ``${...}`` is JavaScript evaluated when
the step starts (``bridge.flows.maestro.script``), so a command holding one is compiled
again then (``Templated``); at load it is checked with placeholder values.

Callers: ``bridge.flows.compile.FlowLoader`` hands a file here when ``is_maestro`` says so.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import re2
import yaml

from bridge.flows import model as m
from bridge.flows.errors import FlowError, FlowErrors
from bridge.flows.maestro import actions as a
from bridge.flows.maestro import commands as c
from bridge.flows.maestro.script import (
    Expr,
    has_template,
    script_syntax_error,
    split_template,
)
from bridge.flows.source import Converter, Source, locate
from bridge.wire.enums import ActionVerb, GlobalAction, KeyName, MatchMode, Orientation
from bridge.wire.query import QueryState, SemanticQuery, TextMatch, Within

if TYPE_CHECKING:
    from bridge.flows.compile import Flow, FlowLoader, Step, When

MAX_SCRIPT_BYTES = 256 * 1024
MAX_TIMEOUT_MS = 600_000
DEFAULT_WAIT_MS = 7000
_REGEX_META = set("\\^$*+?()[]{}|")
_RE2_OPTIONS: Any = re2.Options()
_RE2_OPTIONS.log_errors = False
_LONG_REGEX = 240
_BLOCKS = ("runFlow", "repeat", "retry")
_APP_COMMANDS = frozenset({"launchApp", "stopApp", "killApp", "clearState"})
"""Commands whose app defaults to the header's ``appId`` (which may hold ``${...}``)."""


class Mistake(Exception):
    """A mistake in a command's value, at ``path`` inside the step (keys and indexes)."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


# ---- which dialect a file is ----------------------------------------------------------------


def _names(node: yaml.Node | None) -> list[str]:
    """Command names of a list of steps, nested blocks included."""
    out: list[str] = []
    if not isinstance(node, yaml.SequenceNode):
        return out
    for item in node.value:
        if isinstance(item, yaml.ScalarNode):
            out.append(str(item.value))
        elif isinstance(item, yaml.MappingNode) and item.value:
            for k, v in item.value:
                out.append(str(getattr(k, "value", "")))
                if isinstance(v, yaml.MappingNode):
                    for k2, v2 in v.value:
                        if getattr(k2, "value", None) == "commands":
                            out.extend(_names(v2))
    return out


_MOBRIDGE_INPUT_KEYS = frozenset({"into", "secret", "verify", "submit"})
"""Keys only mobridge's ``inputText`` has (Maestro's reader would ignore them)."""


def _mobridge_inputs(node: yaml.Node | None) -> int:
    """How many ``inputText`` mappings use a key only mobridge's ``inputText`` has."""
    count = 0
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode) and len(item.value) == 1:
                k, v = item.value[0]
                if getattr(k, "value", None) == "inputText" and isinstance(v, yaml.MappingNode):
                    keys = {getattr(x, "value", "") for x, _ in v.value}
                    count += bool(keys & _MOBRIDGE_INPUT_KEYS)
    return count


def _closeness(name: str, names: Any) -> float:
    low = name.lower()
    return max((difflib.SequenceMatcher(None, low, n.lower()).ratio() for n in names), default=0.0)


def is_maestro(source: Source) -> bool | None:
    """Whether a file is written in Maestro's format, by its shape: the commands it uses (a
    Maestro-only name such as ``tapOn``, or a mobridge-only one such as ``tap``), the header's
    keys, and shapes only Maestro has (``inputText: some text``). None: nothing tells (the
    file uses only names both formats share) or both do (a broken file mixing them); the
    loader then tries mobridge's format first and Maestro's when that fails, and reports
    the reading with fewer mistakes."""
    docs = source.documents
    if not docs:
        return False
    if len(docs) == 1 and isinstance(docs[0], yaml.SequenceNode):  # commands, no header
        listed = _names(docs[0])
        ours = sum(1 for n in listed if n in m.STEPS and n not in c.COMMANDS)
        return ours == 0 or sum(1 for n in listed if n in c.COMMANDS) > ours
    header = docs[0] if isinstance(docs[0], yaml.MappingNode) else None
    keys = {str(getattr(k, "value", "")) for k, _ in header.value} if header else set()
    if keys & {"jsEngine", "url"}:
        return True
    if keys & {"reset", "setup", "timeout"}:
        return False
    names: list[str] = []
    for doc in docs[1:2]:
        names.extend(_names(doc))
    if header is not None:
        for k, v in header.value:
            if getattr(k, "value", None) in ("onFlowStart", "onFlowComplete"):
                names.extend(_names(v))
    maestro_only = sum(1 for n in names if n in c.COMMANDS and n not in m.STEPS)
    mobridge_only = sum(1 for n in names if n in m.STEPS and n not in c.COMMANDS)
    mobridge_only += _mobridge_inputs(docs[1] if len(docs) > 1 else None)
    for name in names:  # a misspelt name counts for the format whose name it is closest to
        if name not in c.COMMANDS and name not in m.STEPS and name not in m.MODIFIERS:
            near_ours, near_theirs = _closeness(name, m.STEPS), _closeness(name, c.COMMANDS)
            if max(near_ours, near_theirs) >= 0.6 and near_ours != near_theirs:
                maestro_only += int(near_theirs > near_ours)
                mobridge_only += int(near_ours > near_theirs)
    if maestro_only and mobridge_only:  # mixed (a broken file): whichever reads it better
        return None
    if maestro_only or mobridge_only:
        return maestro_only >= mobridge_only
    steps = docs[1] if len(docs) > 1 else None
    if isinstance(steps, yaml.SequenceNode):
        for item in steps.value:
            if isinstance(item, yaml.MappingNode) and len(item.value) == 1:
                k, v = item.value[0]
                if k.value == "inputText" and isinstance(v, yaml.ScalarNode):
                    return True
                if k.value == "swipe" and isinstance(v, yaml.MappingNode):
                    inner = {getattr(x, "value", "") for x, _ in v.value}
                    if inner & {"start", "end", "duration"}:
                        return True
                if k.value == "runFlow" and isinstance(v, yaml.MappingNode):
                    inner = {getattr(x, "value", "") for x, _ in v.value}
                    if "label" in inner:
                        return True
    return None


MOBRIDGE_TO_MAESTRO = {
    "tap": "tapOn",
    "longPress": "longPressOn",
    "doubleTap": "doubleTapOn",
    "assertScreen": "assertVisible",
    "assertValue": "assertVisible",
    "assertState": "assertVisible",
    "waitFor": "extendedWaitUntil",
    "terminateApp": "killApp",
    "expectRefusal": "retry",
}
"""A mobridge step written in a Maestro file: the Maestro command that says it."""


def suggest(name: str) -> str:
    """The Maestro command or mobridge step ``name`` most likely is ("" when none is close):
    by similarity of the whole name, case ignored (a name never suggests itself)."""
    if name in MOBRIDGE_TO_MAESTRO:
        return MOBRIDGE_TO_MAESTRO[name]
    pool = {n.lower(): n for n in [*c.COMMANDS, *m.STEPS] if n != name}
    close = difflib.get_close_matches(name.lower(), list(pool), n=1, cutoff=0.72)
    return pool[close[0]] if close else ""


# ---- loading one file -------------------------------------------------------------------------


class _Literal(Converter):
    """Plain data with ``${...}`` left as written (Maestro evaluates it when a step runs).
    Scalars keep their text where YAML 1.1 would change it: ``tapOn: YES`` is the word YES
    (only ``true``/``false`` are booleans), ``inputText: 007`` and ``1.50`` stay as written
    (Maestro reads a scalar's text for a text value)."""

    def expand(self, text: str, node: yaml.Node) -> str:
        return text

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        value = super()._scalar(node)
        raw = str(node.value)
        if isinstance(value, bool) and raw.lower() not in ("true", "false"):
            return raw
        if isinstance(value, int | float) and not isinstance(value, bool) and str(value) != raw:
            return raw
        return value


def load(
    loader: FlowLoader,
    source: Source,
    stack: tuple[Path, ...],
    call_env: Mapping[str, str],
) -> Flow:
    """The checked flow of one Maestro file (raises FlowErrors with every mistake)."""
    from bridge.flows.compile import Flow

    errors: list[FlowError] = []
    docs = source.documents
    header_node: yaml.Node | None = None
    steps_node: yaml.Node | None = None
    if not docs:
        raise FlowErrors(
            [
                source.error(
                    None,
                    "the file is empty; a Maestro flow is a header "
                    "(appId: ...), a line '---', then commands",
                )
            ]
        )
    if len(docs) == 1:
        if isinstance(docs[0], yaml.SequenceNode):
            steps_node = docs[0]
            errors.append(
                source.error(
                    docs[0], "the header is missing: start with 'appId: ...' and a line '---'"
                )
            )
        else:
            header_node = docs[0]
            errors.append(
                source.error(
                    docs[0], "no commands: add a line '---' and the commands (- tapOn: ...)"
                )
            )
    else:
        header_node, steps_node = docs[0], docs[1]
        if len(docs) > 2:
            errors.append(
                source.error(
                    docs[2],
                    "a third YAML document: a Maestro flow is a header, '---', then commands",
                )
            )
    header, env = _header(source, header_node, errors)
    flow = Flow(file=source.display, path=source.path, header=header, maestro=True, env=env)
    ctx = MaestroContext(
        loader, source, (*stack, source.path), errors, header.app_id, dict(call_env)
    )
    if isinstance(header_node, yaml.MappingNode):
        for key, attr in (("onFlowStart", "on_start"), ("onFlowComplete", "on_complete")):
            node, missing = locate(header_node, f"$.{key}")
            if missing is None and node is not header_node:
                if isinstance(node, yaml.MappingNode):
                    node, missing = locate(node, "$.commands")
                if isinstance(node, yaml.SequenceNode):
                    setattr(flow, attr, ctx.steps(node))
                else:
                    errors.append(source.error(node, f"{key} is a list of commands"))
    if steps_node is not None:
        if isinstance(steps_node, yaml.SequenceNode):
            flow.steps = ctx.steps(steps_node)
        elif not (isinstance(steps_node, yaml.ScalarNode) and steps_node.value in ("", None)):
            errors.append(source.error(steps_node, "the commands must be a list (- tapOn: ...)"))
    if errors:
        raise FlowErrors(errors)
    return flow


def _header(
    source: Source, node: yaml.Node | None, errors: list[FlowError]
) -> tuple[m.FlowHeader, dict[str, str]]:
    """The header as mobridge's FlowHeader (reset ``none``: a Maestro flow launches its app
    itself) and its env (values as written, ``${...}`` evaluated when the test starts)."""
    app_id, name = "", None
    tags: list[str] = []
    env: dict[str, str] = {}
    if node is None:
        return m.FlowHeader(app_id="unknown", reset="none"), env
    if not isinstance(node, yaml.MappingNode):
        errors.append(source.error(node, "the header is a mapping: appId: com.example.app"))
        return m.FlowHeader(app_id="unknown", reset="none"), env
    try:
        data = _Literal(source, {}).data(node)
    except FlowError as exc:
        errors.append(exc)
        return m.FlowHeader(app_id="unknown", reset="none"), env

    def bad(key: str, message: str) -> None:
        errors.append(source.error(locate(node, f"$.{key}")[0], message))

    raw_app = data.get("appId", data.get("url"))
    if raw_app is None:
        errors.append(source.error(node, "the header needs appId (the app's package or bundle id)"))
    elif not isinstance(raw_app, str) or not raw_app.strip():
        bad("appId", "appId is the app's package or bundle id (a word)")
    else:
        app_id = raw_app.strip()
    if "name" in data:
        if isinstance(data["name"], str | int | float):
            name = str(data["name"])[:200] or None
        else:
            bad("name", "name is a text")
    if "tags" in data:
        if isinstance(data["tags"], list) and all(isinstance(t, str | int) for t in data["tags"]):
            tags = [str(t) for t in data["tags"]]
        elif isinstance(data["tags"], str):
            tags = [data["tags"]]
        else:
            bad("tags", "tags is a list of words")
    if "env" in data:
        if isinstance(data["env"], dict):
            for k, v in data["env"].items():
                if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", k):
                    bad(f"env.{k}", f"env name {k!r}: letters, digits, _ and $")
                elif isinstance(v, dict | list):
                    bad(f"env.{k}", f"env {k}: a text or number, not a {type(v).__name__}")
                else:
                    env[k] = "" if v is None else _text(v)
        elif data["env"] is not None:
            bad("env", "env is a mapping of NAME: value")
    if "jsEngine" in data and str(data["jsEngine"]).lower() not in ("graaljs", "rhino"):
        bad("jsEngine", "jsEngine is graaljs or rhino (both run here on QuickJS)")
    for key in data:
        if key not in c.HEADER_KEYS:
            close = difflib.get_close_matches(key, list(c.HEADER_KEYS), n=1, cutoff=0.75)
            if close:  # Maestro keeps unknown keys; a near miss of a real one is a mistake
                bad(key, f"unknown header key {key!r}; did you mean {close[0]!r}?")
    header = m.FlowHeader(app_id=app_id or "unknown", name=name, tags=tags, reset="none")
    return header, env


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---- commands ---------------------------------------------------------------------------------


@dataclass
class MaestroContext:
    """Compiles the commands of one file (mistakes collected in ``errors``)."""

    loader: FlowLoader
    source: Source
    stack: tuple[Path, ...]
    errors: list[FlowError]
    app_id: str
    call_env: dict[str, str] = field(default_factory=dict)
    depth: int = 0

    def steps(self, node: yaml.SequenceNode) -> list[Step]:
        from bridge.flows.compile import MAX_STEPS

        out: list[Step] = []
        if len(node.value) > MAX_STEPS:
            self.errors.append(self.source.error(node, f"more than {MAX_STEPS} commands"))
            return out
        for item in node.value:
            try:
                step = self.step(item)
            except FlowError as exc:
                self.errors.append(exc)
            except FlowErrors as exc:
                self.errors.extend(exc.errors)
            else:
                if step is not None:
                    out.append(step)
        return out

    def step(self, item: yaml.Node) -> Step | None:
        from bridge.flows.compile import Step

        source = self.source
        if isinstance(item, yaml.ScalarNode):
            name = str(item.value)
            name_node: yaml.Node = item
            value: Any = None
            value_node: yaml.Node = item
        elif isinstance(item, yaml.MappingNode) and item.value:
            if len(item.value) > 1:
                names = [str(getattr(k, "value", "?")) for k, _ in item.value]
                raise source.error(
                    item.value[1][0],
                    f"a command has one key, this one has {len(names)}: {', '.join(names)}; "
                    "indent its options under the command's name",
                )
            name_node, value_node = item.value[0]
            name = str(getattr(name_node, "value", ""))
            value = _Literal(source, {}).data(value_node)
        else:
            raise source.error(item, "a command is '- name' or '- name: value' (- tapOn: Login)")
        spec = c.COMMANDS.get(name)
        if spec is None:
            close = suggest(name)
            hint = f"; did you mean '{close}'?" if close else ""
            if name in m.STEPS:
                hint = f" in a Maestro file (a mobridge step){hint}"
            raise source.error(name_node, f"unknown command {name!r}{hint}")
        if value is None and not spec.bare:
            if isinstance(item, yaml.ScalarNode) or spec.scalar is None:
                raise source.error(name_node, f"{name} needs a value ({name}: ...)")
        label, optional, when_data = None, False, None
        ignored: tuple[str, ...] = ()
        if isinstance(value, dict):
            unknown = [k for k in value if k not in spec.keys]
            if unknown and name in c.LENIENT:  # Maestro reads these leniently: so do we
                ignored = tuple(str(k) for k in unknown)
                value = {k: v for k, v in value.items() if k in spec.keys}
            elif unknown:
                key = unknown[0]
                at = _key_node(value_node, key) or value_node
                if key == "timeout" and name in c.NO_TIMEOUT:
                    raise source.error(
                        at,
                        f"{name} has no timeout in Maestro (it waits a few seconds by "
                        "itself); to wait longer use extendedWaitUntil: {visible: ..., "
                        "timeout: ...}",
                    )
                near = difflib.get_close_matches(key, sorted(spec.keys), n=1, cutoff=0.6)
                hint = f"did you mean {near[0]!r}? " if near else ""
                raise source.error(
                    at, f"unknown key {key!r} in {name}; {hint}keys: {', '.join(sorted(spec.keys))}"
                )
            if value.get("label") is not None:
                label = _text(value["label"])[:200]
            opt = value.get("optional", False)
            if not isinstance(opt, bool) and str(opt).lower() not in ("true", "false"):
                raise self._at(value_node, ("optional",), "optional is true or false")
            optional = opt is True or str(opt).lower() == "true"
            when_data = value.get("when")
        place = source.place(name_node)
        when = None
        if when_data is not None:
            when = self.when(when_data, value_node, ("when",))
        try:
            action = self.action(name, value, value_node)
        except Mistake as exc:
            raise self._at(value_node, exc.path, f"{name}: {exc.message}") from None
        if ignored and isinstance(action, a.Typing):
            action = dataclasses.replace(action, ignored=ignored)
        return Step(
            kind=name,
            place=place,
            source=source.snippet(item),
            action=action,
            optional=optional,
            when=when,
            label=label,
        )

    def _at(self, node: yaml.Node, path: tuple[str | int, ...], message: str) -> FlowError:
        text = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        found, _ = locate(node, text)
        return self.source.error(found, message)

    # ---- a command's value -> an action ----------------------------------------------------

    def action(self, name: str, value: Any, node: yaml.Node) -> Any:
        """The action of one command; blocks compile their commands now, any other command
        holding ``${...}`` is checked with placeholders and kept as ``Templated``."""
        if name in _BLOCKS:
            return self._block(name, value, node)
        if name == "evalScript" or name == "assertTrue":
            self._check_scripts(value, ())
            return build(name, value, self._base(), self.app_id, self.source.display, 0)
        if name == "runScript":
            return self._run_script(value, node)
        app_from_header = name in _APP_COMMANDS and has_template(self.app_id)
        if _templated(value) or app_from_header:  # ``appId: ${APP_ID}`` is evaluated too
            self._check_scripts(value, ())
            build(name, _placeholders(value), self._base(), self.app_id, "", 0)
            line = self.source.place(node).line
            return a.Templated(name, value, self.source.display, line, self._base(), self.app_id)
        return build(name, value, self._base(), self.app_id, self.source.display, 0)

    def _base(self) -> str:
        return str(self.source.path.parent)

    def _check_scripts(self, value: Any, path: tuple[str | int, ...]) -> None:
        """Every ``${...}`` in ``value`` must be a JavaScript expression."""
        if isinstance(value, str):
            for part in split_template(value):
                if isinstance(part, Expr):
                    error = script_syntax_error(part.code)
                    if error is not None:
                        raise Mistake(path, f"${{{part.code.strip()[:60]}}}: {error[1]}")
        elif isinstance(value, dict):
            for k, v in value.items():
                if k != "commands":
                    self._check_scripts(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self._check_scripts(v, (*path, i))

    def when(self, data: Any, node: yaml.Node, path: tuple[str | int, ...]) -> When:
        """Maestro's ``when`` / ``while``: ``platform`` (case ignored), ``visible``,
        ``notVisible``, ``true`` (JavaScript when it holds ``${...}``, decided when the step
        starts)."""
        from bridge.flows.compile import When

        if not isinstance(data, dict):
            raise self._at(node, path, "when is a mapping: platform, visible, notVisible, true")
        keys = {"platform", "visible", "notVisible", "true", "label", "optional"}
        for key in data:
            if key not in keys:
                close = difflib.get_close_matches(key, sorted(keys), n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self._at(node, (*path, key), f"unknown key {key!r} in when{hint}")
        said: list[str] = []
        platform = None
        if data.get("platform") is not None:
            platform = str(data["platform"]).lower()
            if platform not in c.PLATFORMS:
                raise self._at(
                    node,
                    (*path, "platform"),
                    f"platform is Android, iOS or Web, not {data['platform']!r}",
                )
            said.append(f"platform {platform}")
        visible = not_visible = None
        try:
            if data.get("visible") is not None:
                visible = pick(data["visible"], (*path, "visible")).query
                said.append(f"visible {_said(visible)}")
            if data.get("notVisible") is not None:
                not_visible = pick(data["notVisible"], (*path, "notVisible")).query
                said.append(f"not visible {_said(not_visible)}")
            truth: bool | None = None
            script: str | None = None
            if "true" in data:
                raw = _text(data["true"]) if data["true"] is not None else ""
                self._check_scripts(raw, (*path, "true"))
                if has_template(raw):
                    script = raw
                    said.append(f"true: {raw}")
                else:
                    truth = raw.strip().lower() not in ("", "false", "0", "no", "off", "null")
                    said.append(f"true is {str(truth).lower()}")
        except Mistake as exc:
            raise self._at(node, exc.path, exc.message) from None
        if not said:
            raise self._at(node, path, "when needs platform, visible, notVisible or true")
        return When(visible, not_visible, platform, truth, " and ".join(said), script=script)

    def _block(self, name: str, value: Any, node: yaml.Node) -> Any:
        from bridge.flows.compile import MAX_BLOCK_DEPTH, Block, RunFlow, Step

        if isinstance(value, str) and name == "runFlow":
            if has_template(value):
                raise self._at(node, (), "runFlow: the file's name cannot hold ${...}")
            absent = self._absent(value, node, (), "runFlow")
            return absent if absent is not None else RunFlow(self._flow_file(value, node, ()))
        if not isinstance(value, dict):
            raise self._at(node, (), f"{name} needs a mapping (commands: [...])")
        env = value.get("env") or {}
        if not isinstance(env, dict):
            raise self._at(node, ("env",), f"{name}: env is a mapping of NAME: value")
        env = {str(k): "" if v is None else _text(v) for k, v in env.items()}
        try:
            self._check_scripts(env, ("env",))
        except Mistake as exc:
            raise self._at(node, exc.path, f"{name}: {exc.message}") from None
        has_file = value.get("file") is not None
        has_commands = value.get("commands") is not None
        if name != "repeat" and has_file == has_commands:
            raise self._at(node, (), f"{name} takes a file or commands (exactly one)")
        if name == "repeat" and not has_commands:
            raise self._at(node, (), "repeat needs commands")
        steps: list[Step] = []
        if has_file:
            file = value["file"]
            if not isinstance(file, str) or has_template(file):
                raise self._at(node, ("file",), f"{name}: file is a path (no ${{...}})")
            inner: Any = self._absent(file, node, ("file",), "runFlow")
            if inner is None:
                inner = RunFlow(self._flow_file(file, node, ("file",), env))
            if name == "runFlow":
                return a.Scope(env, inner) if env else inner
            place = self.source.place(node)
            steps = [Step("runFlow", place, f"runFlow: {file}", inner)]
        else:
            at = locate(node, "$.commands")[0]
            if not isinstance(at, yaml.SequenceNode):
                raise self._at(node, ("commands",), f"{name}: commands is a list of commands")
            if not at.value:
                raise self._at(node, ("commands",), f"{name}: commands is empty")
            if self.depth >= MAX_BLOCK_DEPTH:
                raise self._at(node, ("commands",), f"blocks nested deeper than {MAX_BLOCK_DEPTH}")
            self.depth += 1
            try:
                steps = self.steps(at)
            finally:
                self.depth -= 1
        block: Any
        if name == "repeat":
            times = value.get("times")
            count = None
            times_script = None
            if times is not None:
                if isinstance(times, str) and has_template(times):
                    times_script = times
                else:
                    count = _int(times, ("times",), 1, m.MAX_TIMES)
            cond = None
            if value.get("while") is not None:
                cond = self.when(value["while"], node, ("while",))
            if count is None and cond is None and times_script is None:
                raise self._at(node, (), "repeat needs times, while, or both")
            block = Block(steps, times=count, while_=cond, times_script=times_script)
        elif name == "retry":
            retries = value.get("maxRetries", 1)
            count = _int(retries, ("maxRetries",), 0, m.MAX_RETRIES)
            block = Block(steps, max_retries=count)
        else:
            block = Block(steps)
        return a.Scope(env, block) if env else block

    def _absent(self, file: str, node: yaml.Node, path: tuple[str | int, ...], command: str) -> Any:
        """None when ``file`` (relative to this flow) exists; else the step's refusal, and a
        warning on the loader. Maestro rejects the whole flow when it parses one; here the flow
        loads (a suite whose repository leaves out a generated or git-ignored helper is still
        checked and run) and that step fails when it runs, naming the file. ``--check`` prints
        the warning, so a mistyped path is still seen before anything runs."""
        if (self.source.path.parent / file).exists():
            return None
        said = f"{command} {file}: no such file"
        self.loader.warnings.append(
            self._at(node, path, f"{said} (this step fails when it runs; Maestro refuses the flow)")
        )
        return a.Refuse(said)

    def _flow_file(
        self,
        file: str,
        node: yaml.Node,
        path: tuple[str | int, ...],
        env: Mapping[str, str] | None = None,
    ) -> Flow:
        from bridge.flows.compile import MAX_FLOW_DEPTH, _shown

        at = self._at(node, path, f"runFlow {file}")
        target = (self.source.path.parent / file).resolve()
        if target in self.stack:
            names = [p.name for p in self.stack[self.stack.index(target) :]] + [target.name]
            raise self._at(node, path, f"runFlow {file}: a cycle of flows: {' -> '.join(names)}")
        if len(self.stack) >= MAX_FLOW_DEPTH:
            raise self._at(node, path, f"runFlow nested deeper than {MAX_FLOW_DEPTH} flows")
        literal = {k: v for k, v in (env or {}).items() if not has_template(v)}
        return self.loader._flow(
            target, _shown(self.source.display, file), self.stack, {**self.call_env, **literal}, at
        )

    def _run_script(self, value: Any, node: yaml.Node) -> Any:
        spec = value if isinstance(value, dict) else {"file": value}
        file = spec.get("file")
        if isinstance(file, str) and ("\n" in file.strip() or len(file) > 1024):
            raise self._at(
                node,
                ("file",) if isinstance(value, dict) else (),
                "runScript names a .js file; this value is several lines of code (put them "
                "in a file, or use evalScript for one JavaScript expression)",
            )
        if not isinstance(file, str) or not file:
            raise self._at(
                node,
                ("file",) if isinstance(value, dict) else (),
                "runScript needs a file (a .js path)",
            )
        env = spec.get("env") or {}
        if not isinstance(env, dict):
            raise self._at(node, ("env",), "runScript: env is a mapping of NAME: value")
        env = {str(k): "" if v is None else _text(v) for k, v in env.items()}
        try:
            self._check_scripts(env, ("env",))
        except Mistake as exc:
            raise self._at(node, exc.path, f"runScript: {exc.message}") from None
        path = (self.source.path.parent / file).resolve()
        where = ("file",) if isinstance(value, dict) else ()
        absent = self._absent(file, node, where, "runScript")
        if absent is not None:
            return absent
        try:
            if path.stat().st_size > MAX_SCRIPT_BYTES:
                raise self._at(node, where, f"runScript {file}: over {MAX_SCRIPT_BYTES} bytes")
            code = path.read_text("utf-8")
        except FileNotFoundError:
            raise self._at(node, where, f"runScript {file}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise self._at(node, where, f"runScript {file}: cannot read it ({exc})") from None
        shown = _display(self.source.display, file)
        bad = script_syntax_error(code)
        if bad is not None:
            raise FlowError(_place(shown, bad[0]), bad[1])
        return a.Script(code, shown, 1, env)


def _display(caller: str, file: str) -> str:
    from bridge.flows.compile import _shown

    return _shown(caller, file)


def _place(file: str, line: int) -> Any:
    from bridge.flows.errors import Place

    return Place(file, line, 1)


def _key_node(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if getattr(k, "value", None) == key:
                return k  # type: ignore[no-any-return]
    return None


def _templated(value: Any) -> bool:
    if isinstance(value, str):
        return has_template(value)
    if isinstance(value, dict):
        return any(_templated(v) for k, v in value.items() if k not in ("commands", "label"))
    if isinstance(value, list):
        return any(_templated(v) for v in value)
    return False


def _placeholders(value: Any, key: str = "") -> Any:
    """``value`` with each ``${...}`` replaced by a stand-in (``1``, so a number field still
    reads as one; a point ``50%,50%``) to check its shape at load."""
    if isinstance(value, str):
        if key in ("point", "start", "end") and has_template(value):
            return "50%,50%"
        parts = split_template(value)
        return "".join(p if isinstance(p, str) else "1" for p in parts)
    if isinstance(value, dict):
        return {k: _placeholders(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_placeholders(v) for v in value]
    return value


# ---- building actions from plain values (at load, and again at run time for Templated) ----


def build(name: str, value: Any, base: str, app_id: str, file: str, line: int) -> Any:
    """The action of command ``name`` with ``value`` (plain data, ``${...}`` already
    evaluated or absent). Raises Mistake. Blocks and ``runScript`` are compiled by the
    context (they name files and hold commands)."""
    from bridge.flows.compile import (
        AppManage,
        Capability,
        KeyPressed,
        Launch,
        OpenLink,
        Press,
        Recording,
        SetOrientation,
        StopApp,
        TakeScreenshot,
    )

    spec = value if isinstance(value, dict) else {}
    scalar = value if not isinstance(value, dict | list) else None
    match name:
        case "tapOn" | "doubleTapOn" | "longPressOn":
            what = {"tapOn": "tap", "doubleTapOn": "doubleTap", "longPressOn": "longPress"}[name]
            repeat = _int(spec.get("repeat", 1), ("repeat",), 0, 100) or 1
            delay = _int(spec.get("delay", 100), ("delay",), 0, 10_000)
            if name == "doubleTapOn":
                repeat, delay = 2, _int(spec.get("delay", 100), ("delay",), 0, 10_000)
            relative = None
            if spec.get("point") is not None:
                x, y, percent = _point(spec["point"], ("point",))
                if not any(k in spec for k in c.SELECTOR_KEYS):
                    return a.AtPoint(what, x, y, percent, repeat, delay)
                relative = (x, y, percent)  # a point inside the element (Maestro's relativePoint)
            target = pick({k: v for k, v in spec.items() if k != "point"} or value, ())
            return a.OnElement(what, target, repeat, delay, DEFAULT_WAIT_MS, relative)
        case "assertVisible" | "assertNotVisible":
            return a.Visible(pick(value, ()), name == "assertVisible", DEFAULT_WAIT_MS)
        case "copyTextFrom":
            return a.OnElement("copyText", pick(value, ()))
        case "extendedWaitUntil":
            if not isinstance(value, dict):
                raise Mistake((), "needs visible or notVisible, and timeout")
            timeout = _int(spec.get("timeout", DEFAULT_WAIT_MS), ("timeout",), 0, MAX_TIMEOUT_MS)
            if (spec.get("visible") is None) == (spec.get("notVisible") is None):
                raise Mistake((), "give visible or notVisible (one of them)")
            if spec.get("visible") is not None:
                return a.Visible(pick(spec["visible"], ("visible",)), True, timeout)
            return a.Visible(pick(spec["notVisible"], ("notVisible",)), False, timeout)
        case "assertTrue":
            cond = spec.get("condition") if isinstance(value, dict) else value
            if cond is None:
                raise Mistake((), "needs a condition (assertTrue: ${output.ok})")
            return a.AssertTrue(_text(cond))
        case "evalScript":
            code = spec.get("script") if isinstance(value, dict) else value
            if not isinstance(code, str) or not code.strip():
                raise Mistake((), "needs a script (evalScript: ${output.n = 1})")
            return a.Script(code, file, line, {"__template__": "1"})
        case "assertWithAI" | "assertNoDefectsWithAI" | "extractTextWithAI":
            return a.Refuse(f"{name} needs an AI model, and none is configured for mobridge")
        case "back":
            return Press(GlobalAction.BACK)
        case "hideKeyboard":
            return Capability("hideKeyboard")
        case "clearKeychain":
            return a.Refuse(
                "clearKeychain: an iPhone's keychain cannot be cleared through its agent, and "
                "Android has no keychain"
            )
        case "pasteText":
            return a.Typing("paste")
        case "scroll":
            return a.ScreenScroll()
        case "inputText":
            text = spec.get("text") if isinstance(value, dict) else value
            if text is None or isinstance(text, dict | list):
                raise Mistake(("text",) if isinstance(value, dict) else (), "needs a text")
            redact = isinstance(value, dict) and spec.get("redact") is True
            return a.Typing("text", _text(text), redact=redact)
        case "inputRandomText" | "inputRandomNumber":
            raw = spec.get("length", 8) if isinstance(value, dict) else (scalar or 8)
            kind = "randomText" if name == "inputRandomText" else "randomNumber"
            return a.Typing(kind, length=_int(raw, ("length",), 1, 1000))
        case "inputRandomEmail":
            return a.Typing("randomEmail")
        case "inputRandomPersonName":
            return a.Typing("randomPersonName")
        case "inputRandomCityName" | "inputRandomCountryName" | "inputRandomColorName":
            return a.Typing("random" + name.removeprefix("inputRandom"))
        case "setDarkMode" | "toggleDarkMode" | "assertDarkMode" | "assertLightMode":
            if name == "setDarkMode":
                raw = spec.get("value") if isinstance(value, dict) else scalar
                _enum(raw, ("value",) if isinstance(value, dict) else (), ("ENABLED", "DISABLED"))
            return a.Refuse(
                f"{name}: the hub has no appearance (dark mode) action for any device yet"
            )
        case "eraseText":
            raw = spec.get("charactersToErase", 50) if isinstance(value, dict) else (scalar or 50)
            return a.Erase(_int(raw, ("charactersToErase",), 0, 10_000))
        case "launchApp":
            app = spec.get("appId") if isinstance(value, dict) else scalar
            app = _text(app) if app is not None else app_id
            for key in ("clearState", "clearKeychain", "stopApp"):
                if key in spec and not isinstance(spec[key], bool):
                    raise Mistake((key,), f"{key} is true or false")
            perms = spec.get("permissions")
            if perms is not None:
                _permissions(perms, ("permissions",))
            args = spec.get("arguments")
            if args is not None and not isinstance(args, dict | list):
                raise Mistake(("arguments",), "arguments is a mapping of name: value")
            launch = Launch(app, bool(spec.get("clearState")))
            if spec.get("clearKeychain"):
                return a.Refuse(
                    "launchApp clearKeychain: no device here can clear a keychain through its "
                    "agent (drop clearKeychain, or clear it on the device by hand)"
                )
            if perms is None and args is None:
                return launch
            wanted: dict[str, str] = {}
            skipped: list[str] = []
            verbs = {"allow": "grant", "deny": "revoke", "unset": "reset"}
            for name_, said_ in (perms or {}).items():
                verb = verbs[str(said_).lower()]
                key = str(name_).lower()
                if key == "all":
                    wanted.update({p: verb for p in dict.fromkeys(c.PERMISSIONS.values())})
                elif key in c.PERMISSIONS:
                    wanted[c.PERMISSIONS[key]] = verb
                else:
                    skipped.append(str(name_))
            if isinstance(args, list):
                pairs = tuple((_text(v), "") for v in args)
            else:
                pairs = tuple((str(k), _text(v)) for k, v in (args or {}).items())
            if len(pairs) > 32 or any(not 0 < len(k) <= 64 or len(v) > 1024 for k, v in pairs):
                raise Mistake(
                    ("arguments",),
                    "at most 32 arguments, each a name of 1-64 characters and a value of at "
                    "most 1024",
                )
            return a.LaunchApp(launch, tuple(wanted.items()), tuple(skipped), pairs)
        case "stopApp":
            app = spec.get("appId") if isinstance(value, dict) else scalar
            return StopApp(_text(app) if app is not None else app_id)
        case "killApp":
            app = spec.get("appId") if isinstance(value, dict) else scalar
            return AppManage("terminate", _text(app) if app is not None else app_id, approve=True)
        case "clearState":
            app = spec.get("appId") if isinstance(value, dict) else scalar
            return AppManage("clear", _text(app) if app is not None else app_id, approve=True)
        case "openLink" | "openBrowser":
            link = spec.get("link") if isinstance(value, dict) else scalar
            if not isinstance(link, str) or not link:
                raise Mistake(("link",) if isinstance(value, dict) else (), "needs a link (URL)")
            for key in ("browser", "autoVerify"):
                if key in spec and not isinstance(spec[key], bool):
                    raise Mistake((key,), f"{key} is true or false")
            return OpenLink(link)
        case "pressKey":
            pressed = spec.get("key") if isinstance(value, dict) else scalar
            if not isinstance(pressed, str):
                raise Mistake(("key",) if isinstance(value, dict) else (), "needs a key name")
            said = " ".join(pressed.lower().replace("_", " ").split())
            if said in c.UNSUPPORTED_KEYS:
                return a.Refuse(f"pressKey {pressed}: no device here has that key")
            mapped = c.KEYS.get(said)
            if mapped is None:
                names = [
                    "Enter",
                    "Backspace",
                    "Back",
                    "Home",
                    "Volume Up",
                    "Volume Down",
                    "Remote Dpad Up",
                    "Remote Dpad Down",
                    "Remote Dpad Left",
                    "Remote Dpad Right",
                    "Remote Dpad Center",
                    "Remote Media Play Pause",
                    "Escape",
                    "Tab",
                    "Remote Menu",
                    "Lock",
                    "Power",
                ]
                close = difflib.get_close_matches(pressed.lower(), [n.lower() for n in names], n=1)
                hint = f"; did you mean {close[0].title()!r}?" if close else ""
                raise Mistake(
                    ("key",) if isinstance(value, dict) else (), f"unknown key {pressed!r}{hint}"
                )
            if mapped in ("back", "home"):
                return Press(GlobalAction.BACK if mapped == "back" else GlobalAction.HOME)
            return KeyPressed(KeyName(mapped.upper()))
        case "action":
            word = str(value)
            table = {
                "back": "back",
                "hideKeyboard": "hideKeyboard",
                "scroll": "scroll",
                "clearKeychain": "clearKeychain",
                "pasteText": "pasteText",
            }
            if word not in table:
                raise Mistake((), f"unknown action {word!r} (back, hideKeyboard, scroll, ...)")
            return build(table[word], None, base, app_id, file, line)
        case "takeScreenshot":
            path = spec.get("path") if isinstance(value, dict) else scalar
            if path is None:
                raise Mistake(("path",), "needs a path (a name for the screenshot)")
            if spec.get("cropOn") is not None:
                return a.Screenshot(_shot_name(_text(path)), pick(spec["cropOn"], ("cropOn",)))
            return TakeScreenshot(_shot_name(_text(path)))
        case "assertScreenshot":
            path = spec.get("path") if isinstance(value, dict) else scalar
            if path is None:
                raise Mistake(("path",), "needs a path (the reference image)")
            _float(spec.get("thresholdPercentage", 95), ("thresholdPercentage",), 0, 100)
            return a.Refuse(
                "assertScreenshot: comparing the screen with a reference image is not done "
                "here yet (takeScreenshot keeps it in the report)"
            )
        case "startRecording":
            path = spec.get("path") if isinstance(value, dict) else scalar
            if path is None:
                raise Mistake(("path",), "needs a path (a name for the recording)")
            return Recording(_shot_name(_text(path)))
        case "stopRecording":
            return Recording(None)
        case "swipe":
            return _swipe(value)
        case "scrollUntilVisible":
            if not isinstance(value, dict) or value.get("element") is None:
                raise Mistake(("element",), "needs an element")
            direction = _enum(spec.get("direction", "DOWN"), ("direction",), c.DIRECTIONS)
            timeout = _int(
                spec.get("timeout", 20_000), ("timeout",), -MAX_TIMEOUT_MS, MAX_TIMEOUT_MS
            )
            if timeout < 0:  # Maestro takes a negative timeout for its default
                timeout = 20_000
            speed = _int(spec.get("speed", 40), ("speed",), -1000, 1000)
            swipe_ms = int(1000 * (100 - speed) / 100) + 1
            if swipe_ms < 0:  # Maestro: a speed over 100 is its default
                swipe_ms = 601
            swipe_ms = min(max(swipe_ms, 50), 10_000)
            seen = _int(
                spec.get("visibilityPercentage", 100), ("visibilityPercentage",), -1000, 1000
            )
            center = spec.get("centerElement", False)
            if isinstance(center, str) and center.lower() in ("true", "false"):
                center = center.lower() == "true"
            if not isinstance(center, bool):
                raise Mistake(("centerElement",), "centerElement is true or false")
            return a.ScrollTo(
                pick(spec["element"], ("element",)),
                direction,
                timeout,
                swipe_ms,
                min(max(seen, 0), 100),  # clamped as Maestro clamps it
                center,
            )
        case "setLocation":
            if not isinstance(value, dict):
                raise Mistake((), "needs latitude and longitude")
            lat = _float(spec.get("latitude"), ("latitude",), -90, 90)
            lon = _float(spec.get("longitude"), ("longitude",), -180, 180)
            return Capability("setLocation", latitude=lat, longitude=lon)
        case "travel":
            points = spec.get("points")
            if not isinstance(points, list) or len(points) < 1:
                raise Mistake(("points",), 'needs points: ["lat,lon", ...]')
            out: list[tuple[float, float]] = []
            for i, p in enumerate(points[:1000]):
                parts = str(p).split(",")
                if len(parts) != 2:
                    raise Mistake(("points", i), f"a point is 'latitude,longitude', not {p!r}")
                out.append(
                    (
                        _float(parts[0], ("points", i), -90, 90),
                        _float(parts[1], ("points", i), -180, 180),
                    )
                )
            mps = _float(spec.get("speed", 7.9), ("speed",), 0.01, 1e6)
            return a.Travel(tuple(out), mps)
        case "addMedia":
            files = value if isinstance(value, list) else spec.get("files")
            if not isinstance(files, list) or not files:
                raise Mistake(("files",), "needs files: [path, ...]")
            return a.Refuse(
                "addMedia: adding photos or videos to a device's gallery is not a "
                "hub action; the simulated device has no gallery"
            )
        case "setAirplaneMode":
            raw = spec.get("value") if isinstance(value, dict) else scalar
            word = _enum(
                raw, ("value",) if isinstance(value, dict) else (), ("ENABLED", "DISABLED")
            )
            return a.Network(word == "ENABLED")
        case "toggleAirplaneMode":
            return a.Network(None)
        case "setOrientation":
            raw = spec.get("orientation") if isinstance(value, dict) else scalar
            squeezed = str(raw).replace("_", "").replace("-", "").upper()
            for name_ in c.ORIENTATIONS:  # newer Maestro also reads landscapeLeft
                if name_.replace("_", "") == squeezed:
                    raw = name_
            word = _enum(
                raw, ("orientation",) if isinstance(value, dict) else (), tuple(c.ORIENTATIONS)
            )
            mapped = c.ORIENTATIONS[word]
            if mapped is None:
                return a.Refuse(f"setOrientation {word}: no device here turns upside down")
            return SetOrientation(Orientation(mapped))
        case "setClipboard":
            text = spec.get("text") if isinstance(value, dict) else scalar
            if text is None:
                raise Mistake(("text",), "needs a text")
            return Capability("setClipboard", text=_text(text))
        case "setPermissions":
            perms = spec.get("permissions")
            if not isinstance(perms, dict):
                raise Mistake(("permissions",), "needs permissions: {name: allow|deny|unset}")
            _permissions(perms, ("permissions",))
            return a.Refuse(
                "setPermissions: set permissions with launchApp's permissions, or "
                "mobridge's setPermission step"
            )
        case "waitForAnimationToEnd":
            timeout = _int(spec.get("timeout", 15_000), ("timeout",), 0, MAX_TIMEOUT_MS)
            return a.Settle(timeout)
    raise Mistake((), f"{name} is not handled here")  # pragma: no cover


def _swipe(value: Any) -> a.SwipeSpec:
    if isinstance(value, str):
        return a.SwipeSpec(direction=_enum(value, (), c.DIRECTIONS))
    if not isinstance(value, dict):
        raise Mistake((), "needs direction, or start and end")
    duration = _int(value.get("duration", 400), ("duration",), 1, 60_000)
    if value.get("start") is not None or value.get("end") is not None:
        if value.get("start") is None or value.get("end") is None:
            raise Mistake((), "give start and end (both)")
        x1, y1, p1 = _point(value["start"], ("start",))
        x2, y2, p2 = _point(value["end"], ("end",))
        if p1 != p2:
            raise Mistake(("end",), "start and end are both percent or both pixels")
        return a.SwipeSpec(start=(x1, y1), end=(x2, y2), percent=p1, duration_ms=duration)
    if value.get("direction") is None:
        raise Mistake(("direction",), "needs direction (UP, DOWN, LEFT, RIGHT), or start and end")
    direction = _enum(value["direction"], ("direction",), c.DIRECTIONS)
    target = pick(value["from"], ("from",)) if value.get("from") is not None else None
    return a.SwipeSpec(direction=direction, pick=target, duration_ms=duration)


def _permissions(perms: Any, path: tuple[str | int, ...]) -> None:
    if not isinstance(perms, dict):
        raise Mistake(path, "permissions is a mapping of name: allow|deny|unset")
    for k, v in perms.items():
        if str(v).lower() not in c.PERMISSION_VALUES:
            raise Mistake((*path, k), f"permission {k}: allow, deny or unset, not {v!r}")


def _shot_name(path: str) -> str:
    """A report-safe name from Maestro's screenshot/recording path (its last part, without
    the extension; other characters become ``_``)."""
    stem = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    stem = re.sub(r"\.(png|mp4|jpg|jpeg)$", "", stem, flags=re.I)
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", stem).lstrip("._-")[:64]
    return cleaned or "screenshot"


def _int(value: Any, path: tuple[str | int, ...], low: int, high: int) -> int:
    if isinstance(value, bool) or value is None:
        raise Mistake(path, f"expected a number from {low} to {high}")
    try:
        number = int(float(value)) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise Mistake(path, f"expected a number from {low} to {high}, not {value!r}") from None
    if not low <= number <= high:
        raise Mistake(path, f"expected a number from {low} to {high}, not {number}")
    return number


def _float(value: Any, path: tuple[str | int, ...], low: float, high: float) -> float:
    if isinstance(value, bool) or value is None:
        raise Mistake(path, f"expected a number from {low:g} to {high:g}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise Mistake(path, f"expected a number, not {value!r}") from None
    if not low <= number <= high:
        raise Mistake(path, f"expected a number from {low:g} to {high:g}, not {number:g}")
    return number


def _enum(value: Any, path: tuple[str | int, ...], allowed: tuple[str, ...]) -> str:
    word = str(value).strip().upper() if value is not None else ""
    if word not in allowed:
        close = difflib.get_close_matches(word, list(allowed), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise Mistake(path, f"expected one of {', '.join(allowed)}, not {value!r}{hint}")
    return word


def _point(value: Any, path: tuple[str | int, ...]) -> tuple[float, float, bool]:
    text = str(value).replace(" ", "")
    found = re.fullmatch(r"(\d+(?:\.\d+)?)(%?),(\d+(?:\.\d+)?)(%?)", text)
    if found is None:
        raise Mistake(path, f"a point is 'X,Y' in pixels or 'X%,Y%', not {value!r}")
    percent = bool(found.group(2))
    if percent != bool(found.group(4)):
        raise Mistake(path, "a point is both percent or both pixels")
    x, y = float(found.group(1)), float(found.group(3))
    if percent and not (0 <= x <= 100 and 0 <= y <= 100):
        raise Mistake(path, "a percent point is from 0% to 100%")
    return x, y, percent


# ---- selectors --------------------------------------------------------------------------------


def text_match(pattern: str, path: tuple[str | int, ...]) -> TextMatch:
    """Maestro's text selector as the hub's TextMatch: the whole text must match the regular
    expression, case ignored, ``.`` matching newlines (Maestro's options), or equal it
    literally. A pattern without regex syntax compares normalized (case and spaces ignored);
    an invalid one is taken literally (as Maestro does)."""
    if not (set(pattern) & _REGEX_META):
        return TextMatch(value=pattern, match=MatchMode.NORMALIZED_EXACT)
    try:
        re2.compile(pattern, _RE2_OPTIONS)
    except re2.error:
        return TextMatch(value=pattern, match=MatchMode.NORMALIZED_EXACT)
    literal = re2.escape(pattern)
    full = f"(?ims)\\A(?:(?:{pattern})|{literal})\\z"
    if len(full) > _LONG_REGEX:
        full = f"(?ims)\\A(?:{pattern})\\z"
    if len(full) > _LONG_REGEX:
        raise Mistake(path, f"a text pattern may have {_LONG_REGEX - 20} characters here")
    return TextMatch(value=full, match=MatchMode.REGEX)


def pick(value: Any, path: tuple[str | int, ...]) -> a.Pick:
    """A Maestro selector (a text, or a mapping of selector keys) as a ``Pick``."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = _text(value)
        return a.Pick(SemanticQuery(text=text_match(text, path)), said=repr(text))
    if not isinstance(value, dict):
        raise Mistake(path, "a selector is a text or a mapping (text, id, index, ...)")
    for key in value:
        if key not in c.TAP_KEYS and key not in ("element",):
            near = difflib.get_close_matches(key, sorted(c.SELECTOR_KEYS), n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise Mistake((*path, key), f"unknown selector key {key!r}{hint}")
    words = value.get("text")
    ident = value.get("id")
    said: list[str] = []
    text_m = None
    if words is not None:
        text_m = text_match(_text(words), (*path, "text"))
        said.append(repr(_text(words)))
    resource_id = id_regex = None
    if ident is not None:
        ident = _text(ident)
        said.append(f"id {ident!r}")
        meta = set(ident) & _REGEX_META
        if not meta:
            resource_id = ident
        else:
            try:
                re2.compile(ident, _RE2_OPTIONS)
            except re2.error:
                resource_id = ident
            else:
                id_regex = ident
    states: dict[str, bool] = {}
    for key in ("enabled", "checked", "focused", "selected"):
        if key in value:
            v = value[key]
            if isinstance(v, str) and v.lower() in ("true", "false"):
                v = v.lower() == "true"
            if not isinstance(v, bool):
                raise Mistake((*path, key), f"{key} is true or false")
            states[key] = v
            said.append(f"{key}={str(v).lower()}")
    index = None
    if value.get("index") is not None:
        index = _int(value["index"], (*path, "index"), 0, 10_000)
        said.append(f"index {index}")
    size = None
    if value.get("width") is not None or value.get("height") is not None:
        w = _int(value["width"], (*path, "width"), 0, 100_000) if "width" in value else None
        h = _int(value["height"], (*path, "height"), 0, 100_000) if "height" in value else None
        tol = _int(value.get("tolerance", 0), (*path, "tolerance"), 0, 100_000)
        size = (w, h, tol)
        said.append(f"size {w}x{h}±{tol}")
    elif value.get("tolerance") is not None:
        _int(value["tolerance"], (*path, "tolerance"), 0, 100_000)
    within = None
    relations: list[tuple[str, a.Pick]] = []
    for rel in c.RELATIONS:
        if value.get(rel) is None:
            continue
        inner = pick(value[rel], (*path, rel))
        said.append(f"{rel} {inner.said}")
        q = inner.query
        if rel == "childOf" and inner.simple and q.label is None and q.state is None:
            if inner.index is None and q.within is None:
                within = Within(role=q.role, text=q.text, resource_id=q.resource_id)
                continue
        relations.append((rel, inner))
    if value.get("containsDescendants") is not None:
        items = value["containsDescendants"]
        if not isinstance(items, list) or not items:
            raise Mistake((*path, "containsDescendants"), "containsDescendants is a list")
        for i, item in enumerate(items):
            relations.append(("containsChild", pick(item, (*path, "containsDescendants", i))))
        said.append(f"containing {len(items)} descendants")
    unsupported = None
    traits: tuple[str, ...] = ()
    if value.get("traits") is not None:
        words = _text(value["traits"]).lower().replace(",", " ").split()
        for word in words:
            if word not in c.TRAITS:
                raise Mistake(
                    (*path, "traits"), f"a trait is text, square or long-text, not {word!r}"
                )
        traits = tuple(dict.fromkeys(words))
        said.append(f"traits {' '.join(traits)}")
    if value.get("css") is not None:
        unsupported = (
            "css selects a web page's elements, and mobridge's snapshots hold accessibility "
            "nodes, not the page's DOM (select by text or id)"
        )
    state = QueryState(**states) if states else None
    if text_m is None and resource_id is None and state is None and within is None:
        if (
            not relations
            and id_regex is None
            and size is None
            and unsupported is None
            and not traits
        ):
            if index is None:  # Maestro loads it (and matches any element): refused at the step
                unsupported = (
                    "names no element: it needs text, id, a state or a relation ('label' "
                    "names the step in Maestro; for the element's words use text)"
                )
    query = (
        SemanticQuery(
            text=text_m,
            resource_id=resource_id,
            state=state,
            within=within,
            role=None,
        )
        if (text_m or resource_id or state or within)
        else _ANY
    )
    return a.Pick(
        query, index, tuple(relations), size, id_regex, unsupported, " ".join(said), traits
    )


_ANY = SemanticQuery(state=QueryState())
"""Any node (a selector of only relations, size or an id pattern filters the screen's nodes;
the hub lists the visible ones)."""


def _said(query: SemanticQuery) -> str:
    from bridge.flows.compile import describe

    return describe(query)


VERBS = {"tap": ActionVerb.CLICK, "longPress": ActionVerb.LONG_CLICK}
