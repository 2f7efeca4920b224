"""Issue 42.1: a typed secret is masked in every form a log line can carry it in.

The property: whatever the secret (every printable ASCII character, spaces, non-ASCII
letters, symbols and an emoji), however a device's log encodes it (raw, a Python/Java
``repr``, JSON, JSON inside JSON, shell quoting, ``printf %q``, percent-encoding, HTML
entities, hex, base64 of a larger blob at any byte offset), and wherever the line is cut, no
decoder a reader could try on what the hub sends recovers the secret.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import json
import re
import shlex
from collections.abc import Callable
from urllib.parse import quote, quote_plus, unquote, unquote_plus

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.secret_forms import EDGE_MIN, Scrubber, forms
from bridge.core.secret_mask import MASK, SecretMasker

ALPHABET = st.characters(
    codec="utf-8",
    categories=("Lu", "Ll", "Nd", "Po", "Ps", "Pe", "Pd", "Sm", "Sc", "Sk", "So", "Zs"),
    exclude_characters="•",
) | st.sampled_from(list("\\'\"$`!&|;<>()[]{}*?#~%+=/:@ \t"))
SECRETS = st.text(ALPHABET, min_size=6, max_size=24).filter(lambda s: s.strip() == s)


def _b64_blob(secret: str, offset: int, urlsafe: bool) -> str:
    blob = b"k" * offset + secret.encode() + b"tail"
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(blob).decode()


ENCODERS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "repr": repr,
    "ascii": ascii,
    "json": json.dumps,
    "json-utf8": lambda s: json.dumps(s, ensure_ascii=False),
    "json-in-json": lambda s: json.dumps(json.dumps(s)),
    "shell": shlex.quote,
    "shell-double": lambda s: '"' + re.sub(r'(["\\$`])', r"\\\1", s) + '"',
    "quote": lambda s: quote(s, safe=""),
    "quote-lower": lambda s: re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), quote(s)),
    "quote-plus": quote_plus,
    "html": html.escape,
    "hex": lambda s: s.encode().hex(),
    "b64-0": lambda s: _b64_blob(s, 0, False),
    "b64-1": lambda s: _b64_blob(s, 1, False),
    "b64-2": lambda s: _b64_blob(s, 2, True),
}


def _decodings(text: str) -> list[str]:
    """What a reader could get back from ``text`` with the usual decoders."""
    out = [text, unquote(text), unquote_plus(text), html.unescape(text)]
    try:
        out.append(codecs.decode(text.encode("latin-1", "backslashreplace"), "unicode_escape"))
    except (UnicodeDecodeError, ValueError):
        pass
    for quoted in re.findall(r'"(?:[^"\\]|\\.)*"', text):
        try:
            once = json.loads(quoted)
            out.append(once)
            if isinstance(once, str) and once.startswith('"'):
                out.append(json.loads(once))
        except ValueError:
            pass
    try:
        out.append(" ".join(shlex.split(text)))
    except ValueError:
        pass
    for run in re.findall(r"[A-Za-z0-9+/_=-]{8,}", text):
        for shift in range(4):
            chunk = run[shift:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    out.append(decode(chunk).decode("utf-8", "replace"))
                except (binascii.Error, ValueError):
                    pass
    for run in re.findall(r"[0-9a-fA-F]{12,}", text):
        for shift in range(2):
            chunk = run[shift:]
            chunk = chunk[: len(chunk) - len(chunk) % 2]
            out.append(bytes.fromhex(chunk).decode("utf-8", "replace"))
    return out


@settings(max_examples=400, deadline=None)
@given(
    secret=SECRETS,
    encoder=st.sampled_from(sorted(ENCODERS)),
    cut=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)),
)
def test_no_decoder_recovers_a_typed_secret_from_masked_lines(
    secret: str, encoder: str, cut: float | None
) -> None:
    masker = SecretMasker()
    masker.typed(secret)
    line = f"I/InputConnection( 812): commitText {ENCODERS[encoder](secret)} at=3"
    if cut is None:
        lines = [line]
    else:
        at = int(len(line) * cut)
        lines = [line[:at], line[at:]]
    shown = [masker.mask_text(lines[0])]
    if len(lines) == 2:
        shown.append(masker.mask_text_after(lines[0], lines[1]))
    for joined in ("".join(shown), "\n".join(shown), *shown):
        for decoded in _decodings(joined):
            assert secret not in decoded, (encoder, lines, shown)


def test_every_listed_encoding_is_a_form() -> None:
    secret = "Pa\\ss'w0rd\"X é$`"
    listed = forms(secret)
    for name in ("raw", "json", "json-utf8", "quote", "quote-plus", "html", "hex"):
        assert ENCODERS[name](secret).strip('"') in listed, name
    assert repr(secret)[1:-1] in listed
    assert shlex.quote(secret)[1:-1] in listed


def test_the_issue_example_is_masked_as_the_simulated_device_logs_it() -> None:
    masker = SecretMasker()
    secret = "Pa\\ss'w0rd\"X"
    masker.typed(secret)
    line = f"input: commitText {secret!r}"
    shown = masker.mask_text(line)
    assert shown == f"input: commitText '{MASK}'", shown


def test_ordinary_text_is_left_alone_and_returned_as_the_same_object() -> None:
    masker = SecretMasker()
    masker.typed("hunter2-Horse")
    line = "ActivityManager: Start proc 4242:com.example/u0a88 for activity"
    assert masker.mask_text(line) is line


def test_a_cut_line_masks_both_halves_from_edge_min_characters() -> None:
    scrubber = Scrubber(["Tr0ub4dor&3"], MASK)
    assert scrubber.scrub("token=Tr0ub") == f"token={MASK}"
    assert scrubber.scrub("4dor&3 rest") == f"{MASK} rest"
    short_head = "token=" + "Tr0ub4dor&3"[: EDGE_MIN - 1]
    assert scrubber.scrub(short_head) == short_head
    # ... but the rest of that cut, however short, is masked when it opens the next line
    assert scrubber.scrub_after(short_head, "b4dor&3 rest") == f"{MASK} rest"
    assert scrubber.scrub_after("unrelated", "b4d rest") == "b4d rest"


def test_a_new_secret_rebuilds_the_scrubber() -> None:
    masker = SecretMasker()
    masker.typed("first-secret")
    assert masker.mask_text("x first-secret") == f"x {MASK}"
    masker.typed("second-secret")
    assert masker.mask_text("x c2Vjb25kLXNlY3JldA== y") == f"x {MASK}A== y"


def test_the_scrubber_masks_secrets_from_min_form_characters_and_the_longest_form_first() -> None:
    from bridge.core.secret_forms import MIN_FORM, Scrubber

    assert not Scrubber(["ab"], "*")  # shorter than MIN_FORM: no forms at all
    short = "x" * MIN_FORM
    assert Scrubber([short], "*") and Scrubber([short], "*").scrub(f"a {short} b") == "a * b"
    # two secrets, one inside the other: the longer is masked whole, not around the shorter
    both = Scrubber(["pass", "password1"], "*")
    assert both.scrub("is password1 ok") == "is * ok"
    assert both.scrub("is pass ok") == "is * ok"


def test_scrub_after_masks_the_rest_of_a_secret_cut_at_the_line_break() -> None:
    from bridge.core.secret_forms import Scrubber

    scrubber = Scrubber(["Tr0ub4dor&3"], "*")
    # the first line ended with "Tr0ub4d" (masked there already): the second starts "or&3"
    assert scrubber.scrub_after("token Tr0ub4d", "or&3 was sent") == "* was sent"
    # a single character left on the next line is masked too
    assert scrubber.scrub_after("token Tr0ub4dor&", "3 done") == "* done"
    # the same short start after an unrelated line is ordinary text
    assert scrubber.scrub_after("nothing here", "3 done") == "3 done"
    # no previous line, or an empty line: plain scrub
    assert scrubber.scrub_after("", "say Tr0ub4dor&3") == "say *"
    assert scrubber.scrub_after("token Tr0ub4d", "") == ""
    assert Scrubber([], "*").scrub_after("token Tr0ub4d", "or&3") == "or&3"
    # the longest cut is preferred: "Tr0ub4dor&" + "3" vs "Tr0ub4dor&3" + ""
    assert scrubber.scrub_after("x Tr0", "ub4dor&3 and Tr0ub4dor&3") == "* and *"
