"""LAYER 4 — ``mobridge test`` (run flow files as a suite) and ``mobridge record`` (write a
flow from what is done to a device). Parsing and wiring only; the work is in
``bridge.flows``.

``test`` runs through the hub named by ``--url`` (with ``--token``, else ``$MOBRIDGE_TOKEN``
or a local hub's token); without ``--url`` it starts an embedded hub on a free loopback port
with ``--sims N`` simulated devices and stops it at the end (``$MOBRIDGE_URL`` alone does not
choose a hub for a suite: which devices a suite runs on is said on its command line).

Exit status: 0 every test passed; 1 a test failed (or could not run); 2 bad input (a flow
mistake, listed as ``file:line:column: message``, and nothing ran), no hub, an unknown
device.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from bridge.cli.failures import EXIT_USAGE, UsageError, check_url, explain
from bridge.client import DEFAULT_URL, HubConnection, connect
from bridge.flows.compile import load_suite, select_by_tags
from bridge.flows.errors import FlowErrors
from bridge.flows.html import write_html
from bridge.flows.junit import write_junit
from bridge.flows.lockstep import run_lockstep_suite
from bridge.flows.lockstep_html import write_lockstep
from bridge.flows.maestro.format import install as install_maestro
from bridge.flows.record import record_device
from bridge.flows.report import (
    LockstepFlow,
    LockstepReport,
    StepReport,
    TestReport,
    write_index,
)
from bridge.flows.suite import DEFAULT_LEASE_WAIT_S, SuiteOptions, run_suite

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
ENV_ARG = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$", re.S)
MAX_SIMS = 16
MAX_LOCKSTEP_LINES = 8


def add_flow_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hub = argparse.ArgumentParser(add_help=False)
    hub.add_argument(
        "--url",
        help=f"hub URL (test: none runs an embedded hub; record: $MOBRIDGE_URL or {DEFAULT_URL})",
    )
    hub.add_argument("--token", help="bearer token (default: $MOBRIDGE_TOKEN, else a local hub's)")
    hub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
    p = subparsers.add_parser(
        "test",
        parents=[hub],
        help="run flow files (YAML) as a test suite, with reports",
        description="Run flow files as a suite: a FILE, or a DIRECTORY's *.yaml in lexical "
        "order. Without --url, an embedded hub with simulated devices runs them.",
    )
    p.set_defaults(handler=run_test_command)
    p.add_argument("paths", nargs="+", metavar="PATH", help="flow file or directory")
    p.add_argument(
        "--device", action="append", default=[], metavar="ID", help="run on ID (repeatable)"
    )
    p.add_argument("--devices", choices=("all",), help="run on every online device at once")
    p.add_argument(
        "--device-selector",
        metavar="SEL",
        help="lease any free matching device first (waits up to --lease-wait): "
        "platform=ios,os>=17,model=TEXT,tag=TAG,owner=HUB",
    )
    p.add_argument("--report", type=Path, metavar="DIR", help="write index.json + index.html")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    p.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="a ${NAME} variable"
    )
    p.add_argument(
        "--sims", type=int, default=1, metavar="N", help="embedded hub: simulated devices (1)"
    )
    p.add_argument(
        "--sim-platform",
        type=_platforms,
        default=("android",),
        metavar="android|ios|android,ios",
        help="embedded hub: the simulated devices' platforms, in turn (android)",
    )
    p.add_argument(
        "--lockstep",
        action="store_true",
        help="run each flow on every device at once, step by step, with a divergence report",
    )
    p.add_argument("--secrets-file", type=Path, help="embedded hub: JSON {name: value}")
    p.add_argument(
        "--lease-wait",
        type=float,
        default=DEFAULT_LEASE_WAIT_S,
        metavar="S",
        help="seconds to wait for a device someone else leases",
    )
    p.add_argument("--quiet", action="store_true", help="only the summary line")
    p.add_argument(
        "--alerts",
        choices=("accept", "dismiss"),
        help="each test's lease answers every alert that shows this way",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="load every flow (Maestro or mobridge YAML, directories walked) and report every "
        "mistake as file:line:column; run nothing (exit 0: all load, 2: not)",
    )
    p.add_argument(
        "--allow-http",
        action="store_true",
        help="Maestro flows: scripts may call http (this machine's loopback URLs only)",
    )
    p.add_argument(
        "--first-match",
        action="store_true",
        help="Maestro flows: a selector matching several elements acts on the first instead "
        "of being refused; every such choice is listed on its step",
    )
    p.add_argument(
        "--include-tags",
        action="append",
        default=[],
        metavar="TAG,...",
        help="run only tests with one of these tags (repeatable)",
    )
    p.add_argument(
        "--exclude-tags",
        action="append",
        default=[],
        metavar="TAG,...",
        help="skip tests with one of these tags (repeatable; wins over --include-tags)",
    )
    p = subparsers.add_parser(
        "record",
        parents=[hub],
        help="write a flow from the actions taken on a device (CLI, dashboard, MCP)",
    )
    p.set_defaults(handler=run_record_command)
    p.add_argument("device", metavar="DEVICE")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FLOW.yaml")
    p.add_argument("--name", help="the flow's name")
    p.add_argument("--count", type=int, metavar="N", help="stop after N recorded steps")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument(
        "--format",
        choices=("mobridge", "maestro"),
        default="mobridge",
        help="write mobridge's flow YAML (default) or a Maestro flow",
    )


def _platforms(text: str) -> tuple[str, ...]:
    """``android``, ``ios`` or a comma list (argparse ``type``)."""
    names = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    bad = [n for n in names if n not in ("android", "ios")]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"{text!r}: android, ios, or a list like android,ios")
    return names


def _unwrapped(run: Callable[[], int]) -> int:
    """``run()``, raising the one exception a task group wrapped (the embedded hub's and the
    recorder's task groups wrap whatever the command raised)."""
    try:
        return run()
    except BaseExceptionGroup as group:
        inner: BaseException = group
        while isinstance(inner, BaseExceptionGroup) and len(inner.exceptions) == 1:
            inner = inner.exceptions[0]
        if inner is group:
            raise
        raise inner from None


# ---- test -----------------------------------------------------------------------------------


def _variables(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        found = ENV_ARG.match(pair)
        if found is None:
            raise UsageError(f"--env {pair!r}: write NAME=VALUE (NAME: letters, digits, _)")
        out[found.group("name")] = found.group("value")
    return out


@asynccontextmanager
async def _embedded_hub(args: argparse.Namespace) -> AsyncIterator[tuple[str, str]]:
    """A hub on a free loopback port with ``--sims`` simulated devices: (url, token)."""
    import secrets as random_tokens

    from bridge.hub.app import Hub, HubConfig
    from bridge.hub.logs import configure
    from bridge.net.auth import Principal
    from bridge.wire.enums import Platform

    configure(level=logging.WARNING)
    token = random_tokens.token_urlsafe(24)
    hub = Hub(
        HubConfig(
            host="127.0.0.1",
            port=0,
            tokens={token: Principal("controller", "mobridge-test")},
            sim_count=max(args.sims, len(args.sim_platform)),
            sim_platform=Platform(args.sim_platform[0].upper()),
            sim_platforms=tuple(Platform(p.upper()) for p in args.sim_platform),
            secrets_file=args.secrets_file,
            name="mobridge-test",
        )
    )
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)  # started once every device linked (or gave up)
        try:
            yield f"ws://127.0.0.1:{port}/v1", token
        finally:
            tg.cancel_scope.cancel()


async def _pick_devices(hub: HubConnection, args: argparse.Namespace, embedded: bool) -> list[str]:
    if getattr(args, "selector", None) is not None:
        got = await hub.acquire(args.selector, timeout_s=args.lease_wait)
        where = f" on hub {got.owner}" if got.owner else ""
        print(f"acquired {got.device}{where} after {got.waited_ms} ms", flush=True)
        return [got.device]
    devices = await hub.devices()
    online = [d.id for d in devices if d.online]
    listed = ", ".join(f"{d.id} ({'online' if d.online else 'offline'})" for d in devices)
    if args.device:
        for wanted in args.device:
            if wanted not in online:
                raise UsageError(f"--device {wanted}: not an online device; devices: {listed}")
        return list(dict.fromkeys(args.device))
    if args.devices == "all" or embedded:
        if not online:
            raise UsageError(f"no online device on the hub; devices: {listed or 'none'}")
        return online
    if len(online) != 1:
        raise UsageError(
            f"the hub has {len(online)} online devices ({listed or 'none'}): "
            "pick --device ID (repeatable) or --devices all"
        )
    return online


def _progress_line(report: TestReport) -> str:
    mark = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[report.status]
    line = f"{mark:5} {report.file} on {report.device} ({report.duration_ms / 1000:.1f} s)"
    if report.failure is not None:
        line += f"\n      {report.failure.at}: {report.failure.message}"
    for step in _all_steps([*report.setup, *report.steps, *report.teardown]):
        for note in step.notes:  # --first-match: every place a match was chosen
            line += f"\n      {step.file}:{step.line}: {note}"
    return line


def _all_steps(steps: list[StepReport]) -> list[StepReport]:
    out: list[StepReport] = []
    for step in steps:
        out.append(step)
        out.extend(_all_steps(step.steps))
    return out


def _tags(values: Sequence[str]) -> list[str]:
    return [t.strip() for value in values for t in value.split(",") if t.strip()]


def _lockstep_lines(quiet: bool) -> Callable[[LockstepFlow, list[TestReport]], None]:
    def say(flow: LockstepFlow, reports: list[TestReport]) -> None:
        print(
            f"LOCKSTEP {flow.file} on {', '.join(flow.devices)}: {flow.divergent_steps} of "
            f"{len(flow.steps)} steps diverge",
            flush=True,
        )
        if quiet:
            return
        shown = 0
        for step in flow.steps:
            for line in step.differences:
                if shown == MAX_LOCKSTEP_LINES:
                    print("      ... (the rest in lockstep.html)", flush=True)
                    return
                first = step.source.splitlines()[0] if step.source else step.kind
                print(f"      step {step.index} ({first}): {line}", flush=True)
                shown += 1

    return say


async def _run_tests(args: argparse.Namespace, url: str | None) -> int:
    flows = load_suite(args.paths, _variables(args.env), os.environ)
    include, exclude = _tags(args.include_tags), _tags(args.exclude_tags)
    flows = select_by_tags(flows, include, exclude)
    if not flows:
        said = " ".join(
            f"{opt} {','.join(tags)}"
            for opt, tags in (("--include-tags", include), ("--exclude-tags", exclude))
            if tags
        )
        raise UsageError(f"no test left to run after {said}")
    if args.report is not None and args.report.exists() and not args.report.is_dir():
        raise UsageError(f"--report {args.report}: exists and is not a directory")

    @asynccontextmanager
    async def hub_session() -> AsyncIterator[tuple[HubConnection, bool]]:
        if url is None:
            async with (
                _embedded_hub(args) as (local_url, token),
                connect(local_url, token=token, name="mobridge-test", kind="test") as conn,
            ):
                yield conn, True
        else:
            async with connect(url, token=args.token, name="mobridge-test", kind="test") as conn:
                yield conn, False

    async with hub_session() as (conn, embedded):
        device_ids = await _pick_devices(conn, args, embedded)
        progress = None if args.quiet else (lambda r: print(_progress_line(r), flush=True))
        started = time.monotonic()
        options = SuiteOptions(
            report_dir=args.report,
            lease_wait_s=args.lease_wait,
            progress=progress,
            alerts=args.alerts,
            first_match=args.first_match,
            variables=_variables(args.env),
            allow_http=args.allow_http,
        )
        divergence: LockstepReport | None = None
        if args.lockstep:
            if len(device_ids) < 2:
                raise UsageError(
                    "--lockstep compares devices: give two or more (--device A --device B, "
                    "--devices all, or --sims 2 --sim-platform android,ios)"
                )
            report, divergence = await run_lockstep_suite(
                conn, flows, device_ids, options, on_flow=_lockstep_lines(args.quiet)
            )
        else:
            report = await run_suite(conn, flows, device_ids, options)
        wall = time.monotonic() - started
    s = report.summary
    print(
        f"{s.tests} test{'s' if s.tests != 1 else ''} on {s.devices} device"
        f"{'s' if s.devices != 1 else ''} in {wall:.1f} s: {s.passed} passed, {s.failed} failed, "
        f"{s.errors} error{'s' if s.errors != 1 else ''}",
        flush=True,
    )
    if args.report is not None:
        write_index(report, args.report)
        page = write_html(report, args.report)
        print(f"report: {page} (and index.json)", flush=True)
        if divergence is not None:
            shown = write_lockstep(divergence, args.report)
            print(f"divergence: {shown} (and lockstep.json)", flush=True)
    if args.junit is not None:
        print(f"junit: {write_junit(report, args.junit)}", flush=True)
    return EXIT_OK if s.passed == s.tests else EXIT_FAILED


def _record_url(args: argparse.Namespace) -> str:
    url: str = args.url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL
    check_url(url)
    return url


def _check(args: argparse.Namespace) -> int:
    from bridge.flows.check import check

    result = check(args.paths, _variables(args.env), os.environ)
    for error in result.mistakes():
        print(error)
    for warning in result.warnings:
        print(f"{warning.place}: warning: {warning.message}")
    total = len(result.files)
    share = 100 * result.loaded / total if total else 0.0
    count = len(result.warnings)
    warned = f"; {count} warning{'' if count == 1 else 's'}" if count else ""
    print(f"{result.loaded} of {total} files load ({share:.1f}%){warned}", file=sys.stderr)
    return EXIT_OK if total and result.loaded == total else EXIT_USAGE


def run_test_command(args: argparse.Namespace) -> int:
    install_maestro()  # the composition root gives the loader and runner Maestro's format
    url: str | None = None
    if args.check:
        try:
            return _check(args)
        except UsageError as exc:
            print(f"mobridge test: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        url = args.url
        if url is not None:
            check_url(url)
        if url is not None and (args.sims != 1 or args.sim_platform != ("android",)):
            raise UsageError(
                "--sims and --sim-platform start simulated devices in an embedded hub: drop --url"
            )
        if not 1 <= args.sims <= MAX_SIMS:
            raise UsageError(f"--sims must be within 1..{MAX_SIMS}")
        if args.device and args.devices:
            raise UsageError("give --device ID or --devices all, not both")
        if args.device_selector is not None:
            from bridge.cli.farm import parse_selector

            args.selector = parse_selector(args.device_selector)
            if args.device or args.devices or url is None:
                raise UsageError(
                    "--device-selector picks from a running hub: give --url, not --device/--devices"
                )
        if not 0 <= args.lease_wait <= 3600:
            raise UsageError("--lease-wait must be within 0..3600 seconds")
        return int(_unwrapped(lambda: anyio.run(_run_tests, args, url)))
    except FlowErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        n = len(exc.errors)
        print(f"mobridge test: {n} mistake{'s' if n != 1 else ''}; nothing ran", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        explained = explain(exc, url or "the embedded hub")
        if explained is None or getattr(args, "debug", False):
            raise
        print(explained[1], file=sys.stderr)
        return explained[0]


# ---- record ---------------------------------------------------------------------------------


async def _record(args: argparse.Namespace, url: str) -> int:
    async with connect(url, token=args.token, name="mobridge-record", kind="recorder") as conn:
        devices = {d.id for d in await conn.devices()}
        if args.device not in devices:
            raise UsageError(
                f"no device {args.device!r} on this hub; devices: {', '.join(sorted(devices))}"
            )
        stop = anyio.Event()

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    stop.set()  # the recorder ends, saves the flow and returns
                    return

        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_on_signal)
            recorder = await record_device(
                conn,
                args.device,
                args.output,
                name=args.name,
                count=args.count,
                duration_s=args.duration,
                on_step=lambda line: print(line, flush=True),
                ready=lambda: print(
                    f"recording {args.device} into {args.output}; act on it (CLI, "
                    "dashboard, MCP), Ctrl-C to stop",
                    file=sys.stderr,
                    flush=True,
                ),
                stop=stop,
                fmt=args.format,
            )
            tg.cancel_scope.cancel()
        steps = sum(not isinstance(s, tuple) for s in recorder.steps)
        print(f"wrote {args.output} ({steps} steps)", file=sys.stderr, flush=True)
    return EXIT_OK


def run_record_command(args: argparse.Namespace) -> int:
    url = DEFAULT_URL
    try:
        url = _record_url(args)
        if args.output.exists() and not args.force:
            raise UsageError(f"{args.output} exists; pass --force to overwrite it")
        if args.count is not None and args.count < 1:
            raise UsageError("--count must be at least 1")
        if args.duration is not None and args.duration <= 0:
            raise UsageError("--duration must be positive")
        return int(_unwrapped(lambda: anyio.run(_record, args, url)))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        explained = explain(exc, url)
        if explained is None or getattr(args, "debug", False):
            raise
        print(explained[1], file=sys.stderr)
        return explained[0]
