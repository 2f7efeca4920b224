"""Maestro flows' JavaScript and loading (issue 35): what a test's ``ScriptHost`` costs to
start and to hold, a ``${...}`` and a small ``runScript`` once it runs, side by side with the
other embedded engines the choice was made against (V8 through ``mini-racer``, Duktape
through ``dukpy``) when they are installed; and ``--check`` of the Maestro corpus per file.

Memory is the process's resident set growth per live context (``/proc/self/status`` VmRSS,
over ``HOSTS`` contexts held at once), so it counts what each engine really keeps.
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bridge.flows.maestro.script import ScriptHost

HOSTS = 20
CORPUS = Path(__file__).resolve().parents[2] / "tests" / "flows" / "maestro" / "corpus"


def _rss_kib() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(samples)


def _per_context_mib(make: Callable[[], Any]) -> float:
    before = _rss_kib()
    held = [make() for _ in range(HOSTS)]
    grown = _rss_kib() - before
    del held
    return grown / 1024 / HOSTS


_LOAD = {
    "QuickJS (quickjs-ng)": "import quickjs; c = quickjs.Context(); c.eval('1+1')",
    "V8 (mini-racer)": "import py_mini_racer; c = py_mini_racer.MiniRacer(); c.eval('1+1')",
    "Duktape (dukpy)": "import dukpy; c = dukpy.JSInterpreter(); c.evaljs('1+1')",
}
"""What loading each engine and its first context costs a process (measured in a fresh one)."""


def _load_cost(snippet: str) -> tuple[float, float] | None:
    """(ms, MiB) of ``snippet`` in a fresh Python process, or None when it cannot run."""
    import subprocess
    import sys

    probe = (
        "import time\n"
        "def rss():\n"
        "    for l in open('/proc/self/status'):\n"
        "        if l.startswith('VmRSS:'): return int(l.split()[1])\n"
        "b = rss(); t = time.perf_counter()\n"
        f"{snippet}\n"
        "print((time.perf_counter() - t) * 1000, (rss() - b) / 1024, flush=True)\n"
        "import os; os._exit(0)\n"  # V8's threads can hold a normal exit
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    if done.returncode != 0:
        return None
    ms, mib = done.stdout.split()
    return float(ms), float(mib)


def _engines() -> list[tuple[str, Callable[[], Any], Callable[[Any, str], Any]]]:
    out: list[tuple[str, Callable[[], Any], Callable[[Any, str], Any]]] = []
    try:
        racer: Any = importlib.import_module("py_mini_racer")
        out.append(("V8 (mini-racer)", racer.MiniRacer, lambda c, code: c.eval(code)))
    except ImportError:
        pass
    try:
        duk: Any = importlib.import_module("dukpy")
        out.append(("Duktape (dukpy)", duk.JSInterpreter, lambda c, code: c.evaljs(code)))
    except ImportError:
        pass
    return out


def _runner(ctx: Any, evaluate: Callable[[Any, str], Any], code: str) -> Callable[[], Any]:
    return lambda: evaluate(ctx, code)


def run(quick: bool) -> list[str]:
    runs = 20 if quick else 200
    code = "output.user = 'de' + 'mo'; output.n = [1, 2, 3].map(x => x * 2).length"
    lines = ["flows_js: medians (ms) and resident memory per live context (MiB)"]
    start = _median_ms(ScriptHost, runs)
    host = ScriptHost(variables={"USER": "ada"})
    interp = _median_ms(lambda: host.interpolate("${USER}/${output.n || 0}", "f", 1), runs)
    script = _median_ms(lambda: host.run(code, "s.js", 1), runs)
    mem = _per_context_mib(ScriptHost)
    lines.append(
        f"  QuickJS (quickjs-ng, ScriptHost): start {start:.3f} ms, ${{...}} {interp:.3f} ms, "
        f"runScript {script:.3f} ms, {mem:.2f} MiB/context"
    )
    for name, make, evaluate in _engines():
        e_start = _median_ms(make, max(runs // 10, 5))
        e_script = _median_ms(_runner(make(), evaluate, "var output = {};" + code), runs)
        e_mem = _per_context_mib(make)
        lines.append(
            f"  {name}: start {e_start:.3f} ms ({e_start / start:.0f}x), script "
            f"{e_script:.3f} ms, {e_mem:.2f} MiB/context ({e_mem / max(mem, 0.01):.0f}x)"
        )
    loads = {name: _load_cost(snippet) for name, snippet in _LOAD.items()}
    said = [f"{n} {c[0]:.0f} ms +{c[1]:.1f} MiB" for n, c in loads.items() if c is not None]
    lines.append(
        "  loading the engine and its first context, in a fresh process: " + "; ".join(said)
    )
    if not _engines():
        lines.append("  (mini-racer, dukpy not installed: pip install mini-racer dukpy to compare)")
    if CORPUS.is_dir():
        from bridge.flows.check import check
        from bridge.flows.maestro.format import install

        install()
        t0 = time.perf_counter()
        result = check([str(CORPUS)], {}, {})
        took = time.perf_counter() - t0
        lines.append(
            f"  --check of the Maestro corpus: {len(result.files)} files in {took:.1f} s "
            f"({1000 * took / max(len(result.files), 1):.1f} ms/file), {result.loaded} load"
        )
    return lines
