"""LAYER 4 — the options of a hub's simulated device and agent link, shared by every command
that starts a hub: ``serve``, and the embedded hubs of ``doctor --embedded`` and ``mcp
--embedded``. Each caller passes its own default screen and, where it validates them, the
scene names (``serve`` does; the others leave the check to the hub they start)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence


def add_sim_options(
    p: argparse.ArgumentParser,
    *,
    scene: str,
    scenes: Sequence[str] | None = None,
    embedded: bool = False,
    agent_token: bool = True,
) -> None:
    """``--sim-scene`` (default ``scene``; one of ``scenes`` when given), ``--sim-platform``
    and, with ``agent_token``, ``--agent-token`` (env ``MOBRIDGE_AGENT_TOKEN``). ``embedded``:
    the help says the option is for ``--embedded``."""
    lead = "--embedded: " if embedded else ""
    listed = f": {', '.join(scenes)}" if scenes else ""
    p.add_argument(
        "--sim-scene",
        default=scene,
        choices=scenes,
        metavar="SCENE",
        help=f"{lead}start screen of the simulated app{listed} (default: {scene})",
    )
    p.add_argument(
        "--sim-platform",
        choices=("android", "ios"),
        default="android",
        help=f"{lead}the simulated device's platform; its id is sim-android or sim-ios",
    )
    if agent_token:
        p.add_argument(
            "--agent-token",
            default=os.environ.get("MOBRIDGE_AGENT_TOKEN"),
            help=f"{lead}token for --agent links (env MOBRIDGE_AGENT_TOKEN)",
        )


def webdriver_unavailable(host: str) -> str | None:
    """Why ``serve --webdriver`` cannot start here (one line with the fix), or None."""
    if host not in ("127.0.0.1", "localhost"):
        return "--webdriver serves 127.0.0.1 only: drop --host or use --host 127.0.0.1"
    try:
        import lxml.etree  # noqa: F401
    except ImportError:
        return (
            "--webdriver needs lxml (the webdriver extra): pip install 'mobridge[webdriver]' "
            "or MOBRIDGE_EXTRAS=webdriver scripts/run"
        )
    return None
