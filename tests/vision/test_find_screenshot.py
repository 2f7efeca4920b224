"""``mobridge find SCREENSHOT`` reads a PNG or JPEG offline with the hub's own path and prints
its vision nodes; ``--json`` gives text, role, bounds and confidence of each."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from PIL import Image

from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.skips import need_vision
from tests.vision.real.score import HERE, score_lines

SCREENS = ROOT / "tests" / "vision" / "screens"


def find(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(
        mobridge_command("find", *args),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
        timeout=120,
        check=False,
    )


@need_vision
def test_find_on_a_png_prints_its_vision_nodes_as_json(tmp_path: Path) -> None:
    got = find(tmp_path, str(HERE / "player-tv-tos.png"), "--json")
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    assert (out["file"], out["width"], out["height"]) == ("player-tv-tos.png", 1920, 1080)
    assert out["engine"] == "ppocr" and out["count"] == len(out["nodes"]) > 0
    score = score_lines("player-tv-tos", [n["text"] for n in out["nodes"]])
    assert (score.recall, score.precision) == (1.0, 1.0), score
    for node in out["nodes"]:
        left, top, right, bottom = node["bounds"]
        assert 0 <= left < right <= 1920 and 0 <= top < bottom <= 1080, node
        assert node["role"] in ("TEXT", "BUTTON") and 0.5 <= node["confidence"] <= 1.0
    subtitle = next(n for n in out["nodes"] if "freaked" in n["text"])
    assert subtitle["bounds"][1] > 900  # at the bottom of the frame, where it is drawn
    again = find(tmp_path, str(HERE / "player-tv-tos.png"), "--json")
    assert again.stdout == got.stdout  # the same file, the same output


@need_vision
def test_find_on_a_jpeg_with_text_keeps_the_matching_nodes(tmp_path: Path) -> None:
    got = find(tmp_path, str(HERE / "trekarta-place.jpeg"), "--text", "caves", "--json")
    assert got.returncode == 0, got.stderr
    texts = [n["text"] for n in json.loads(got.stdout)["nodes"]]
    assert texts and all("caves" in t.lower() for t in texts)
    assert "Peya Sea Caves" in texts


@need_vision
def test_buttons_on_a_drawn_page_are_buttons(tmp_path: Path) -> None:
    got = find(tmp_path, str(SCREENS / "game-menu.png"), "--json")
    roles = {n["text"]: n["role"] for n in json.loads(got.stdout)["nodes"]}
    assert roles.get("SETTINGS") == "BUTTON", roles


@need_vision
def test_a_blank_screenshot_has_no_vision_nodes(tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    Image.new("RGB", (1080, 2400), "black").save(blank)
    got = find(tmp_path, str(blank), "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["count"] == 0


def test_a_broken_image_or_a_selector_vision_cannot_use_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    got = find(tmp_path, str(broken))
    assert got.returncode == 2 and len(got.stderr.strip().splitlines()) == 1, got.stderr
    got = find(tmp_path, str(HERE / "2048-phone.png"), "--label", "Score")
    assert got.returncode == 2 and "only --text" in got.stderr, got.stderr
