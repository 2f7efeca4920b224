"""SecretMasker on raw captures: the three rules of bridge/core/secret_mask.py, field by field.

A typed secret must never reach a snapshot: a field equal to it, a field containing a long
enough one, and an editable field showing a prefix of it (character-by-character typing) are
masked; anything the hub did not type is left alone, and the capture object is returned
unchanged when nothing needed masking.
"""

from __future__ import annotations

from bridge.core.secret_mask import MASK, MIN_CONTAINED, MIN_PREFIX, SecretMasker
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree

SECRET = "hunter2-Xy"  # 10 characters: longer than MIN_CONTAINED


def _tree(*nodes: RawNode) -> RawTree:
    return RawTree(capture=1, platform=Platform.ANDROID, nodes=nodes)


def _masker(*secrets: str) -> SecretMasker:
    m = SecretMasker()
    for s in secrets:
        m.typed(s)
    return m


def test_every_text_field_equal_to_a_secret_is_masked_and_others_are_kept() -> None:
    m = _masker(SECRET)
    for field in ("text", "label", "value", "hint"):
        node = RawNode(handle=1, parent=0, **{field: SECRET}, automation_id=SECRET)
        masked = m.mask_node(node)
        assert getattr(masked, field) == MASK, field
        assert masked.automation_id == SECRET  # not a shown text: not rewritten
        tree = _tree(RawNode(handle=0, parent=-1, text="Title"), node)
        out = m.mask(tree)
        assert getattr(out.nodes[1], field) == MASK, field
        assert out.nodes[0] is tree.nodes[0]


def test_a_long_secret_inside_a_text_is_masked_a_short_one_is_not() -> None:
    m = _masker(SECRET, "abc12")
    assert len("abc12") < MIN_CONTAINED <= len(SECRET)
    node = RawNode(handle=1, parent=0, text=f"Welcome {SECRET}!", label="code abc12 sent")
    masked = m.mask_node(node)
    assert masked.text == MASK and masked.label == "code abc12 sent"
    exact = _masker("x" * MIN_CONTAINED)
    assert exact.mask_node(RawNode(handle=1, parent=0, text="ax" + "x" * 5 + "b")).text == MASK
    shorter = _masker("x" * (MIN_CONTAINED - 1))
    kept = RawNode(handle=1, parent=0, text="a" + "x" * (MIN_CONTAINED - 1) + "b")
    assert shorter.mask_node(kept) is kept


def test_an_editable_field_showing_a_prefix_is_masked_from_min_prefix_characters() -> None:
    m = _masker(SECRET)
    short = SECRET[: MIN_PREFIX - 1]
    enough = SECRET[:MIN_PREFIX]
    for field in ("text", "value"):
        typing = RawNode(handle=1, parent=0, editable=True, **{field: enough})
        assert getattr(m.mask_node(typing), field) == MASK, field
        early = RawNode(handle=1, parent=0, editable=True, **{field: short})
        assert m.mask_node(early) is early
    # a prefix in a label or hint, or in a field that is not editable, is no echo
    label = RawNode(handle=1, parent=0, editable=True, label=enough, hint=enough)
    assert m.mask_node(label) is label
    static = RawNode(handle=1, parent=0, text=enough)
    assert m.mask_node(static) is static
    # a secret shorter than MIN_PREFIX is masked as a whole only
    tiny = _masker("ab")
    assert tiny.mask_node(RawNode(handle=1, parent=0, editable=True, text="ab")).text == MASK
    first = RawNode(handle=1, parent=0, editable=True, text="a")
    assert tiny.mask_node(first) is first


def test_masking_leaves_the_mask_and_empty_fields_alone_and_returns_the_same_tree() -> None:
    m = _masker(SECRET)
    tree = _tree(
        RawNode(handle=0, parent=-1, text=MASK),
        RawNode(handle=1, parent=0, editable=True, text=""),
        RawNode(handle=2, parent=0, text="ordinary"),
    )
    assert m.mask(tree) is tree
    assert SecretMasker().mask(_tree(RawNode(handle=0, parent=-1, text=SECRET))).nodes[0].text == (
        SECRET
    )  # nothing typed: nothing to hide


def test_is_secret_answers_for_ordinary_fields() -> None:
    m = _masker(SECRET)
    assert m.is_secret(SECRET) and m.is_secret(f"x{SECRET}x")
    assert not m.is_secret(SECRET[:MIN_PREFIX])  # a prefix counts only while typing
    assert not m.is_secret(None) and not m.is_secret("") and not m.is_secret(MASK)


def test_the_least_recently_typed_secret_is_forgotten_past_the_capacity() -> None:
    m = SecretMasker(capacity=2)
    m.typed("first-secret")
    m.typed("second-secret")
    m.typed("first-secret")  # typed again: now the most recent
    m.typed("third-secret")
    assert len(m) == 2
    assert m.is_secret("first-secret") and m.is_secret("third-secret")
    assert not m.is_secret("second-secret")
    m.typed("")
    assert len(m) == 2


def test_the_version_grows_only_when_the_set_of_secrets_changes() -> None:
    m = SecretMasker(capacity=1)
    assert m.version == 0
    m.typed("one-secret")
    assert m.version == 1
    m.typed("one-secret")
    assert m.version == 1
    m.typed("two-secret")  # added, and the first forgotten
    assert m.version == 3


def test_free_text_is_masked_whole_or_in_place() -> None:
    m = _masker(SECRET)
    assert m.mask_text(SECRET) == MASK
    assert m.mask_text_after("previous line", SECRET) == MASK
    line = "login ok"
    assert m.mask_text(line) is line and m.mask_text_after("", line) is line
    assert SECRET not in m.mask_text(f"password={SECRET};")
    assert SecretMasker().mask_text(SECRET) == SECRET
    assert m.mask_text("") == ""


def test_a_whole_capture_masks_typing_echoes_only_in_editable_text_and_value() -> None:
    m = _masker(SECRET)
    prefix = SECRET[:MIN_PREFIX]
    tree = _tree(
        RawNode(handle=0, parent=-1, text=prefix),  # not editable: not an echo
        RawNode(
            handle=1, parent=0, editable=True, text=prefix, value=prefix, label=prefix, hint=prefix
        ),
    )
    out = m.mask(tree)
    assert out.nodes[0] is tree.nodes[0]
    masked = out.nodes[1]
    assert (masked.text, masked.value, masked.label, masked.hint) == (MASK, MASK, prefix, prefix)
