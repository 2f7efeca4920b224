"""``bridge.core.alert_screen``: which snapshots show a system alert, and when an answer took
it away — through the real importer and normalizer, from uiautomator XML."""

from __future__ import annotations

from bridge.core.alert_screen import alert_answered, alert_shown, alert_words
from bridge.core.importers import ImportFailure, import_dump
from bridge.core.normalize import NormalizeFailure, SnapshotContext, normalize
from bridge.wire.snapshot import ScreenSnapshot

APP = "dev.example.app"


def _node(text: str, rid: str = "", pkg: str = APP, clickable: bool = False) -> str:
    return (
        f'<node index="0" text="{text}" resource-id="{rid}" class="android.widget.TextView" '
        f'package="{pkg}" content-desc="" clickable="{str(clickable).lower()}" '
        f'bounds="[0,0][100,50]" />'
    )


def _screen(*windows: tuple[str, list[str]]) -> ScreenSnapshot:
    roots = "".join(
        f'<node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
        f'package="{pkg}" content-desc="" bounds="[0,0][1080,2400]">{"".join(kids)}</node>'
        for pkg, kids in windows
    )
    raw = import_dump(f'<hierarchy rotation="0">{roots}</hierarchy>'.encode(), "t")
    assert not isinstance(raw, ImportFailure), raw
    done = normalize(raw, SnapshotContext("d", "s_1", 0))
    assert not isinstance(done, NormalizeFailure), done
    return done.full


def _words(screen: ScreenSnapshot) -> tuple[str, ...]:
    words = alert_words(screen)
    assert words is not None
    return words


def test_an_app_screen_shows_no_alert() -> None:
    assert not alert_shown(_screen((APP, [_node("Hello"), _node("OK", clickable=True)])))


def test_the_permission_controller_window_on_top_is_an_alert() -> None:
    pc = "com.android.permissioncontroller"
    shown = _screen(
        (pc, [_node("Allow Demo to take pictures?", pkg=pc), _node("Allow", pkg=pc)]),
        (APP, [_node("Camera")]),
    )
    assert shown.package_name == pc
    assert alert_shown(shown)


def test_an_alert_dialog_is_found_by_its_parts_inside_the_app() -> None:
    dialog = _screen(
        (APP, [_node("Discard draft?", "android:id/alertTitle"), _node("OK", "android:id/button1")])
    )
    assert alert_shown(dialog)
    # the same words without the platform's ids are the app's own text, not an alert
    assert not alert_shown(_screen((APP, [_node("Discard draft?"), _node("OK")])))


def test_an_app_ticking_beneath_a_prompt_does_not_answer_it() -> None:
    pc = "com.android.permissioncontroller"
    prompt = [_node("Allow?", f"{pc}:id/permission_message", pc)]
    before = _screen((APP, [_node("Tick 1")]), (pc, prompt))
    ticked = _screen((APP, [_node("Tick 2")]), (pc, prompt))
    assert alert_shown(before) and not alert_answered(_words(before), ticked)
    assert alert_answered(_words(before), _screen((APP, [_node("Tick 3")])))


def test_answered_when_the_alert_is_gone_or_another_screen_shows() -> None:
    first = _screen((APP, [_node("Discard draft?", "android:id/alertTitle")]))
    gone = _screen((APP, [_node("Draft")]))
    same = _screen((APP, [_node("Discard draft?", "android:id/alertTitle")]))
    chained = _screen(
        (APP, [_node("Allow notifications?", "android:id/alertTitle"), _node("Later")])
    )
    assert alert_answered(_words(first), gone)
    assert not alert_answered(_words(first), same)
    assert alert_answered(_words(first), chained)
