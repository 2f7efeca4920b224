"""The Android stubs against the official API listing (agents/android/tools/api_check.py): the
repository's stubs and device layer pass; a deliberately wrong stub signature, a wrong inlined
constant or an unguarded call to a member newer than API 26 fails with a message naming it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANDROID = ROOT / "agents" / "android"
CHECK = ANDROID / "tools" / "api_check.py"
STUBS = ANDROID / "stubs" / "src" / "main" / "java"
APP = ANDROID / "app" / "src" / "main" / "java"
NODE_INFO = Path("android/view/accessibility/AccessibilityNodeInfo.java")
BACKEND = Path("dev/mobridge/agent/android/UiAutomationBackend.java")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), *args], capture_output=True, text=True, check=False
    )


def copy(src: Path, tmp: Path, name: str) -> Path:
    dst = tmp / name
    shutil.copytree(src, dst)
    return dst


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_repository_stubs_match_the_listing_and_newer_calls_are_guarded() -> None:
    done = run()
    assert done.returncode == 0, done.stderr
    assert "match the API listing" in done.stdout


def test_a_wrong_return_type_fails_naming_the_member(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / NODE_INFO,
        "public int getChildCount()",
        "public long getChildCount()",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "AccessibilityNodeInfo.getChildCount" in done.stderr
    assert "differs in type" in done.stderr


def test_a_wrong_parameter_list_fails_and_shows_what_the_listing_has(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / NODE_INFO,
        "getChild(int index, int prefetchingStrategy)",
        "getChild(int index, long prefetchingStrategy)",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "getChild(int, long)" in done.stderr
    assert "the listing has" in done.stderr


def test_a_wrong_inlined_constant_fails(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / NODE_INFO,
        "ACTION_CLICK = 0x00000010",
        "ACTION_CLICK = 0x00000020",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "ACTION_CLICK: stub value 32 but the listing says 16" in done.stderr


def test_a_member_missing_from_the_listing_fails(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / NODE_INFO,
        "    public int getWindowId()",
        "    public int getDisplayIdOfWindow() { throw new RuntimeException(); }\n"
        "    public int getWindowId()",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "getDisplayIdOfWindow" in done.stderr and "is not in the listing" in done.stderr


def test_an_unguarded_call_newer_than_api_26_fails(tmp_path: Path) -> None:
    app = copy(APP, tmp_path, "app")
    edit(
        app / BACKEND,
        "if (Build.VERSION.SDK_INT >= 30 && !r.password) {",
        "if (!r.password) {",
    )
    done = run("--app", str(app))
    assert done.returncode == 1
    assert "getStateDescription (0 arguments) is newer than API 26" in done.stderr


def test_a_guard_of_api_26_itself_does_not_count(tmp_path: Path) -> None:
    app = copy(APP, tmp_path, "app")
    edit(
        app / BACKEND,
        "if (Build.VERSION.SDK_INT >= 28) {",
        "if (Build.VERSION.SDK_INT >= 26) {",
    )
    done = run("--app", str(app))
    assert done.returncode == 1
    assert "isHeading" in done.stderr


def test_a_class_proven_against_api_26_only_is_still_checked(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / "android/accessibilityservice/AccessibilityService.java",
        "GLOBAL_ACTION_BACK = 1;",
        "GLOBAL_ACTION_BACK = 2;",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "GLOBAL_ACTION_BACK: stub value 2 but the listing says 1" in done.stderr


LISTINGS = ANDROID / "tools" / "api-listing"
BUNDLE = Path("android/os/Bundle.java")


def test_a_member_listed_on_the_superclass_is_found_through_extends(tmp_path: Path) -> None:
    # Bundle.getString/putString are listed on BaseBundle only: the repository passes because
    # the check follows "extends android.os.BaseBundle"; without that clause they are missing.
    listings = copy(LISTINGS, tmp_path, "listings")
    edit(
        listings / "api-26.txt",
        "public final class Bundle extends android.os.BaseBundle implements",
        "public final class Bundle implements",
    )
    done = run("--listings", str(listings))
    assert done.returncode == 1
    assert "android.os.Bundle.getString: stub method String getString(String)" in done.stderr
    assert "android.os.Bundle.putString" in done.stderr
    assert "putCharSequence" not in done.stderr  # listed on Bundle itself


def test_a_wrong_signature_of_an_inherited_member_fails(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / BUNDLE, "public String getString(String key)", "public Object getString(String key)"
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "android.os.Bundle.getString" in done.stderr
    assert "differs in type from the listing's method String getString(String)" in done.stderr


def test_an_enum_constant_not_in_the_listing_fails(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(stubs / "android/graphics/Bitmap.java", "{ PNG }", "{ PNG, GIF }")
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "android.graphics.Bitmap.CompressFormat.GIF" in done.stderr
    assert "is not in the listing" in done.stderr
    assert ".PNG" not in done.stderr


def test_a_wrong_intent_flag_fails(tmp_path: Path) -> None:
    stubs = copy(STUBS, tmp_path, "stubs")
    edit(
        stubs / "android/content/Intent.java",
        "FLAG_ACTIVITY_NEW_TASK = 0x10000000",
        "FLAG_ACTIVITY_NEW_TASK = 0x01000000",
    )
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "FLAG_ACTIVITY_NEW_TASK: stub value 16777216 but the listing says 268435456" in (
        done.stderr
    )


def test_every_stub_class_is_proven() -> None:
    done = run()
    assert done.returncode == 0, done.stderr
    assert "42 stub classes" in done.stdout
    assert "0 stub classes not yet proven" in done.stdout


def test_members_after_a_nested_class_are_checked(tmp_path: Path) -> None:
    """A member declared after a nested class's closing brace (MotionEvent's obtain after
    PointerCoords/PointerProperties) and the nested class's own fields are compared too."""
    stubs = copy(STUBS, tmp_path, "stubs")
    motion = stubs / "android" / "view" / "MotionEvent.java"
    edit(motion, "int buttonState, float xPrecision", "long buttonState, float xPrecision")
    edit(motion, "public int toolType;", "public long toolType;")
    done = run("--stubs", str(stubs))
    assert done.returncode == 1
    assert "MotionEvent.obtain" in done.stderr
    assert "MotionEvent.PointerProperties.toolType" in done.stderr
