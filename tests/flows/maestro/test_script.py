"""The JavaScript host of Maestro flows (``bridge.flows.maestro.script``): Maestro's globals,
``${...}`` in strings, and the sandbox — a script that loops forever is stopped by its time
limit, one that eats memory by its memory limit, no file or network is reachable, and every
error names the file and line."""

from __future__ import annotations

import time

import pytest

from bridge.flows.maestro.script import ScriptError, ScriptHost, split_template


def test_interpolation_sees_variables_output_and_maestro() -> None:
    host = ScriptHost(platform="ios", variables={"USER": "ada"})
    host.run("output.n = 2 + 3", "s.js")
    host.copied_text = "copied"
    said = host.interpolate(
        "${USER}/${output.n}/${maestro.platform}/${maestro.copiedText}/${1 < 2}/${null}", "f", 1
    )
    assert said == "ada/5/ios/copied/true/"
    assert host.output() == {"n": 5}
    assert host.interpolate("no script here: $ {x} ${", "f", 1) == "no script here: $ {x} ${"


def test_scripts_run_in_their_own_scope_with_env_and_console() -> None:
    host = ScriptHost()
    code = "const twice = NAME + NAME\noutput.name = twice\nconsole.log('made', twice)"
    host.run(code, "a.js", 1, env={"NAME": "ab"})
    host.run(code, "a.js", 1, env={"NAME": "cd"})  # const again: a fresh scope each run
    assert host.output() == {"name": "cdcd"}
    assert host.log == ["made abab", "made cdcd"]


def test_a_script_that_loops_forever_is_stopped_by_its_limit() -> None:
    host = ScriptHost(time_limit_s=0.2)
    started = time.monotonic()
    with pytest.raises(ScriptError) as caught:
        host.run("var i = 0\nwhile (true) { i++ }", "loop.js", 1)
    assert time.monotonic() - started < 10  # a ceiling: the limit is 0.2 s
    assert caught.value.where.startswith("loop.js:")
    assert "ran longer than its limit of 0.2 s" in caught.value.message
    assert host.interpolate("${1 + 1}", "f", 1) == "2"  # the host still works


def test_a_script_that_eats_memory_is_stopped() -> None:
    host = ScriptHost(memory_limit=8 << 20)
    with pytest.raises(ScriptError) as caught:
        host.run("var a = []\nwhile (true) a.push(new Array(100000).fill(1))", "m.js", 1)
    assert "memory limit" in caught.value.message


@pytest.mark.parametrize(
    "code",
    [
        "require('fs').readFileSync('/etc/passwd')",
        "std.loadFile('/etc/passwd')",
        "os.open('/etc/passwd')",
        "fetch('http://127.0.0.1/')",
        "readFile('/etc/passwd')",
    ],
)
def test_a_script_cannot_read_a_file(code: str) -> None:
    host = ScriptHost()
    with pytest.raises(ScriptError):
        host.run(f"output.got = {code}", "read.js", 1)
    assert "got" not in host.output()


def test_a_module_import_loads_nothing() -> None:
    host = ScriptHost()
    host.run(
        "import('/etc/passwd').then(m => { output.got = String(m) }, e => { output.err = "
        "String(e) })",
        "imp.js",
        1,
    )
    while host._ctx.execute_pending_job():  # settle the promise as an event loop would
        pass
    assert host.output() == {"err": "ReferenceError: could not load module '/etc/passwd'"}


def test_http_is_refused_and_errors_name_the_line() -> None:
    host = ScriptHost()
    with pytest.raises(ScriptError) as caught:
        host.run("var a = 1\n\nhttp.get('http://127.0.0.1:9/')", "net.js", 1)
    assert caught.value.where == "net.js:3"
    assert "http is not allowed" in caught.value.message
    with pytest.raises(ScriptError) as thrown:
        host.run("function f() {\n  throw new Error('bad')\n}\nf()", "lib/x.js", 1)
    assert str(thrown.value) == "lib/x.js:2: Error: bad"
    with pytest.raises(ScriptError) as expr:
        host.value("missing.name", "flow.yaml", 7)
    assert expr.value.where == "flow.yaml:7" and "missing is not defined" in expr.value.message


def test_templates_split_with_nested_braces_and_quotes() -> None:
    parts = split_template("a ${ {x: '}'}.x } b")
    assert parts[0] == "a " and parts[2] == " b"
    assert getattr(parts[1], "code", None) == " {x: '}'}.x "


def test_allowed_http_reaches_loopback_only_within_the_time_limit() -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    seen: list[str] = []

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = json.dumps({"user": "ada"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/who"
        host = ScriptHost(allow_http=True, time_limit_s=5, variables={"URL": url})
        host.run("var r = http.get(URL)\noutput.user = json(r.body).user", "h.js", 1)
        assert host.output() == {"user": "ada"} and seen == ["/who"]
        with pytest.raises(ScriptError) as far:
            host.run("http.get('http://192.0.2.1/')", "far.js", 1)
        assert "only this machine's loopback addresses" in far.value.message
        slow = ScriptHost(allow_http=True, time_limit_s=0.5)
        with pytest.raises(ScriptError) as stuck:
            slow.run("http.get; while (true) {}", "loop.js", 1)
        assert "ran longer than its limit" in stuck.value.message
    finally:
        server.shutdown()


def test_without_the_js_extra_only_javascript_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine is an extra (the base install stays small): a host that never runs
    JavaScript works without it, and the first script says which extra it needs."""
    from bridge.flows.maestro import script

    monkeypatch.setattr(script, "JS_MISSING", "needs the js extra")
    host = script.ScriptHost(variables={"USER": "ada"})
    host.define({"MORE": "x"})
    host.copied_text = "copied"
    assert host.copied_text == "copied"
    assert host.interpolate("plain text", "f.yaml", 1) == "plain text"
    with pytest.raises(script.ScriptError, match="js extra"):
        host.interpolate("${USER}", "f.yaml", 3)
    assert script.script_syntax_error("this is not javascript (") is None
