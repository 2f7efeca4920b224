"""Golden scenes: the offline CLI's outputs on seven hand-made screens, checked in.

``tests/fixtures/scenes/<scene>/input*.json`` are raw agent trees (``RawTree``) captured once
from the simulated demo app by ``scripts/update-golden``; the other files are what
``mobridge snapshot|find|ref|resolve|diff`` printed for them, and ``manifest.json`` lists the
exact argv and exit status of each. These tests

- recompute every golden from the input files (never from the simulator) and compare the
  JSON values (whitespace aside);
- validate every reference-typed golden with ``../shared/tools/conform.py`` (one subprocess
  per kind; skipped when ../shared is absent);
- state what each golden means, so a wrong golden cannot pass by being regenerated: roles,
  counts, locators, password redaction, list identity across a scroll, diff contents, sizes.

A golden whose CLI answer is known to be wrong holds the RIGHT answer (``knownBug`` in the
manifest) and its comparison is ``xfail(strict=True)``: fixing the bug turns it into a failure
that asks for the marker to go.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bridge.cli.main import main as cli_main
from bridge.cli.offline import load
from bridge.core.identity import IdAllocator
from bridge.wire.raw import RawTree

SCENES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "scenes"
MANIFEST: dict[str, Any] = json.loads((SCENES_DIR / "manifest.json").read_text(encoding="utf-8"))
PLACEHOLDER = "{scene}"
EXPECTED_SCENES = {"login", "dialog", "list", "ambiguous", "settings", "game", "search"}
TYPED_PASSWORD = "hunter2-golden"
"""What scripts/update-golden typed into the login password field (must never show up)."""
COMPACT_LIMIT = 30_000
DIFF_LIMIT = 5_000
STRONG = {"RESOURCE_ID", "RESOURCE_ID_SCOPED", "ROLE_LABEL_ANCESTOR", "ROLE_STATE_COLLECTION_ITEM"}
TOGGLE_LABELS = ("Wi-Fi", "Bluetooth", "Dark mode")
SEARCH_RESULTS = ["Apple", "Apricot", "Grape", "Papaya", "Pineapple"]

Json = Any


# ---- helpers -------------------------------------------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def expand(argv: list[str], scene: str) -> list[str]:
    return [a.replace(PLACEHOLDER, str(SCENES_DIR / scene)) for a in argv]


def golden(scene: str, file: str) -> Json:
    return json.loads((SCENES_DIR / scene / file).read_text(encoding="utf-8"))


def entries() -> Iterator[tuple[str, dict[str, Any]]]:
    for scene, spec in MANIFEST.items():
        for entry in spec["outputs"]:
            yield scene, entry


def recompute(scene: str, entry: dict[str, Any]) -> tuple[int, str]:
    """(exit status, stdout) of the entry's CLI argv; derived refs are rebuilt here."""
    if entry.get("derive") == "strong-locators":
        ref = golden(scene, entry["argv"][0])
        kept = []
        for loc in ref["locators"]:
            if loc["type"] not in STRONG:
                continue
            if isinstance(loc.get("ancestor"), str) and "|" in loc["ancestor"]:
                # drop what tells look-alikes apart: a generic ref must be ambiguous
                loc = {**loc, "ancestor": loc["ancestor"].split("|", 1)[0] or None}
            kept.append(loc)
        return 0, json.dumps({**ref, "locators": kept})
    code, out, err = run_cli(expand(entry["argv"], scene))
    assert code in (0, 1), f"{scene}/{entry['file']}: exit {code}: {err}"
    return code, out


def nodes_by_id(snapshot: Json) -> dict[str, Json]:
    return {n["nodeId"]: n for n in snapshot["nodes"]}


def walk_nodes(doc: Json) -> Iterator[Json]:
    """Every JSON object that looks like a SemanticNode, anywhere in ``doc``."""
    if isinstance(doc, dict):
        if "nodeId" in doc and "role" in doc:
            yield doc
        for value in doc.values():
            yield from walk_nodes(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from walk_nodes(value)


def card_label(snapshot: Json, node_id: str) -> str | None:
    """The plan name printed next to a Continue button: a TEXT sibling's text."""
    nodes = nodes_by_id(snapshot)
    parent = nodes[node_id].get("parentId")
    siblings = [n for n in snapshot["nodes"] if n.get("parentId") == parent and n["role"] == "TEXT"]
    return siblings[0].get("text") if len(siblings) == 1 else None


def full_snapshot(scene: str, file: str) -> Json:
    code, out, err = run_cli(["snapshot", str(SCENES_DIR / scene / file), "--full"])
    assert code == 0, err
    return json.loads(out)


# ---- the fixture set itself ----------------------------------------------------------------


def test_manifest_covers_every_scene_and_every_file() -> None:
    assert set(MANIFEST) == EXPECTED_SCENES
    assert {p.name for p in SCENES_DIR.iterdir() if p.is_file()} == {"manifest.json", "README.md"}
    assert {p.name for p in SCENES_DIR.iterdir() if p.is_dir()} == EXPECTED_SCENES
    for scene, spec in MANIFEST.items():
        listed = set(spec["inputs"]) | {e["file"] for e in spec["outputs"]}
        present = {p.name for p in (SCENES_DIR / scene).iterdir()}
        assert present == listed, (
            f"{scene}: unlisted {present - listed}, missing {listed - present}"
        )
        kinds = {f.split(".", 1)[0] for f in listed}
        assert {"input", "snapshot", "find", "ref", "resolve"} <= kinds, scene
        assert "snapshot.compact.json" in listed and "snapshot.full.json" in listed
        if any(name.startswith("input.after") for name in spec["inputs"]):
            assert "diff.json" in listed, scene


def test_fixture_set_is_small() -> None:
    total = sum(p.stat().st_size for p in SCENES_DIR.rglob("*") if p.is_file())
    assert total < 512_000, f"tests/fixtures/scenes holds {total} bytes"


@pytest.mark.parametrize(
    ("scene", "file"),
    [(s, f) for s, spec in MANIFEST.items() for f in spec["inputs"]],
    ids=[f"{s}/{f}" for s, spec in MANIFEST.items() for f in spec["inputs"]],
)
def test_inputs_are_strict_raw_trees(scene: str, file: str) -> None:
    tree = msgspec.json.decode((SCENES_DIR / scene / file).read_bytes(), type=RawTree)
    assert tree.nodes and tree.package == "dev.mobridge.demo"
    assert (".ios" in file) == (tree.platform.value == "IOS")


# ---- every golden is what the CLI prints today -------------------------------------------


def _params() -> list[Any]:
    params = []
    for scene, entry in entries():
        marks = []
        if entry.get("knownBug"):
            marks.append(pytest.mark.xfail(strict=True, reason=entry["knownBug"]))
        params.append(pytest.param(scene, entry, marks=marks, id=f"{scene}/{entry['file']}"))
    return params


@pytest.mark.parametrize(("scene", "entry"), _params())
def test_golden_equals_cli_output(scene: str, entry: dict[str, Any]) -> None:
    code, out = recompute(scene, entry)
    assert json.loads(out) == golden(scene, entry["file"]), (
        f"{scene}/{entry['file']} differs from `mobridge {' '.join(entry['argv'])}`; if the "
        "change is intended, run scripts/update-golden and review the diff"
    )
    if "exit" in entry:
        assert code == entry["exit"]


def check_known_bug(scene: str, entry: dict[str, Any]) -> None:
    """A golden marked ``knownBug`` holds the right answer: what ``expectedArgv`` prints, not
    what the buggy ``argv`` prints (which its strict xfail expects to differ)."""
    code, out, err = run_cli(expand(entry["expectedArgv"], scene))
    assert code == entry.get("exit", 0), err
    assert json.loads(out) == golden(scene, entry["file"])


def test_known_bug_goldens_hold_the_right_answer() -> None:
    """Every ``knownBug`` entry of the manifest is checked through ``expectedArgv``; and the
    check itself can fail: an entry made here whose ``expectedArgv`` prints something else is
    caught (the manifest marks none at present, so the check runs on made entries too)."""
    for scene, entry in entries():
        if entry.get("knownBug"):
            check_known_bug(scene, entry)
    scene, entry = next((s, e) for s, e in entries() if "derive" not in e and e.get("exit", 0) == 0)
    right = {**entry, "knownBug": "made by this test", "expectedArgv": entry["argv"]}
    check_known_bug(scene, right)
    others = [e for s, e in entries() if s == scene and "derive" not in e]
    wrong_argv = next(
        e["argv"] for e in others if golden(scene, e["file"]) != golden(scene, entry["file"])
    )
    wrong = {**right, "expectedArgv": wrong_argv}
    with pytest.raises(AssertionError):
        check_known_bug(scene, wrong)


def test_the_installed_command_prints_the_same_bytes() -> None:
    """A few goldens through ``python -m bridge.cli`` as a process: the acceptance tests'
    surface and these fixtures agree byte for byte (stdout is one JSON line)."""
    picked = [
        ("login", "find.sign_in.json"),
        ("list", "diff.json"),
        ("ambiguous", "resolve.generic.json"),
    ]
    for scene, file in picked:
        entry = next(e for s, e in entries() if s == scene and e["file"] == file)
        proc = subprocess.run(
            [sys.executable, "-m", "bridge.cli", *expand(entry["argv"], scene)],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == entry["exit"], proc.stderr
        code, out, _ = run_cli(expand(entry["argv"], scene))
        assert code == proc.returncode
        assert proc.stdout == out.encode(), f"{scene}/{file}"
        assert json.loads(proc.stdout) == golden(scene, file)


# ---- conformance with the reference schemas --------------------------------------------------


def _files(pattern: str) -> list[Path]:
    return sorted(SCENES_DIR.glob(f"*/{pattern}"))


def _conform(conform_py: Path, kind: str, files: list[Path]) -> None:
    assert files, f"no golden of kind {kind}"
    proc = subprocess.run(
        [sys.executable, str(conform_py), kind, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\b0 failed\b", proc.stdout), proc.stdout


def test_reference_typed_goldens_pass_conform_py(shared_dir: Path, tmp_path: Path) -> None:
    conform_py = shared_dir / "tools" / "conform.py"
    _conform(conform_py, "snapshot", _files("snapshot.*.json"))
    _conform(conform_py, "noderef", _files("ref.*.json"))
    _conform(conform_py, "diff", _files("diff*.json"))
    errors = [p for p in _files("resolve.*.json") if "error" in json.loads(p.read_text())]
    _conform(conform_py, "error", errors)
    # find results are not a reference type; their refs and nodes are: one array per kind
    refs: list[Json] = []
    nodes: list[Json] = []
    for path in _files("find.*.json"):
        for match in json.loads(path.read_text())["matches"]:
            refs.append(match["ref"])
            nodes.append(match["node"])
    queries = [
        json.loads(e["argv"][e["argv"].index("--query") + 1])
        for _, e in entries()
        if e["argv"][0] == "find"
    ]
    for kind, docs in (("noderef", refs), ("node", nodes), ("query", queries)):
        path = tmp_path / f"{kind}.json"
        path.write_text(json.dumps(docs), encoding="utf-8")
        _conform(conform_py, kind, [path])


# ---- what the goldens mean ------------------------------------------------------------------


def test_sizes_compact_under_30_kb_and_diffs_under_5_kb() -> None:
    rows = []
    for scene, entry in entries():
        if entry["file"].startswith(("snapshot.compact", "diff")):
            _, out = recompute(scene, entry)
            rows.append((f"{scene}/{entry['file']}", len(out.rstrip("\n").encode())))
    table = "\n".join(f"{name:<40} {size:>6} B" for name, size in rows)
    for name, size in rows:
        limit = COMPACT_LIMIT if "snapshot" in name else DIFF_LIMIT
        assert size < limit, f"{name} is {size} B (limit {limit})\n{table}"
    assert len(rows) >= 7 + 6, table


@pytest.mark.parametrize("scene", sorted(EXPECTED_SCENES))
def test_compact_is_a_subset_of_full_with_the_same_ids(scene: str) -> None:
    for compact_path in sorted((SCENES_DIR / scene).glob("snapshot.compact*.json")):
        compact = golden(scene, compact_path.name)
        full = golden(scene, compact_path.name.replace("compact", "full"))
        assert compact["compact"] is True and full["compact"] is False
        full_nodes = nodes_by_id(full)
        for node in compact["nodes"]:
            assert node["nodeId"] in full_nodes, (compact_path.name, node["nodeId"])
            assert node["role"] == full_nodes[node["nodeId"]]["role"]
        assert compact["treeHash"] == full["treeHash"]


def test_login_sign_in_is_a_button_found_once_by_resource_id() -> None:
    for file in ("find.sign_in.json", "find.sign_in.ios.json"):
        found = golden("login", file)
        assert found["count"] == 1, file
        (match,) = found["matches"]
        assert match["node"]["role"] == "BUTTON"
        assert match["node"]["label"] == "Sign in"
        assert match["ref"]["locators"][0]["type"] == "RESOURCE_ID", file
    ref = golden("login", "ref.sign_in.json")
    assert ref["locators"][0] == {"type": "RESOURCE_ID", "value": "dev.mobridge.demo:id/login"}
    assert golden("login", "resolve.after.json") == {
        "status": "RESOLVED",
        "nodeId": ref["nodeId"],
        "locator": "RESOURCE_ID",
    }
    diff = golden("login", "diff.json")
    assert [n.get("text") for n in diff["added"]] == ["Invalid credentials"]
    assert not diff["removed"] and not diff["changed"] and not diff["screenChanged"]


def test_login_password_is_redacted_everywhere() -> None:
    for platform_file in ("snapshot.full.json", "snapshot.full.ios.json"):
        inputs = [n for n in golden("login", platform_file)["nodes"] if n["role"] == "INPUT"]
        assert len(inputs) == 2, platform_file
        assert inputs[1]["hint"] == "Password" and inputs[1]["state"]["password"] is True
        assert inputs[0]["value"] == "guest"
    password = golden("login", "find.password.json")["matches"][0]["node"]
    assert password["state"]["password"] is True
    for path in SCENES_DIR.rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert TYPED_PASSWORD not in text, path
        doc = json.loads(text)
        for node in walk_nodes(doc):
            if (node.get("state") or {}).get("password"):
                assert "value" not in node and "text" not in node, (path, node["nodeId"])
    for change in golden("login", "diff.json")["changed"]:
        if change["node"] == password["nodeId"]:
            assert not {"value", "text"} & set(change["fields"])


def test_ambiguous_continue_is_found_twice_and_a_generic_ref_is_ambiguous() -> None:
    found = golden("ambiguous", "find.continue.json")
    assert found["count"] == 2
    ids = [m["node"]["nodeId"] for m in found["matches"]]
    assert all(m["node"]["role"] == "BUTTON" for m in found["matches"])
    assert golden("ambiguous", "find.continue_first.json")["count"] == 1
    ref = golden("ambiguous", "ref.continue.json")
    assert ref["nodeId"] == ids[0]
    assert not {loc["type"] for loc in ref["locators"]} & {"RESOURCE_ID", "RESOURCE_ID_SCOPED"}
    generic = golden("ambiguous", "ref.continue.generic.json")
    assert {loc["type"] for loc in generic["locators"]} <= STRONG
    error = golden("ambiguous", "resolve.generic.json")
    assert error["error"] == "AMBIGUOUS_MATCH"
    assert sorted(c["nodeId"] for c in error["candidates"]) == sorted(ids)
    assert error["recovery"]
    # the full ref (path and bounds agree) singles out its own button on the same screen
    assert golden("ambiguous", "resolve.same.json")["nodeId"] == ids[0]


def test_ambiguous_ref_lands_on_its_own_card_after_the_choice() -> None:
    after = full_snapshot("ambiguous", "input.after.json")
    resolved = golden("ambiguous", "resolve.after.json")
    assert resolved["status"] == "RESOLVED"
    assert card_label(after, resolved["nodeId"]) == "Basic plan"


def test_a_third_continue_is_told_apart_by_its_card_or_ambiguous_golden() -> None:
    third = full_snapshot("ambiguous", "input.third.json")
    continues = [n["nodeId"] for n in third["nodes"] if n.get("label") == "Continue"]
    assert [card_label(third, c) for c in continues] == ["Team plan", "Basic plan", "Pro plan"]
    # the ref built on the two-card screen names its card: it finds Basic plan's button
    resolved = golden("ambiguous", "resolve.third.json")
    assert resolved["status"] == "RESOLVED"
    assert card_label(third, resolved["nodeId"]) == "Basic plan"
    # without that context (strong locators only) three look-alikes: ambiguous, never a pick
    error = golden("ambiguous", "resolve.third.generic.json")
    assert error["error"] == "AMBIGUOUS_MATCH"
    assert [c["nodeId"] for c in error["candidates"]] == continues


def test_a_third_continue_never_resolves_to_another_card() -> None:
    third = full_snapshot("ambiguous", "input.third.json")
    entry = next(e for s, e in entries() if s == "ambiguous" and e["file"] == "resolve.third.json")
    code, out, _ = run_cli(expand(entry["argv"], "ambiguous"))
    answer = json.loads(out)
    if answer.get("status") == "RESOLVED":
        assert card_label(third, answer["nodeId"]) == "Basic plan"
    else:
        assert code == 1 and answer["error"] == "AMBIGUOUS_MATCH"


@pytest.mark.parametrize("flavour", ["", ".ios"])
def test_list_rows_are_items_with_distinct_keys_and_ids_are_never_reused(flavour: str) -> None:
    snap = golden("list", f"snapshot.full{flavour}.json")
    rows = [n for n in snap["nodes"] if n["role"] == "LIST_ITEM"]
    keys = [r["collection"]["itemKey"] for r in rows]
    assert keys == [f"Item {i}" for i in range(1, 11)]
    compact_rows = [n for n in golden("list", f"snapshot.compact{flavour}.json")["nodes"]]
    assert sum(n["role"] == "LIST_ITEM" for n in compact_rows) == 10
    # the same id space as `mobridge diff` (one allocator across both captures)
    ids = IdAllocator()
    before = load(str(SCENES_DIR / "list" / f"input{flavour}.json"), "s_1", ids).full
    after = load(str(SCENES_DIR / "list" / f"input{flavour}.after.json"), "s_2", ids).full
    key_before = {n.node_id: n.collection.item_key for n in before.nodes if n.collection}
    key_after = {n.node_id: n.collection.item_key for n in after.nodes if n.collection}
    assert sorted(key_after.values(), key=str) == sorted(f"Item {i}" for i in range(11, 21))
    shared_rows = key_before.keys() & key_after.keys()
    reused = {
        i: (key_before[i], key_after[i]) for i in shared_rows if key_before[i] != key_after[i]
    }
    assert reused == {}, f"ids given to another item across the scroll: {reused}"
    # every item on screen changed, so no row id may survive, nor be any older node's id
    assert not set(key_after) & {n.node_id for n in before.nodes}
    texts_before = {n.node_id: n.text for n in before.nodes if n.role.value == "TEXT"}
    texts_after = {n.node_id: n.text for n in after.nodes if n.role.value == "TEXT"}
    shared = texts_before.keys() & texts_after.keys()
    assert all(texts_before[i] == texts_after[i] for i in shared)
    # the golden diff says the same: old rows removed, new rows added under new ids
    diff = golden("list", f"diff{flavour}.json")
    assert set(key_before) <= set(diff["removed"])
    added_rows = [n for n in diff["added"] if n["role"] == "LIST_ITEM"]
    assert added_rows and not {n["nodeId"] for n in added_rows} & set(key_before)
    assert [n["collection"]["itemKey"] for n in added_rows] == [
        f"Item {i}" for i in range(11, 11 + len(added_rows))
    ]
    assert not diff["screenChanged"]


@pytest.mark.parametrize("flavour", ["", ".ios"])
def test_list_row_ref_refuses_after_scrolling_the_row_away(flavour: str) -> None:
    ref = golden("list", f"ref.row3{flavour}.json")
    assert ref["locators"][0]["type"] == "ROLE_STATE_COLLECTION_ITEM"
    assert ref["locators"][0]["itemKey"] == "Item 3"
    error = golden("list", f"resolve.after{flavour}.json")
    assert error["error"] in ("NODE_NOT_FOUND", "STALE_NODE_REF")
    found = golden("list", "find.item3.json")
    assert [m["node"]["role"] for m in found["matches"]].count("LIST_ITEM") == 1
    assert golden("list", "find.third_row.json")["matches"][0]["node"]["label"] == "Item 3"


def test_settings_toggles_have_no_ids_and_checked_flips() -> None:
    snap = golden("settings", "snapshot.full.json")
    toggles = {
        n["label"]: n
        for n in snap["nodes"]
        if n.get("label") in TOGGLE_LABELS and n["role"] != "TEXT"
    }
    assert sorted(toggles) == sorted(TOGGLE_LABELS)
    for toggle in toggles.values():
        assert toggle["role"] in ("CHECKBOX", "SWITCH")
        assert "resourceId" not in toggle and "automationId" not in toggle
        assert toggle["className"] == "android.view.View"
    assert [toggles[name]["state"]["checked"] for name in TOGGLE_LABELS] == [True, False, False]
    wifi = toggles["Wi-Fi"]["nodeId"]
    diff = golden("settings", "diff.json")
    assert diff["changed"] == [
        {"node": wifi, "fields": {"state.checked": {"before": True, "after": False}}}
    ]
    assert not diff["added"] and not diff["removed"] and not diff["screenChanged"]
    ref = golden("settings", "ref.wifi.json")
    assert ref["nodeId"] == wifi and ref["locators"][0]["type"] == "ROLE_LABEL_ANCESTOR"
    assert golden("settings", "resolve.after.json")["status"] == "RESOLVED"
    assert golden("settings", "find.toggles.json")["count"] == 3
    assert golden("settings", "find.checked.json")["matches"][0]["node"]["nodeId"] == wifi


def test_game_is_a_single_canvas_region() -> None:
    snap = golden("game", "snapshot.full.json")
    canvases = [n for n in snap["nodes"] if n["role"] == "CANVAS"]
    assert len(canvases) == 1
    canvas = canvases[0]
    assert not [n for n in snap["nodes"] if n.get("parentId") == canvas["nodeId"]]
    parent = nodes_by_id(snap)[canvas["parentId"]]
    assert canvas["bounds"] == parent["bounds"]  # it fills the content area
    assert golden("game", "find.canvas.json")["count"] == 1
    assert golden("game", "resolve.same.json")["nodeId"] == canvas["nodeId"]


def test_search_results_appear_as_added_rows() -> None:
    diff = golden("search", "diff.json")
    added_rows = [n["label"] for n in diff["added"] if n["role"] == "LIST_ITEM"]
    assert added_rows == SEARCH_RESULTS
    before = golden("search", "snapshot.full.json")
    status = [n["nodeId"] for n in before["nodes"] if n.get("text") == "Type to search"]
    assert status and set(status) <= set(diff["removed"])
    query = golden("search", "ref.query.json")["nodeId"]
    (change,) = [c for c in diff["changed"] if c["node"] == query]
    assert change["fields"]["value"] == {"before": None, "after": "ap"}
    contains = golden("search", "find.contains_ap.json")
    assert [m["node"]["label"] for m in contains["matches"]] == SEARCH_RESULTS
    regex = golden("search", "find.regex_p.json")
    assert [m["node"]["label"] for m in regex["matches"]] == ["Papaya", "Pineapple"]
    assert golden("search", "resolve.after.json")["nodeId"] == query


def test_dialog_is_found_and_its_button_is_gone_after_dismissal() -> None:
    assert golden("dialog", "find.dialog.json")["count"] == 1
    ok = golden("dialog", "find.ok.json")
    assert ok["count"] == 1
    assert ok["matches"][0]["ref"]["locators"][0] == {
        "type": "RESOURCE_ID",
        "value": "android:id/button1",
    }
    assert golden("dialog", "resolve.after.json")["error"] == "NODE_NOT_FOUND"
    diff = golden("dialog", "diff.json")
    assert diff["screenChanged"] is True
    assert golden("dialog", "ref.ok.json")["nodeId"] in diff["removed"]
