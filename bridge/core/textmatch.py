"""Evaluating a ``TextMatch`` against one candidate string, and the text normalization behind it.

Modes and the confidence a match reports (the mode reported is the one that actually held):

======================  ==========================================================  ==========
requested mode          matches when                                                confidence
======================  ==========================================================  ==========
EXACT                   ``candidate == value``                                      1.0
NORMALIZED_EXACT        exact (reported EXACT, 1.0), else equal after               0.95
                        ``normalize_text``
CONTAINS                equal as above, else the normalized value is a non-empty    0.5 .. <0.9
                        substring of the normalized candidate; scaled by coverage
                        ``0.5 + 0.4 * len(value) / len(candidate)``
REGEX                   RE2 search over the raw candidate (``bridge.core.safe_regex``) 0.9
SEMANTIC_SYNONYM        equal as above, else both fall in one group of the synonym  0.8
                        table below (compared normalized, leading/trailing
                        punctuation and symbols ignored: "OK!" ~ "okay")
======================  ==========================================================  ==========

Invariants:
- ``normalize_text`` is idempotent: NFKC, case folding, format characters (zero-width space and
  joiners, bidi controls, soft hyphen, BOM: Unicode category Cf) removed, every run of
  whitespace (NBSP and ideographic space included) collapsed to one space, ends stripped.
- Matching never raises for a candidate: ``None`` never matches; REGEX runs on RE2 (linear
  time) and reads at most ``REGEX_CANDIDATE_CAP`` characters of a candidate.
- A REGEX pattern is compiled once (``compile_regex``, cached by pattern) before any candidate
  is read. A pattern RE2 refuses yields ``RegexRejected(reason)``, never a match attempt.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Final

from bridge.core.safe_regex import RegexRejected, UserRegex, compile_regex
from bridge.wire.enums import MatchMode
from bridge.wire.query import TextMatch

CONFIDENCE_EXACT: Final = 1.0
CONFIDENCE_NORMALIZED: Final = 0.95
CONFIDENCE_REGEX: Final = 0.9
CONFIDENCE_SYNONYM: Final = 0.8
CONFIDENCE_CONTAINS_MIN: Final = 0.5
CONFIDENCE_CONTAINS_SPAN: Final = 0.4

# --------------------------------------------------------------------------- normalization


def _drop_format_chars(s: str) -> str:
    return "".join(ch for ch in s if ch < "\x80" or unicodedata.category(ch) != "Cf")


def _normalize_once(s: str) -> str:
    s = _drop_format_chars(s)
    s = unicodedata.normalize("NFKC", s)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = _drop_format_chars(s)
    return " ".join(s.split())


@functools.lru_cache(maxsize=8192)
def normalize_text(s: str) -> str:
    """Comparable form of a UI string (idempotent; see the module docstring). Cached: the
    same node texts are compared again by every query on every snapshot."""
    if s.isascii():  # no format characters, NFKC is the identity, casefold is lower
        return " ".join(s.lower().split())
    out = _normalize_once(s)
    # NFKC and case folding can expose new foldable sequences in rare scripts; iterate to the
    # fixed point (one extra pass in practice) so callers may rely on idempotence.
    for _ in range(4):
        again = _normalize_once(out)
        if again == out:
            break
        out = again
    return out


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class TextMatched:
    mode: MatchMode
    confidence: float


# --------------------------------------------------------------------------- synonyms

# Each group lists interchangeable button/command words. A word may sit in several groups
# (membership is not transitive: "dismiss" ~ "cancel" and "dismiss" ~ "close", yet "cancel" is
# not "close"). Entries are normalized at import.
_SYNONYM_SOURCE: Final[tuple[tuple[str, ...], ...]] = (
    # sign in
    ("sign in", "log in", "login", "log on", "logon", "sign on", "signin", "anmelden",
     "einloggen", "se connecter", "connexion", "iniciar sesión", "acceder", "entrar",
     "fazer login", "accedi", "ログイン", "サインイン", "登录", "登錄", "登入", "로그인"),
    # sign out
    ("sign out", "log out", "logout", "log off", "logoff", "sign off", "signout", "abmelden",
     "ausloggen", "se déconnecter", "déconnexion", "cerrar sesión", "sair", "esci",
     "ログアウト", "サインアウト", "退出登录", "登出", "로그아웃"),
    # sign up
    ("sign up", "register", "create account", "registrieren", "s'inscrire", "inscription",
     "registrarse", "cadastrar", "registrati", "新規登録", "注册", "註冊", "회원가입"),
    # ok / accept
    ("ok", "okay", "accept", "got it", "akzeptieren", "accepter", "aceptar", "aceitar",
     "accetta", "了解", "好的", "확인"),
    # cancel
    ("cancel", "dismiss", "abbrechen", "annuler", "cancelar", "annulla", "キャンセル", "取消",
     "취소"),
    # close
    ("close", "dismiss", "schließen", "fermer", "cerrar", "fechar", "chiudi", "閉じる",
     "关闭", "關閉", "닫기"),
    # continue / next
    ("continue", "next", "proceed", "weiter", "fortfahren", "continuer", "suivant",
     "continuar", "siguiente", "próximo", "avanti", "continua", "次へ", "続ける", "继续",
     "繼續", "下一步", "다음", "계속"),
    # search
    ("search", "find", "suchen", "rechercher", "buscar", "pesquisar", "cerca", "検索", "搜索",
     "搜尋", "검색"),
    # settings
    ("settings", "preferences", "options", "einstellungen", "paramètres", "réglages",
     "configuración", "ajustes", "configurações", "impostazioni", "設定", "设置", "設置",
     "설정"),
    # delete
    ("delete", "remove", "löschen", "entfernen", "supprimer", "eliminar", "borrar", "excluir",
     "elimina", "削除", "删除", "刪除", "삭제"),
    # submit / send
    ("submit", "send", "senden", "absenden", "envoyer", "soumettre", "enviar", "invia",
     "送信", "发送", "發送", "提交", "보내기", "제출"),
    # back
    ("back", "return", "go back", "zurück", "retour", "atrás", "volver", "voltar", "indietro",
     "戻る", "返回", "뒤로"),
    # yes / confirm
    ("yes", "confirm", "ja", "bestätigen", "oui", "confirmer", "sí", "sim", "sì", "conferma",
     "はい", "確認", "是", "确认", "예", "네"),
    # no / decline
    ("no", "decline", "nein", "ablehnen", "non", "refuser", "rechazar", "não", "いいえ", "否",
     "拒绝", "拒絕", "아니요"),
    # save
    ("save", "speichern", "enregistrer", "guardar", "salvar", "salva", "保存", "저장"),
    # done
    ("done", "finish", "fertig", "terminé", "listo", "concluído", "fatto", "完了", "完成",
     "완료"),
)  # fmt: skip


def _synonym_key(s: str) -> str:
    """Normalized form without leading/trailing punctuation or symbols ("OK!", "Next >")."""
    text = normalize_text(s)
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] in "PSZ":
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] in "PSZ":
        end -= 1
    return text[start:end]


def _build_synonym_index() -> dict[str, frozenset[int]]:
    index: dict[str, set[int]] = {}
    for gid, group in enumerate(_SYNONYM_SOURCE):
        for word in group:
            index.setdefault(_synonym_key(word), set()).add(gid)
    return {k: frozenset(v) for k, v in index.items()}


_SYNONYM_INDEX: Final = _build_synonym_index()


def synonym_groups(s: str) -> frozenset[int]:
    """Ids of the synonym groups ``s`` belongs to (empty when none)."""
    return _SYNONYM_INDEX.get(_synonym_key(s), frozenset())


# --------------------------------------------------------------------------- matching


@dataclass(frozen=True, slots=True)
class TextMatcher:
    """A ``TextMatch`` prepared for many candidates (regex checked, value normalized once)."""

    spec: TextMatch
    normalized_value: str
    regex: UserRegex | None
    synonyms: frozenset[int]
    synonym_key: str

    def match(self, candidate: str | None) -> TextMatched | None:
        if candidate is None:
            return None
        value, mode = self.spec.value, self.spec.match
        if mode is MatchMode.REGEX:
            if self.regex is None:  # only compile_text_match builds matchers; never happens
                return None
            if not self.regex.search(candidate):
                return None
            return TextMatched(MatchMode.REGEX, CONFIDENCE_REGEX)
        if candidate == value:
            return TextMatched(MatchMode.EXACT, CONFIDENCE_EXACT)
        if mode is MatchMode.EXACT:
            return None
        norm = normalize_text(candidate)
        if norm == self.normalized_value:
            return TextMatched(MatchMode.NORMALIZED_EXACT, CONFIDENCE_NORMALIZED)
        if mode is MatchMode.CONTAINS:
            needle = self.normalized_value
            if needle and needle in norm:
                coverage = len(needle) / len(norm)
                confidence = CONFIDENCE_CONTAINS_MIN + CONFIDENCE_CONTAINS_SPAN * coverage
                return TextMatched(MatchMode.CONTAINS, confidence)
            return None
        if mode is MatchMode.SEMANTIC_SYNONYM and self.synonym_key:
            key = _synonym_key(candidate)
            if key == self.synonym_key or self.synonyms & _SYNONYM_INDEX.get(key, frozenset()):
                return TextMatched(MatchMode.SEMANTIC_SYNONYM, CONFIDENCE_SYNONYM)
        return None


def compile_text_match(spec: TextMatch) -> TextMatcher | RegexRejected:
    """Prepare ``spec`` once per query; a REGEX spec is compiled here (``compile_regex``)."""
    regex: UserRegex | None = None
    if spec.match is MatchMode.REGEX:
        checked = compile_regex(spec.value)
        if isinstance(checked, RegexRejected):
            return checked
        regex = checked
    is_synonym = spec.match is MatchMode.SEMANTIC_SYNONYM
    return TextMatcher(
        spec=spec,
        normalized_value=normalize_text(spec.value),
        regex=regex,
        synonyms=synonym_groups(spec.value) if is_synonym else frozenset(),
        synonym_key=_synonym_key(spec.value) if is_synonym else "",
    )


def match_text(spec: TextMatch, candidate: str | None) -> TextMatched | RegexRejected | None:
    """One-shot form of ``compile_text_match(spec).match(candidate)``."""
    matcher = compile_text_match(spec)
    if isinstance(matcher, RegexRejected):
        return matcher
    return matcher.match(candidate)
