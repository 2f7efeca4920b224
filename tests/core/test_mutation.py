"""Mutation classes of actions, label words in many languages, and the DISPATCH_ONLY rule."""

# ruff: noqa: RUF001 - typographic apostrophes and non-Latin letters are the point of these tests

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.mutation import (
    MutationVerdict,
    assess_action,
    assess_app,
    assess_label,
    classify_action,
    classify_app,
    classify_global,
    dispatch_only_allowed,
    is_financial,
    matched_terms,
    most_mutating,
    mutation_rank,
)
from bridge.core.mutation import _Vocabulary as _Vocabulary  # built at import time
from bridge.wire.enums import ActionVerb, AppAction, GlobalAction, MutationClass, Role

RO, REV, SIDE, EXT, DESTR = (
    MutationClass.READ_ONLY,
    MutationClass.REVERSIBLE,
    MutationClass.SIDE_EFFECT,
    MutationClass.EXTERNAL_SIDE_EFFECT,
    MutationClass.DESTRUCTIVE,
)


def click(label: str | None, role: Role | None = Role.BUTTON) -> MutationVerdict:
    return assess_action(ActionVerb.CLICK, role, label, False)


# --------------------------------------------------------------------------- label words


@pytest.mark.parametrize(
    ("label", "cls", "financial"),
    [
        ("Delete account", DESTR, False),
        ("Sign in", SIDE, False),
        ("Remove", DESTR, False),
        ("Löschen", DESTR, False),
        ("削除", DESTR, False),
        ("Pay now", EXT, True),
        ("Send", EXT, False),
        # English
        ("Erase all content", DESTR, False),
        ("Factory reset", DESTR, False),
        ("Uninstall", DESTR, False),
        ("Discard draft", DESTR, False),
        ("Cancel subscription", DESTR, False),
        ("Close account", DESTR, False),
        ("Submit", EXT, False),
        ("Post", EXT, False),
        ("Share", EXT, False),
        ("Call", EXT, False),
        ("Book now", EXT, False),
        ("Buy", EXT, True),
        ("Checkout", EXT, True),
        ("Place order", EXT, True),
        ("Transfer", EXT, True),
        ("Subscribe", EXT, True),
        ("Send money", EXT, True),
        # German
        ("Konto löschen", DESTR, False),
        ("Zurücksetzen", DESTR, False),
        ("Absenden", EXT, False),
        ("Jetzt kaufen", EXT, True),
        ("Zur Kasse", EXT, True),
        # French
        ("Supprimer", DESTR, False),
        ("Annuler l’abonnement", DESTR, False),
        ("Envoyer", EXT, False),
        ("Acheter", EXT, True),
        ("S'abonner", EXT, True),
        # Spanish
        ("Eliminar", DESTR, False),
        ("Borrar todo", DESTR, False),
        ("Enviar", EXT, False),
        ("Comprar ahora", EXT, True),
        ("Pagar", EXT, True),
        # Portuguese
        ("Excluir conta", DESTR, False),
        ("Apagar", DESTR, False),
        ("Compartilhar", EXT, False),
        ("Finalizar compra", EXT, True),
        # Italian
        ("Elimina", DESTR, False),
        ("Cancella", DESTR, False),  # Italian "delete", unlike English "cancel"
        ("Invia", EXT, False),
        ("Acquista", EXT, True),
        # Russian, Dutch
        ("Удалить", DESTR, False),
        ("Verwijderen", DESTR, False),
        ("Купить", EXT, True),
        # Japanese
        ("削除する", DESTR, False),
        ("アカウントを削除", DESTR, False),
        ("初期化", DESTR, False),
        ("送信", EXT, False),
        ("購入する", EXT, True),
        ("注文を確定", EXT, True),
        # Chinese
        ("删除", DESTR, False),
        ("刪除帳號", DESTR, False),
        ("清除数据", DESTR, False),
        ("发送", EXT, False),
        ("立即支付", EXT, True),
        ("购买", EXT, True),
        # Korean
        ("삭제", DESTR, False),
        ("삭제하기", DESTR, False),
        ("보내기", EXT, False),
        ("결제하기", EXT, True),
        ("전화 걸기", EXT, False),
        # currency
        ("$9.99", EXT, True),
        ("€ 5,00", EXT, True),
        ("¥1,200", EXT, True),
        ("￥1,200", EXT, True),
        ("₩ 9,900", EXT, True),
        ("10 USD", EXT, True),
        # precedence: destructive wins, financial still flagged
        ("Delete and pay", DESTR, True),
    ],
)
def test_label_words(label: str, cls: MutationClass, financial: bool) -> None:
    verdict = click(label)
    assert verdict == MutationVerdict(cls, financial)
    assert classify_action(ActionVerb.CLICK, Role.BUTTON, label, False) is cls
    assert is_financial(label) is financial
    assert bool(matched_terms(label)) == (cls is not SIDE)


@pytest.mark.parametrize(
    "label",
    [
        "Deleted items",  # opening a folder
        "Undelete",
        "Cancel",
        "Sign in",
        "Orders",
        "Forgot password?",
        "Sender",
        "Payment methods",
        "Shared with me",
        "Recall",
        "Settings",
        "OK",
        "휴대전화",  # "mobile phone" (seen in a real dump), not "call"
        "清除",  # the clear button of a search field (seen in a real dump)
        "",
    ],
)
def test_no_false_positive_on_ordinary_clicks(label: str) -> None:
    assert click(label) == MutationVerdict(SIDE, False)
    assert matched_terms(label) == ()


def test_matched_terms_explain_the_class() -> None:
    assert matched_terms("Delete account") == ("delete", "delete account")
    assert matched_terms("Pay €5 now") == ("pay", "€")
    assert matched_terms(None) == ()
    assert assess_label(None) == MutationVerdict(SIDE, False)


# --------------------------------------------------------------------------- verbs and roles


@pytest.mark.parametrize(
    "verb",
    [ActionVerb.FOCUS, ActionVerb.COPY, ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD],
)
def test_read_only_verbs_ignore_the_label(verb: ActionVerb) -> None:
    assert assess_action(verb, Role.BUTTON, "Delete account", False) == MutationVerdict(RO, False)


@pytest.mark.parametrize("verb", [ActionVerb.SET_TEXT, ActionVerb.PASTE, ActionVerb.CLEAR_TEXT])
@pytest.mark.parametrize("value_present", [True, False])
def test_typing_is_reversible(verb: ActionVerb, value_present: bool) -> None:
    assert classify_action(verb, Role.INPUT, "Message", value_present) is REV
    assert classify_action(verb, Role.INPUT, "Card number ($)", value_present) is REV


@pytest.mark.parametrize("role", [Role.CHECKBOX, Role.SWITCH, Role.RADIO, Role.TAB])
def test_toggles_are_reversible_unless_the_label_alarms(role: Role) -> None:
    assert click("Dark mode", role) == MutationVerdict(REV, False)
    assert click("Auto-delete old messages", role).mutation_class is DESTR
    assert click("Pay with card", role) == MutationVerdict(EXT, True)


def test_select_expand_collapse() -> None:
    assert classify_action(ActionVerb.SELECT, Role.LIST_ITEM, "Inbox", False) is REV
    assert classify_action(ActionVerb.SELECT, Role.MENU, "Delete", False) is DESTR
    assert classify_action(ActionVerb.EXPAND, Role.LIST_ITEM, "Delete options", False) is REV
    assert classify_action(ActionVerb.COLLAPSE, None, None, False) is REV


def test_clicks_default_to_side_effect() -> None:
    assert classify_action(ActionVerb.CLICK, Role.BUTTON, None, False) is SIDE
    assert classify_action(ActionVerb.LONG_CLICK, Role.LIST_ITEM, "Photo", False) is SIDE
    assert classify_action(ActionVerb.LONG_CLICK, Role.LIST_ITEM, "Remove photo", False) is DESTR
    assert classify_action(ActionVerb.CLICK, None, "Send", False) is EXT


def test_input_clicks_do_not_read_the_label() -> None:
    assert click("Amount to pay", Role.INPUT) == MutationVerdict(REV, False)


def test_dismiss_does_not_read_the_label() -> None:
    verdict = assess_action(ActionVerb.DISMISS, Role.DIALOG, "Delete file?", False)
    assert verdict == MutationVerdict(SIDE, False)


def test_verdict_unpacks() -> None:
    cls, financial = assess_action(ActionVerb.CLICK, Role.BUTTON, "Buy", True)
    assert (cls, financial) == (EXT, True)


# --------------------------------------------------------------------------- global / app


@pytest.mark.parametrize("action", list(GlobalAction))
def test_global_actions_are_reversible(action: GlobalAction) -> None:
    assert classify_global(action) is REV


@pytest.mark.parametrize(
    ("action", "target", "cls", "financial"),
    [
        (AppAction.APP_OPEN, None, SIDE, False),
        (AppAction.APP_BRING_TO_FRONT, None, REV, False),
        (AppAction.APP_CLOSE_UI, None, REV, False),
        (AppAction.APP_DEEP_LINK, None, SIDE, False),
        (AppAction.APP_DEEP_LINK, "myapp://inbox/42", SIDE, False),
        (AppAction.APP_DEEP_LINK, "myapp://account/delete", DESTR, False),
        (AppAction.APP_DEEP_LINK, "https://shop.example/checkout?cart=1", EXT, True),
        (AppAction.APP_DEEP_LINK, "tel:+15551234", EXT, False),
        (AppAction.APP_DEEP_LINK, "mailto:a@b.c", EXT, False),
        (AppAction.APP_DEEP_LINK, "upi://x?pa=merchant@bank", EXT, True),
    ],
)
def test_app_actions(
    action: AppAction, target: str | None, cls: MutationClass, financial: bool
) -> None:
    assert assess_app(action, target) == MutationVerdict(cls, financial)
    assert classify_app(action, target) is cls


# --------------------------------------------------------------------------- DISPATCH_ONLY


@pytest.mark.parametrize(
    ("cls", "financial", "allowed"),
    [
        (RO, False, True),
        (REV, False, True),
        (SIDE, False, True),
        (EXT, False, False),
        (DESTR, False, False),
        (SIDE, True, False),
        (RO, True, False),
    ],
)
def test_dispatch_only_allowed(cls: MutationClass, financial: bool, allowed: bool) -> None:
    assert dispatch_only_allowed(cls, financial) is allowed


def test_rank_orders_the_classes() -> None:
    assert [mutation_rank(c) for c in (RO, REV, SIDE, EXT, DESTR)] == [0, 1, 2, 3, 4]
    assert most_mutating(SIDE, DESTR, REV) is DESTR
    assert most_mutating(RO) is RO


# --------------------------------------------------------------------------- invariants

_verbs = st.sampled_from(list(ActionVerb))
_roles = st.none() | st.sampled_from(list(Role))
_labels = st.none() | st.text(max_size=30) | st.sampled_from(["Delete", "Pay", "Send", "OK"])


@given(_verbs, _roles, _labels, st.booleans())
def test_financial_implies_external_and_forbids_dispatch_only(
    verb: ActionVerb, role: Role | None, label: str | None, value_present: bool
) -> None:
    cls, financial = assess_action(verb, role, label, value_present)
    if financial:
        assert mutation_rank(cls) >= mutation_rank(EXT)
        assert not dispatch_only_allowed(cls, financial)


@given(st.text(max_size=30), st.sampled_from(["delete", "Remove", "削除", "Löschen"]))
def test_a_destructive_word_always_wins(prefix: str, word: str) -> None:
    assert click(f"{prefix} {word}").mutation_class is DESTR


@given(_labels)
def test_clicks_never_rank_below_side_effect(label: str | None) -> None:
    assert mutation_rank(click(label).mutation_class) >= mutation_rank(SIDE)


def test_a_vocabulary_splits_phrases_from_cjk_substrings_and_finds_both() -> None:
    """The vocabularies are built at import time, where a mutation run never rebuilds them;
    this builds one here, so its construction is checked too."""
    vocab = _Vocabulary.of(["Delete  Account", "Remove", "削除", "Pay now"])
    assert vocab.phrases == frozenset({("delete", "account"), ("remove",), ("pay", "now")})
    assert vocab.longest == 2
    assert vocab.substrings == ("削除",)
    text = "please delete account or remove it 削除"
    words = tuple(text.split())
    assert vocab.find(text, words) == ["削除", "delete account", "remove"]
    assert vocab.find("pay", ("pay",)) == []  # a phrase is matched whole
    empty = _Vocabulary.of([])
    assert (empty.phrases, empty.longest, empty.substrings) == (frozenset(), 0, ())
    assert empty.find(text, words) == []


def test_a_deep_links_scheme_is_what_comes_before_its_first_colon_only() -> None:
    link = AppAction.APP_DEEP_LINK
    assert assess_app(link, "tel") == MutationVerdict(MutationClass.SIDE_EFFECT, False)
    assert assess_app(link, "tel:1:2").mutation_class is MutationClass.EXTERNAL_SIDE_EFFECT
    assert assess_app(link, "TEL:123").mutation_class is MutationClass.EXTERNAL_SIDE_EFFECT
    # the words of the link still count: a destructive word outranks the scheme's class
    assert assess_app(link, "tel:delete-account").mutation_class is MutationClass.DESTRUCTIVE
    assert assess_app(link, "mailto:pay-now") == MutationVerdict(
        MutationClass.EXTERNAL_SIDE_EFFECT, True
    )


def test_verdicts_say_financial_false_not_just_falsy() -> None:
    for verb in (ActionVerb.SET_TEXT, ActionVerb.EXPAND, ActionVerb.COLLAPSE):
        verdict = assess_action(verb, Role.BUTTON, "Pay now", False)
        assert verdict.mutation_class is MutationClass.REVERSIBLE
        assert verdict.financial is False
    assert assess_action(ActionVerb.CLICK, Role.INPUT, "Pay now", True).financial is False
    assert classify_action(ActionVerb.CLICK, Role.INPUT, "Delete", False) is (
        MutationClass.REVERSIBLE
    )  # a tap into a field only focuses it, whatever it is called
