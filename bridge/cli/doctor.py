"""LAYER 4 — ``mobridge doctor [DEVICE]``: check the chain to one device and measure it.

Against a running hub (``--url`` / ``--token``, found as for every client command), or
``--embedded``: a hub started in this process with the simulated device, or with the agent
given by ``--agent ws://...`` (and ``--agent-token``), as ``mobridge serve --agent`` would.
The measuring is ``bridge.doctor``; this module parses, composes the embedded hub, prints the
table (or ``--json``) and writes ``doctor-DEVICE-DATE.json`` (or ``-o PATH``).

Exit status: 0 every check holds; 1 a check failed (named on stderr); 2 bad usage (one line).
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from typing import Any

from bridge.cli.failures import EXIT_USAGE, UsageError, check_url
from bridge.cli.hub_options import add_sim_options

DEFAULT_SAMPLES = 20
MAX_SAMPLES = 200
AGENT_LINK_WAIT_S = 30.0


def add_doctor_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="check the chain to a device and measure it; writes doctor-DEVICE-DATE.json",
        description="Checks the hub, the token, the device and its agent, and measures "
        "captures, deltas, a tap and a typed text (not on a real phone unless --act), a "
        "screenshot and pings. Exit 0 when every check holds, 1 when one fails. See "
        "docs/cli.md.",
    )
    p.add_argument("device", nargs="?", metavar="DEVICE", help="device id (default: the only one)")
    p.add_argument("--url", help="hub URL (default: $MOBRIDGE_URL or ws://127.0.0.1:8765/v1)")
    p.add_argument(
        "--token", help="bearer token (default: $MOBRIDGE_TOKEN, else a local hub's own)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="PATH",
        help="write the report here (a directory: doctor-DEVICE-DATE.json inside it; "
        "default: the current directory)",
    )
    acting = p.add_mutually_exclusive_group()
    acting.add_argument(
        "--act",
        dest="act",
        action="store_const",
        const=True,
        help="tap and type into a text field even on a real phone",
    )
    acting.add_argument(
        "--read-only",
        dest="act",
        action="store_const",
        const=False,
        help="never act (the default on a real phone)",
    )
    p.add_argument(
        "--include-texts",
        action="store_true",
        help="put the screen's texts in the report (passwords stay masked)",
    )
    p.add_argument(
        "--samples",
        type=int,
        default=DEFAULT_SAMPLES,
        metavar="N",
        help=f"captures and pings to time (default {DEFAULT_SAMPLES}, at most {MAX_SAMPLES})",
    )
    p.add_argument(
        "--request-timeout", type=float, default=15.0, help="seconds to wait for an answer"
    )
    p.add_argument(
        "--embedded",
        action="store_true",
        help="start a hub in this process (the simulated device, or --agent)",
    )
    p.add_argument(
        "--agent", metavar="URL", help="--embedded: attach this agent (ws://...) instead of the sim"
    )
    add_sim_options(p, scene="login", embedded=True)  # login: a screen with fields
    p.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    p.set_defaults(handler=run_doctor_command)


def _checked(args: argparse.Namespace) -> None:
    """Refuse what cannot be right before anything starts (UsageError: exit 2)."""
    if not 1 <= args.samples <= MAX_SAMPLES:
        raise UsageError(f"--samples {args.samples}: give 1 to {MAX_SAMPLES}")
    if not 0 < args.request_timeout <= 600:
        raise UsageError(f"--request-timeout {args.request_timeout:g}: give 0 < seconds <= 600")
    if args.embedded and args.url:
        raise UsageError("give --url or --embedded, not both")
    if args.agent and not args.embedded:
        raise UsageError("--agent attaches an agent to an embedded hub: add --embedded")
    if args.agent:
        check_agent_url(args.agent)
    if args.embedded and not args.agent:
        from bridge.devices.sim.device import START_SCENES

        if args.sim_scene not in START_SCENES:
            raise UsageError(
                f"--sim-scene {args.sim_scene!r}: choose one of {', '.join(START_SCENES)}"
            )
    output: Path | None = args.output
    if output is not None and not output.is_dir() and not output.parent.is_dir():
        raise UsageError(f"-o {output}: the directory {output.parent} does not exist")
    if args.device is not None and (not args.device or len(args.device) > 255):
        raise UsageError("DEVICE: give a device id of 1 to 255 characters")


def check_agent_url(url: str) -> None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise UsageError(f"--agent {url!r}: {exc}") from None
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise UsageError(f"--agent {url!r}: expected ws://HOST:PORT (the agent's websocket)")


def run_doctor_command(args: argparse.Namespace) -> int:
    import anyio

    try:
        _checked(args)
        url = None
        if not args.embedded:
            from bridge.client.local_hub import hub_url

            url = hub_url(args.url)
            check_url(url)
    except UsageError as exc:
        print(f"mobridge doctor: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = anyio.run(_run, args, url)
    except KeyboardInterrupt:
        return 130
    from bridge.doctor.report import exit_status, file_name, table, to_json

    target: Path = args.output if args.output is not None else Path.cwd()
    if target.is_dir():
        target = target / file_name(report.device, report.created)
    data = to_json(report)
    try:
        target.write_bytes(data)
    except OSError as exc:
        print(f"mobridge doctor: cannot write {target}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        sys.stdout.write(data.decode())
    else:
        print("\n".join(table(report)))
    sys.stdout.flush()
    print(f"mobridge doctor: report written to {target}", file=sys.stderr)
    for check in report.failed:
        print(f"mobridge doctor: FAILED {check.name}: {check.value}", file=sys.stderr)
    return exit_status(report)


async def _run(args: argparse.Namespace, url: str | None) -> Any:
    import dataclasses

    import anyio

    from bridge.doctor.runner import DoctorOptions, run_doctor

    base = DoctorOptions(
        url=url or "",
        token=args.token,
        device=args.device,
        act=args.act,
        samples=args.samples,
        include_texts=args.include_texts,
        request_timeout=args.request_timeout,
    )
    if not args.embedded:
        return await run_doctor(base)
    token = secrets.token_urlsafe(24)
    async with anyio.create_task_group() as tg:
        port = await tg.start(_embedded_hub, args, token)
        if args.agent:
            label = "embedded hub (agent attached)"
        else:
            label = f"embedded hub (simulated {args.sim_platform}, scene {args.sim_scene})"
        device = args.device
        if device is None and not args.agent:
            device = f"sim-{args.sim_platform}"
        report = await run_doctor(
            dataclasses.replace(
                base,
                url=f"ws://127.0.0.1:{port}/v1",
                token=token,
                device=device,
                hub_label=label,
                wait_for_device_s=AGENT_LINK_WAIT_S,
            )
        )
        tg.cancel_scope.cancel()
    return report


async def _embedded_hub(args: argparse.Namespace, token: str, *, task_status: Any) -> None:
    import logging

    from bridge.hub.app import AgentTarget, Hub, HubConfig
    from bridge.hub.logs import configure
    from bridge.net.auth import Principal
    from bridge.wire.enums import Platform

    configure(stream=sys.stderr, level=logging.WARNING)
    config = HubConfig(
        host="127.0.0.1",
        port=0,
        tokens={token: Principal("controller", "doctor-embedded")},
        sim=not args.agent,
        sim_scene=args.sim_scene if not args.agent else "menu",
        sim_platform=Platform.IOS if args.sim_platform == "ios" else Platform.ANDROID,
        agents=[AgentTarget(args.agent, args.agent_token)] if args.agent else [],
        dashboard=None,
    )
    await Hub(config).run(task_status=task_status)
