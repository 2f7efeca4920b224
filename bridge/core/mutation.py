"""How much an action can change the world: its ``MutationClass`` and whether it is financial.

Classes, least to most mutating: READ_ONLY < REVERSIBLE < SIDE_EFFECT < EXTERNAL_SIDE_EFFECT <
DESTRUCTIVE. A verdict is the verb's base class, raised (never lowered) by the words of the
target's label:

- READ_ONLY: FOCUS, COPY, SCROLL_FORWARD/BACKWARD. Labels are not read: these verbs
  activate nothing.
- REVERSIBLE: SET_TEXT, PASTE, CLEAR_TEXT (typing can be typed back); EXPAND, COLLAPSE
  (labels not read); SELECT; a click on a toggle-like role (CHECKBOX, SWITCH, RADIO, TAB) or
  on an INPUT (labels not read for INPUT: they describe the content, not an action); every
  GlobalAction (BACK, HOME, RECENTS, NOTIFICATION_SHADE); APP_BRING_TO_FRONT, APP_CLOSE_UI.
- SIDE_EFFECT: any other CLICK / LONG_CLICK; DISMISS (labels not read: dismissing a "Delete
  file?" dialog cancels the deletion); APP_OPEN; APP_DEEP_LINK without alarming words.
- EXTERNAL_SIDE_EFFECT: a label with a word that reaches outside the device (send, submit,
  post, share, call, book, ...), or any financial word.
- DESTRUCTIVE: a label with a word that loses data (delete, remove, erase, wipe, reset,
  uninstall, format, discard, close account, cancel subscription, ...).

``financial`` is set by a payment word (pay, buy, purchase, checkout, transfer, order,
subscribe, ...), a currency symbol (Unicode category Sc: $ € £ ¥ ₹ ₩ ...) or an ISO currency
code; it implies at least EXTERNAL_SIDE_EFFECT.

Word matching: the label is normalized (``normalize_text``). Terms in Latin, Cyrillic or Greek
script match whole words or whole word sequences ("Deleted items" is not "delete", "Undelete" is
not "delete", "Cancel" alone is not "cancel subscription"). Terms in Chinese, Japanese or
Korean script match as substrings (those scripts do not separate words; Korean particles attach
to the word), which errs towards the higher class ("削除済み" counts as 削除). Errors in that
direction only cost a verification; the other direction would allow DISPATCH_ONLY on a
destructive action, which ``dispatch_only_allowed`` exists to prevent.

Languages: English, German, French, Spanish, Portuguese, Italian, Dutch, Russian, Japanese,
Chinese (simplified and traditional), Korean.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, NamedTuple

from bridge.core.textmatch import normalize_text
from bridge.wire.enums import ActionVerb, AppAction, GlobalAction, MutationClass, Role

_ORDER: Final = {c: i for i, c in enumerate(MutationClass)}


def mutation_rank(cls: MutationClass) -> int:
    """0 for READ_ONLY up to 4 for DESTRUCTIVE."""
    return _ORDER[cls]


def most_mutating(*classes: MutationClass) -> MutationClass:
    return max(classes, key=mutation_rank)


class MutationVerdict(NamedTuple):
    """Class and financial flag (also unpacks: ``cls, financial = assess_action(...)``)."""

    mutation_class: MutationClass
    financial: bool


# --------------------------------------------------------------------------- vocabularies

_DESTRUCTIVE: Final[tuple[str, ...]] = (
    # en
    "delete", "remove", "erase", "wipe", "reset", "uninstall", "format", "discard", "destroy",
    "purge", "trash", "move to trash", "empty trash", "clear all", "clear data",
    "clear history", "clear storage", "close account", "delete account", "deactivate",
    "cancel subscription", "cancel order", "cancel booking", "cancel reservation",
    "factory reset", "revoke", "terminate", "overwrite", "permanently", "unpair", "forget",
    # de
    "löschen", "entfernen", "zurücksetzen", "deinstallieren", "verwerfen", "leeren",
    "kündigen", "formatieren", "vernichten", "widerrufen", "deaktivieren",
    # fr
    "supprimer", "effacer", "retirer", "réinitialiser", "désinstaller", "vider", "résilier",
    "formater", "détruire", "révoquer", "désactiver", "annuler l'abonnement",
    # es
    "eliminar", "borrar", "quitar", "suprimir", "restablecer", "desinstalar", "descartar",
    "vaciar", "cancelar suscripción", "dar de baja", "formatear", "revocar", "desactivar",
    # pt
    "excluir", "apagar", "remover", "redefinir", "esvaziar", "cancelar assinatura",
    "formatar", "revogar", "desativar",
    # it
    "elimina", "eliminare", "cancella", "cancellare", "rimuovi", "rimuovere", "reimposta",
    "ripristina", "disinstalla", "scarta", "svuota", "annulla abbonamento", "formatta",
    "revoca", "disattiva",
    # nl
    "verwijderen", "wissen",
    # ru
    "удалить", "стереть", "очистить", "сбросить",
    # ja
    "削除", "消去", "初期化", "リセット", "アンインストール", "退会", "解約", "破棄",
    # zh
    "删除", "刪除", "清除数据", "清除資料", "清除记录", "清除全部", "全部清除", "清空",
    "重置", "卸载", "解除安装", "注销账号", "註銷帳號",
    "注销账户", "格式化", "移除", "抹掉", "抹除", "销毁", "取消订阅", "取消訂閱",
    # ko
    "삭제", "제거", "초기화", "지우기", "탈퇴", "해지", "구독 취소",
)  # fmt: skip

_EXTERNAL: Final[tuple[str, ...]] = (
    # en
    "send", "submit", "post", "publish", "share", "call", "dial", "reply", "tweet", "upload",
    "invite", "book", "reserve", "report", "unsubscribe", "broadcast", "go live",
    # de
    "senden", "absenden", "abschicken", "teilen", "veröffentlichen", "posten", "anrufen",
    "buchen", "einreichen", "hochladen", "einladen", "antworten", "reservieren",
    # fr
    "envoyer", "soumettre", "publier", "partager", "appeler", "réserver", "téléverser",
    "inviter", "répondre",
    # es
    "enviar", "publicar", "compartir", "llamar", "reservar", "subir", "invitar", "responder",
    # pt
    "compartilhar", "partilhar", "ligar", "convidar",
    # it
    "invia", "inviare", "pubblica", "condividi", "chiama", "prenota", "carica", "invita",
    "rispondi",
    # nl
    "verzenden", "versturen", "delen",
    # ru
    "отправить", "опубликовать", "поделиться", "позвонить",
    # ja
    "送信", "投稿", "共有", "シェア", "発信", "予約", "公開", "送る", "返信", "招待",
    "アップロード",
    # zh
    "发送", "發送", "提交", "发布", "發佈", "發布", "发表", "分享", "拨打", "撥打", "预订",
    "預訂", "预约", "預約", "回复", "上传", "邀请",
    # ko
    "보내기", "전송", "제출", "게시", "공유", "전화 걸기", "전화하기", "예약", "답장",
    "업로드", "초대",
)  # fmt: skip

_FINANCIAL: Final[tuple[str, ...]] = (
    # en
    "pay", "buy", "purchase", "checkout", "check out", "order", "place order", "transfer",
    "subscribe", "donate", "tip", "top up", "withdraw", "deposit", "add funds", "add money",
    "send money", "rent", "bid", "invest", "trade", "sell",
    # de
    "bezahlen", "zahlen", "kaufen", "bestellen", "abonnieren", "überweisen", "spenden",
    "zur kasse", "aufladen", "einzahlen", "auszahlen", "verkaufen",
    # fr
    "payer", "acheter", "commander", "abonner", "virement", "faire un don", "recharger",
    "vendre", "souscrire",
    # es
    "pagar", "comprar", "realizar pedido", "suscribirse", "suscribir", "transferir", "donar",
    "recargar", "vender",
    # pt
    "finalizar compra", "assinar", "doar", "recarregar",
    # it
    "paga", "pagare", "acquista", "acquistare", "compra", "ordina", "abbonati",
    "trasferisci", "dona", "ricarica", "vendi",
    # nl
    "betalen", "kopen", "bestellen",
    # ru
    "оплатить", "купить", "заказать", "перевести",
    # ja
    "購入", "支払", "決済", "注文", "買う", "課金", "送金", "振込", "振り込み", "購読",
    "チャージ", "寄付",
    # zh
    "支付", "付款", "购买", "購買", "下单", "下單", "订购", "訂購", "转账", "轉帳", "轉賬",
    "充值", "订阅", "訂閱", "捐款", "结账", "結帳",
    # ko
    "결제", "구매", "주문", "송금", "이체", "구독", "충전", "기부", "지불",
    # ISO currency codes
    "usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "krw", "chf", "brl", "rub", "aud",
    "cad", "btc",
)  # fmt: skip

_CJK_RANGES: Final = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_CJK_CHAR: Final = re.compile(f"[{_CJK_RANGES}]")
_WORD: Final = re.compile(f"[^\\W_{_CJK_RANGES}]+")


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text))


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    phrases: frozenset[tuple[str, ...]]
    longest: int
    substrings: tuple[str, ...]

    @classmethod
    def of(cls, terms: Iterable[str]) -> _Vocabulary:
        phrases: set[tuple[str, ...]] = set()
        substrings: list[str] = []
        for term in terms:
            norm = normalize_text(term)
            if _CJK_CHAR.search(norm):
                substrings.append(norm)
            else:
                phrases.add(_words(norm))
        return cls(frozenset(phrases), max(map(len, phrases), default=0), tuple(substrings))

    def find(self, text: str, words: tuple[str, ...]) -> list[str]:
        found = [s for s in self.substrings if s in text]
        found.extend(
            " ".join(words[i : i + n])
            for i in range(len(words))
            for n in range(1, min(self.longest, len(words) - i) + 1)
            if words[i : i + n] in self.phrases
        )
        return found


_DESTRUCTIVE_VOCAB: Final = _Vocabulary.of(_DESTRUCTIVE)
_EXTERNAL_VOCAB: Final = _Vocabulary.of(_EXTERNAL)
_FINANCIAL_VOCAB: Final = _Vocabulary.of(_FINANCIAL)


def _currency_symbols(text: str) -> list[str]:
    return [ch for ch in dict.fromkeys(text) if unicodedata.category(ch) == "Sc"]


@dataclass(frozen=True, slots=True)
class _LabelWords:
    destructive: tuple[str, ...]
    financial: tuple[str, ...]
    external: tuple[str, ...]

    @property
    def verdict(self) -> MutationVerdict:
        if self.destructive:
            cls = MutationClass.DESTRUCTIVE
        elif self.financial or self.external:
            cls = MutationClass.EXTERNAL_SIDE_EFFECT
        else:
            cls = MutationClass.SIDE_EFFECT
        return MutationVerdict(cls, financial=bool(self.financial))


def _label_words(label: str | None) -> _LabelWords:
    if not label:
        return _LabelWords((), (), ())
    text = normalize_text(label)
    words = _words(text)
    return _LabelWords(
        destructive=tuple(_DESTRUCTIVE_VOCAB.find(text, words)),
        financial=tuple(_FINANCIAL_VOCAB.find(text, words) + _currency_symbols(text)),
        external=tuple(_EXTERNAL_VOCAB.find(text, words)),
    )


def assess_label(label: str | None) -> MutationVerdict:
    """What the words of ``label`` alone imply (SIDE_EFFECT when nothing alarming)."""
    return _label_words(label).verdict


def matched_terms(label: str | None) -> tuple[str, ...]:
    """The normalized terms of ``label`` that raise its class (destructive, financial, then
    external), for explanations: "DESTRUCTIVE because of 'delete account'"."""
    w = _label_words(label)
    return tuple(dict.fromkeys(w.destructive + w.financial + w.external))


def is_financial(label: str | None) -> bool:
    return assess_label(label).financial


# --------------------------------------------------------------------------- actions

_READ_ONLY_VERBS: Final = frozenset(
    {ActionVerb.FOCUS, ActionVerb.COPY, ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD}
)
_TEXT_VERBS: Final = frozenset({ActionVerb.SET_TEXT, ActionVerb.PASTE, ActionVerb.CLEAR_TEXT})
_TOGGLE_ROLES: Final = frozenset({Role.CHECKBOX, Role.SWITCH, Role.RADIO, Role.TAB})


def _raised(base: MutationClass, label: str | None) -> MutationVerdict:
    words = assess_label(label)
    if words.mutation_class is MutationClass.SIDE_EFFECT:  # nothing alarming in the label
        return MutationVerdict(base, financial=False)
    return MutationVerdict(most_mutating(base, words.mutation_class), words.financial)


def assess_action(
    verb: ActionVerb, role: Role | None, label: str | None, value_present: bool
) -> MutationVerdict:
    """Class and financial flag of ``verb`` on a node (rules in the module docstring).

    ``label`` is the target's best human name (label or text). ``value_present`` (the request
    carries a value) does not change the class today: typing is REVERSIBLE whether the text is
    given in clear or as a secret reference; it is part of the signature so a future rule
    (e.g. a value that looks like a card number) needs no caller change."""
    del value_present
    if verb in _READ_ONLY_VERBS:
        return MutationVerdict(MutationClass.READ_ONLY, financial=False)
    if verb in _TEXT_VERBS:
        return MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if verb in (ActionVerb.EXPAND, ActionVerb.COLLAPSE):
        return MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if verb is ActionVerb.DISMISS:
        return MutationVerdict(MutationClass.SIDE_EFFECT, financial=False)
    if role is Role.INPUT:
        return MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if verb is ActionVerb.SELECT or role in _TOGGLE_ROLES:
        return _raised(MutationClass.REVERSIBLE, label)
    return _raised(MutationClass.SIDE_EFFECT, label)  # CLICK, LONG_CLICK


def classify_action(
    verb: ActionVerb, role: Role | None, label: str | None, value_present: bool
) -> MutationClass:
    """The class alone (``assess_action`` also gives the financial flag)."""
    return assess_action(verb, role, label, value_present).mutation_class


def classify_global(action: GlobalAction) -> MutationClass:
    """Every global action only navigates: BACK, HOME, RECENTS, NOTIFICATION_SHADE."""
    return MutationClass.REVERSIBLE


_ALARMING_SCHEMES: Final = frozenset({"tel", "sms", "smsto", "mailto", "mms", "facetime"})
_FINANCIAL_SCHEMES: Final = frozenset({"upi", "paypal", "venmo", "cashapp", "bitcoin"})


def assess_app(action: AppAction, target: str | None = None) -> MutationVerdict:
    """Class of an app-level action; for APP_DEEP_LINK, ``target`` (the URL) is read like a
    label, and call/message/pay schemes raise it."""
    if action in (AppAction.APP_BRING_TO_FRONT, AppAction.APP_CLOSE_UI):
        return MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if action is AppAction.APP_OPEN or not target:
        return MutationVerdict(MutationClass.SIDE_EFFECT, financial=False)
    scheme = target.split(":", 1)[0].lower() if ":" in target else ""
    words = _raised(MutationClass.SIDE_EFFECT, " ".join(re.split(r"[^\w]+", target)))
    if scheme in _FINANCIAL_SCHEMES or scheme in _ALARMING_SCHEMES:
        return MutationVerdict(
            most_mutating(words.mutation_class, MutationClass.EXTERNAL_SIDE_EFFECT),
            financial=words.financial or scheme in _FINANCIAL_SCHEMES,
        )
    return words


def classify_app(action: AppAction, target: str | None = None) -> MutationClass:
    """The class alone (``assess_app`` also says whether a deep link is financial)."""
    return assess_app(action, target).mutation_class


def dispatch_only_allowed(cls: MutationClass, financial: bool) -> bool:
    """DISPATCH_ONLY verification is forbidden for destructive, external or financial actions."""
    return not financial and cls not in (
        MutationClass.DESTRUCTIVE,
        MutationClass.EXTERNAL_SIDE_EFFECT,
    )
