"""JavaScript as Maestro flows use it, in a sandboxed embedded engine (QuickJS, ``quickjs-ng``).

One ``ScriptHost`` per test run holds one JavaScript context: ``output`` (an object scripts fill
and later steps read as ``${output.x}``), ``maestro.copiedText`` (set by ``copyTextFrom``),
``maestro.platform`` (``android`` / ``ios``), the flow's variables as globals, ``json(text)``
and ``console.log`` (lines kept for the report). ``http`` exists so a script written for
Maestro loads, but every call throws ``http is not allowed`` — unless the host was made with
``allow_http`` (``mobridge test --allow-http``): a script that uses ``http`` then runs in a
process of its own (``bridge.flows.maestro.script_worker``; QuickJS cannot call back into
Python under a time limit), killed when its time is up, and reaches loopback URLs only.

Why QuickJS (``quickjs-ng`` on PyPI): ``scripts/bench --only flows_js`` puts it beside V8
(``mini-racer``) and Duktape (``dukpy``): a context starts ~25x faster than V8's, the engine
costs a process ~4.5 MiB against V8's ~58 MiB, and unlike Duktape it has time and memory
limits built in. Flow scripts are short and run between device actions, so start-up and
memory matter more than a JIT.

Sandbox invariants:
- no file system, no network, no ``require``/``import``/``std``/``os``: the context has only
  the ECMAScript built-ins and the globals above (``runScript`` files are read by the runner,
  relative to the flow, before they are given to the engine as text);
- every evaluation has a time limit (``time_limit_s``, default 2 s: a loop that never ends is
  interrupted) and the context a memory limit (``memory_limit``, default 32 MiB);
- an error names the flow file and line of the script (``file:line``): a ``runScript`` file's
  own line, or the step's line for ``${...}`` and ``evalScript``;
- values cross as JSON-compatible data only; nothing from the script reaches Python as code.

The caller owns the host for one test and drops it afterwards; it is not thread-safe.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

try:
    import quickjs
except ImportError:  # the `js` extra: flows without JavaScript run without it
    JS_MISSING: str | None = (
        "this flow runs JavaScript, which needs the js extra: in a checkout "
        "`MOBRIDGE_EXTRAS=js scripts/run`, else pip install 'mobridge[js]'"
    )
else:
    JS_MISSING = None

DEFAULT_TIME_LIMIT_S = 2.0
MAX_TIME_LIMIT_S = 30.0
DEFAULT_MEMORY_LIMIT = 32 << 20
MAX_SCRIPT_CHARS = 256 * 1024
MAX_RESULT_CHARS = 64 * 1024
MAX_LOG_LINES = 200
_WHERE = re.compile(r"<input>:(\d+)(?::(\d+))?")
_FRAME = re.compile(r"at (?P<name>[^\s(]+) \(<input>:(?P<line>\d+)")
PRELUDE_FUNCTIONS = frozenset({"__refuse", "json", "log"})
FALSE_WORDS = frozenset({"", "false", "0", "no", "off", "null", "undefined"})

PRELUDE = """
var output = {};
var maestro = {copiedText: "", platform: ""};
var __log = [];
var console = {
  log: function () { __log.push(Array.prototype.map.call(arguments, String).join(" ")); },
};
console.info = console.log; console.warn = console.log; console.error = console.log;
function json(text) { return JSON.parse(text); }
var __refuse = function () {
  throw new Error("http is not allowed: a flow's scripts cannot reach the network here");
};
var http = {get: __refuse, post: __refuse, put: __refuse, delete: __refuse,
            request: __refuse};
"""


class ScriptError(Exception):
    """A script failed: a syntax error, a thrown error, its time or memory limit. ``where``
    is ``file:line``."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass
class ScriptHost:
    """One JavaScript context for one test run (see module doc)."""

    platform: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    log: list[str] = field(default_factory=list)
    allow_http: bool = False
    """Scripts may call ``http`` (loopback URLs only; run in a worker process)."""

    def __post_init__(self) -> None:
        self.time_limit_s = min(max(self.time_limit_s, 0.01), MAX_TIME_LIMIT_S)
        self._context: Any = None
        self._defined: dict[str, str] = {}
        self._copied = ""
        self.define(self.variables)

    @property
    def _ctx(self) -> Any:
        """The JavaScript context, made on first use (a flow without JavaScript never needs
        the engine); without the ``js`` extra, a ``ScriptError`` naming it."""
        if self._context is None:
            if JS_MISSING is not None:
                raise ScriptError("javascript", JS_MISSING)
            ctx = quickjs.Context()
            ctx.set_memory_limit(self.memory_limit)
            ctx.set_max_stack_size(1 << 20)
            ctx.set_time_limit(self.time_limit_s)
            ctx.eval(PRELUDE)
            ctx.eval(f"maestro.platform = {json.dumps(self.platform)};")
            ctx.eval(f"maestro.copiedText = {json.dumps(self._copied)};")
            for name, value in self._defined.items():
                ctx.eval(f"var {name} = {json.dumps(value)};")
            self._context = ctx
        return self._context

    # ---- state the runner sets and reads ---------------------------------------------------

    def define(self, variables: Mapping[str, str]) -> None:
        """Make ``variables`` globals (the flow's env, ``--env``, a runFlow's env)."""
        for name, value in variables.items():
            if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name):
                self._defined[name] = str(value)
                if self._context is not None:
                    self._context.eval(f"var {name} = {json.dumps(str(value))};")

    @property
    def copied_text(self) -> str:
        if self._context is None:
            return self._copied
        return str(self._context.eval("String(maestro.copiedText)"))

    @copied_text.setter
    def copied_text(self, text: str) -> None:
        self._copied = text
        if self._context is not None:
            self._context.eval(f"maestro.copiedText = {json.dumps(text)};")

    def output(self) -> dict[str, Any]:
        """``output`` as JSON data (for the report)."""
        got = self._ctx.eval("JSON.stringify(output)")
        data = json.loads(got) if isinstance(got, str) else {}
        return data if isinstance(data, dict) else {}

    # ---- running -----------------------------------------------------------------------------

    def run(
        self, code: str, file: str, first_line: int = 1, env: Mapping[str, str] | None = None
    ) -> None:
        """Run a script (a ``runScript`` file or an ``evalScript``) in its own function scope
        (its ``var``s and ``const``s do not leak; run twice, it declares them again), with
        ``env`` as local variables; ``output`` and ``maestro`` are shared with every later
        step."""
        names = [
            f"var {k} = {json.dumps(str(v))};"
            for k, v in (env or {}).items()
            if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", k)
        ]
        self._eval(
            "(function () {" + " ".join(names) + "\n" + code + "\n})();", file, first_line - 2
        )

    def value(self, code: str, file: str, line: int) -> str:
        """A ``${...}``'s value as Maestro writes it into a string. The code runs as a script
        (its last expression is the value, as in Maestro): ``undefined`` and ``null`` give
        an empty string, booleans ``true``/``false``, numbers their JavaScript text, objects
        their JSON."""
        got = self._eval(code, file, line - 1)
        return _js_text(got)[:MAX_RESULT_CHARS]

    def truth(self, text: str) -> bool:
        """Maestro's truthiness of an interpolated condition (``assertTrue``, ``when.true``)."""
        return text.strip().lower() not in FALSE_WORDS

    def interpolate(self, text: str, file: str, line: int) -> str:
        """``text`` with every ``${...}`` replaced by its value (``split_template``)."""
        parts = split_template(text)
        if len(parts) == 1 and isinstance(parts[0], str):
            return parts[0]
        return "".join(
            part if isinstance(part, str) else self.value(part.code, file, line) for part in parts
        )

    def _eval(self, code: str, file: str, line_offset: int) -> Any:
        if len(code) > MAX_SCRIPT_CHARS:
            raise ScriptError(f"{file}:{line_offset + 1}", f"script over {MAX_SCRIPT_CHARS} chars")
        if self.allow_http and "http" in code:
            return self._in_worker(code, file, line_offset)
        try:
            got = self._ctx.eval(code)
        except quickjs.JSException as exc:
            raise self._error(str(exc), file, line_offset) from None
        except quickjs.StackOverflow:
            raise ScriptError(f"{file}:{line_offset + 1}", "stack overflow") from None
        finally:
            self._drain_log()
        if isinstance(got, quickjs.Object):
            return got.json()
        return got

    def _in_worker(self, code: str, file: str, line_offset: int) -> Any:
        """Run ``code`` where ``http`` works (module doc); the output, copied text and log
        come back; globals the script declares do not."""
        request = {
            "code": code,
            "memory_limit": self.memory_limit,
            "state": {
                "output": self.output(),
                "copiedText": self.copied_text,
                "platform": self.platform,
                "variables": self._defined,
            },
        }
        command = [sys.executable, "-m", "bridge.flows.maestro.script_worker"]
        try:
            done = subprocess.run(
                command,
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=self.time_limit_s + 1.0,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ScriptError(
                f"{file}:{line_offset + 1}",
                f"stopped: ran longer than its limit of {self.time_limit_s:g} s",
            ) from None
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
            raise ScriptError(
                f"{file}:{line_offset + 1}", f"the script's process: {last}"
            ) from None
        self._ctx.eval(f"output = {json.dumps(answer.get('output', {}))};")
        self.copied_text = str(answer.get("copiedText", ""))
        room = MAX_LOG_LINES - len(self.log)
        self.log.extend(str(x)[:1000] for x in answer.get("log", [])[: max(room, 0)])
        if "error" in answer:
            raise self._error(str(answer["error"]), file, line_offset)
        return answer.get("value")

    def _error(self, text: str, file: str, line_offset: int) -> ScriptError:
        first = text.strip().splitlines()[0] if text.strip() else "error"
        frames = [f for f in _FRAME.finditer(text) if f.group("name") not in PRELUDE_FUNCTIONS]
        found = frames[0] if frames else None
        if found is not None:
            line = line_offset + int(found.group("line"))
        else:
            where = _WHERE.search(text)
            line = line_offset + (int(where.group(1)) if where else 1)
        if "interrupted" in first:
            first = f"stopped: ran longer than its limit of {self.time_limit_s:g} s"
        elif "out of memory" in first:
            first = f"stopped: used more than its memory limit ({self.memory_limit >> 20} MiB)"
        return ScriptError(f"{file}:{max(line, 1)}", first)

    def _drain_log(self) -> None:
        try:
            got = self._ctx.eval("JSON.stringify(__log.splice(0, __log.length))")
            lines = json.loads(got) if isinstance(got, str) else []
        except (quickjs.JSException, ValueError):  # pragma: no cover - out of memory
            return
        room = MAX_LOG_LINES - len(self.log)
        self.log.extend(str(x)[:1000] for x in lines[: max(room, 0)])


def _js_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


@dataclass(frozen=True)
class Expr:
    """One ``${...}`` of a template: its JavaScript code."""

    code: str


def split_template(text: str) -> list[str | Expr]:
    """``text`` cut into literal parts and ``${...}`` expressions. Braces inside the
    expression nest and quoted strings are skipped; an unclosed ``${`` stays literal."""
    out: list[str | Expr] = []
    i = 0
    literal: list[str] = []
    while i < len(text):
        start = text.find("${", i)
        if start < 0:
            literal.append(text[i:])
            break
        end = _closing(text, start + 2)
        if end < 0:
            literal.append(text[i:])
            break
        literal.append(text[i:start])
        if literal and "".join(literal):
            out.append("".join(literal))
        literal = []
        out.append(Expr(text[start + 2 : end]))
        i = end + 1
    rest = "".join(literal)
    if rest or not out:
        out.append(rest)
    return out


def has_template(text: str) -> bool:
    return any(isinstance(p, Expr) for p in split_template(text))


def _closing(text: str, i: int) -> int:
    depth = 0
    quote = ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1


def script_syntax_error(code: str) -> tuple[int, str] | None:
    """The (line, message) of a syntax error in a script file, or None (not run; also when
    the ``js`` extra is missing: the syntax is then checked when the flow runs)."""
    if JS_MISSING is not None:
        return None
    ctx = quickjs.Context()
    ctx.set_time_limit(1.0)
    ctx.set_memory_limit(16 << 20)
    try:
        ctx.eval("(function () {\n" + code + "\n})")
    except quickjs.JSException as exc:
        text = str(exc)
        found = _WHERE.search(text)
        line = int(found.group(1)) - 1 if found else 1
        return max(line, 1), text.strip().splitlines()[0]
    return None
