#!/usr/bin/env python3
"""The XCTest/XCUITest stub surface of the iOS runner, whether it is exactly what it uses, and
whether it matches the official API listing.

Reads ``agents/ios/Sources/XCUITestStubs/*.swift`` (the declarations),
``agents/ios/Sources/BridgeRunner/*.swift`` (the XCUITest layer), comments and string literals
removed, and ``agents/ios/tools/xctest-api/*.api`` (the declarations of XCTest's public API the
layer uses, copied from Apple's headers and documentation with their source and availability),
and fails (exit 1) when:

- a stub member is missing from the listing, or its declaration (signature) differs from the
  listing's, or its ``@available(iOS x, *)`` differs from the listing's availability;
- the layer uses a member the listing marks as newer than iOS 16 (the agent's minimum) outside
  an ``#available(iOS x, *)`` check of at least that version;

- the layer names an Apple type (``XC*``, ``CG*`` other than Foundation's ``CGRect`` /
  ``CGFloat`` / ``CGPoint`` / ``CGSize``) that the stubs do not declare;
- a stub declares a type or member that the layer never uses (the stubs mirror the used surface
  only: a member used nowhere is removed, so the list stays the runner's real dependency on
  Apple's SDK).

That members are *spelled and typed* right is checked by the compiler: ``scripts/check-ios``
builds the layer against the stubs. This script is the part that needs no Swift toolchain;
``scripts/check`` runs it. ``--list`` prints the surface (one ``Type`` or ``Type.member`` a line).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

MIN_IOS = (16, 0)
LISTING = Path(__file__).resolve().parent / "xctest-api"

ROOT = Path(__file__).resolve().parents[1]
STUBS = ROOT / "Sources" / "XCUITestStubs"
LAYER = ROOT / "Sources" / "BridgeRunner"
FOUNDATION_CG = frozenset({"CGRect", "CGFloat", "CGPoint", "CGSize"})

_TYPE = re.compile(r"\b(class|struct|enum|protocol)\s+([A-Z]\w*)")
_FUNC = re.compile(r"\bfunc\s+(`?\w+`?)\s*\(([^)]*)\)")
_INIT = re.compile(r"\binit\s*\(([^)]*)\)")
_VAR = re.compile(r"\b(?:var|let)\s+(`?\w+`?)\s*:")
_CASE = re.compile(r"\bcase\s+(`?\w+`?)")


@dataclass
class Member:
    owner: str
    kind: str  # func, init, var, case
    name: str
    labels: tuple[str, ...] = ()
    declaration: str = ""
    available: str = "-"

    def spelled(self) -> str:
        if self.kind in ("func", "init"):
            return f"{self.owner}.{self.name}({''.join(label + ':' for label in self.labels)})"
        return f"{self.owner}.{self.name}"


@dataclass
class Surface:
    types: list[str] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)


def _interpolations(literal: re.Match[str]) -> str:
    """A string literal reduced to its interpolated expressions (code that runs)."""
    return " ".join(re.findall(r"\\\(([^()]*(?:\([^()]*\)[^()]*)*)\)", literal.group(0)))


def strip_swift(text: str) -> str:
    """Swift source without comments, imports and the text of string literals (none of which
    can use an API); interpolations inside strings are kept."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*(?:@\w+\s+)?import\s+\w+.*$", " ", text, flags=re.M)
    text = re.sub(r'"""(.|\n)*?"""', _interpolations, text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', _interpolations, text)


def _labels(params: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in params.split(","):
        words = part.split(":")[0].split()
        if words:
            out.append(words[0])
    return tuple(out)


def _joined(text: str) -> list[str]:
    """Lines, a declaration whose parentheses span lines joined into one."""
    out: list[str] = []
    for line in text.splitlines():
        if out and out[-1].count("(") > out[-1].count(")"):
            out[-1] = out[-1] + " " + line.strip()
        else:
            out.append(line)
    return out


def declaration(line: str) -> str:
    """A member's declaration as compared with the listing: no access modifier, attribute or
    body, single spaces."""
    d = line.split("{")[0]
    d = re.sub(r"@\w+(\([^)]*\))?\s*", "", d)
    d = re.sub(r"\b(public|open|class|static|final)\s+", "", d)
    return " ".join(d.split()).rstrip(" ,")


def parse_stubs(text: str) -> Surface:
    """Types (nested ones as ``Outer.Inner``) and their public members, in file order."""
    surface = Surface()
    stack: list[tuple[str, int, str]] = []  # (qualified type, brace depth inside it, kind)
    depth = 0
    available = "-"
    for line in _joined(strip_swift(text)):
        if (a := re.search(r"@available\(iOS ([0-9.]+)", line)) is not None and "func" not in line:
            available = a.group(1)
            continue
        owner = stack[-1][0] if stack else None
        found = _TYPE.search(line)
        if found and "{" in line:
            name = f"{owner}.{found.group(2)}" if owner else found.group(2)
            surface.types.append(name)
            depth += line.count("{") - line.count("}")
            stack.append((name, depth, found.group(1)))
            continue
        in_protocol = bool(stack) and stack[-1][2] == "protocol"
        if owner is not None and (in_protocol or re.search(r"\b(public|open)\b", line)):
            decl = declaration(line)
            if (m := _FUNC.search(line)) is not None:
                surface.members.append(
                    Member(owner, "func", m.group(1), _labels(m.group(2)), decl, available)
                )
            elif (m := _INIT.search(line)) is not None:
                surface.members.append(
                    Member(owner, "init", "init", _labels(m.group(1)), decl, available)
                )
            elif (m := _VAR.search(line)) is not None:
                surface.members.append(Member(owner, "var", m.group(1), (), decl, available))
            available = "-"
        if (
            owner is not None
            and (m := _CASE.search(line)) is not None
            and line.strip().startswith("case")
        ):
            surface.members.append(
                Member(owner, "case", m.group(1), (), declaration(line), available)
            )
            available = "-"
        depth += line.count("{") - line.count("}")
        while stack and depth < stack[-1][1]:
            stack.pop()
    return surface


def _used(member: Member, layer: str) -> bool:
    name = member.name.strip("`")
    short = member.owner.rsplit(".", 1)[-1]
    if member.kind == "init":
        labels = "".join(rf"\s*{label}\s*:[^,)]*,?" for label in member.labels if label != "_")
        return re.search(rf"\b{short}\s*\({labels}", layer) is not None
    if member.kind == "func":
        own = re.sub(rf"(?<!override )\bfunc\s+{name}\s*\(", " ", layer)
        return re.search(rf"(\.|\boverride func\s+|\bsuper\.|\W){name}\s*\(", own) is not None
    if member.kind == "case":
        return re.search(rf"\.`?{name}`?\b", layer) is not None
    return re.search(rf"(\.{name}\b|^\s*{name}\s*=|\s{name}\s*=)", layer, re.M) is not None


def check(stub_text: str, layer_text: str) -> tuple[Surface, list[str]]:
    surface = parse_stubs(stub_text)
    layer = strip_swift(layer_text)
    problems: list[str] = []
    declared = {t.rsplit(".", 1)[-1] for t in surface.types}
    declared |= {m.group(2) for m in _TYPE.finditer(layer)}  # the runner's own types
    named = sorted(set(re.findall(r"\b(XC[A-Z]\w*|CG[A-Z]\w*)\b", layer)))
    problems.extend(
        f"the runner uses {name}, which the stubs do not declare"
        for name in named
        if name not in declared and name not in FOUNDATION_CG
    )
    used_types: set[str] = set()
    cases = {t: [m for m in surface.members if m.owner == t] for t in surface.types}
    for m in surface.members:
        only_case = (
            m.kind == "case" and len(cases.get(m.owner, [])) == 1
        )  # gives the enum its raw type
        if _used(m, layer) or only_case:
            used_types.add(m.owner)
        else:
            problems.append(f"stub member {m.spelled()} is used nowhere in the runner")
    for t in surface.types:
        short = t.rsplit(".", 1)[-1]
        if t not in used_types and re.search(rf"\b{short}\b", layer) is None:
            problems.append(f"stub type {t} is used nowhere in the runner")
    return surface, problems


@dataclass
class Listed:
    member: str
    declaration: str
    available: str
    source: str
    block: str = ""
    """The block's provenance: ``OWNER/NAME PATH @ REVISION`` or ``documentation ...``."""


_BLOCK = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]* \S+\.h @ [0-9a-f]{40}")
_AVAILABLE = re.compile(r"ios [0-9]+(\.[0-9]+)*")


def check_provenance(text: str) -> list[str]:
    """Issue 34: every member line sits in a block headed ``source: OWNER/NAME PATH.h @
    REVISION`` (a public repository's copy of the header, at the revision read) or ``source:
    documentation ...``, and carries its own availability (``ios X.Y``)."""
    problems: list[str] = []
    block = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("source:"):
            block = line.removeprefix("source:").strip()
            if not (_BLOCK.fullmatch(block) or block.startswith("documentation ")):
                problems.append(
                    f"listing block '{block}' names no repository, header and 40-hex revision "
                    "(nor 'documentation ...')"
                )
            continue
        member = line.split("|")[0].strip()
        if not block:
            problems.append(f"listing member {member} is in no 'source:' block")
        parts = line.split("|")
        if len(parts) == 4 and not _AVAILABLE.fullmatch(parts[2].strip()):
            problems.append(f"listing member {member} has no availability of its own (ios X.Y)")
    return problems


def parse_listing(text: str) -> dict[str, Listed]:
    """``member | declaration | availability | source`` lines (``#`` comments), in blocks
    headed ``source: ...`` (see ``check_provenance``)."""
    out: dict[str, Listed] = {}
    block = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("source:"):
            block = line.removeprefix("source:").strip()
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4:
            raise ValueError(
                "listing line needs 4 fields (member | declaration | availability | source): "
                + line
            )
        out[parts[0]] = Listed(
            parts[0],
            " ".join(parts[1].split()),
            parts[2].removeprefix("ios ").strip(),
            parts[3],
            block,
        )
    return out


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".")) if re.fullmatch(r"[0-9]+(\.[0-9]+)*", v) else (0,)


def check_listing(surface: Surface, listing: dict[str, Listed], layer_text: str) -> list[str]:
    """The stubs against the official listing; newer-than-minimum uses in the layer."""
    layer = strip_swift(layer_text)
    problems: list[str] = []
    for m in surface.members:
        key = m.spelled()
        got = listing.get(key)
        if got is None:
            problems.append(
                f"stub member {key} is not in the XCTest API listing (agents/ios/tools/xctest-api)"
            )
            continue
        if got.declaration != m.declaration:
            problems.append(
                f"stub member {key} differs from the listing ({got.source}): "
                f"stub '{m.declaration}', listing '{got.declaration}'"
            )
        if got.available != m.available and not (
            m.available == "-" and _version(got.available) <= MIN_IOS
        ):
            problems.append(
                f"stub member {key} availability differs from the listing ({got.source}): "
                f"stub iOS {m.available}, listing iOS {got.available}"
            )
        need = _version(got.available)
        if need > MIN_IOS and _used(m, layer):
            guards = [_version(g) for g in re.findall(r"#available\(iOS ([0-9.]+)", layer)]
            if not any(g >= need for g in guards):
                minimum = ".".join(map(str, MIN_IOS))
                problems.append(
                    f"the runner uses {key}, which needs iOS {got.available} (newer than the "
                    f"minimum iOS {minimum}), without an #available(iOS {got.available}, *) check"
                )
    return problems


def _read_listing(directory: Path) -> dict[str, Listed]:
    out: dict[str, Listed] = {}
    for p in sorted(directory.glob("*.api")):
        out.update(parse_listing(p.read_text(encoding="utf-8")))
    return out


def _listing_provenance(directory: Path) -> list[str]:
    problems: list[str] = []
    for p in sorted(directory.glob("*.api")):
        problems.extend(check_provenance(p.read_text(encoding="utf-8")))
    return problems


def _read(directory: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.swift")))


def main(argv: list[str]) -> int:
    stubs = STUBS
    if "--stubs" in argv:
        stubs = Path(argv[argv.index("--stubs") + 1])
    surface, problems = check(_read(stubs), _read(LAYER))
    listing = _read_listing(LISTING)
    problems.extend(check_listing(surface, listing, _read(LAYER)))
    problems.extend(_listing_provenance(LISTING))
    if "--list" in argv:
        for t in surface.types:
            print(t)
            for m in surface.members:
                if m.owner == t:
                    print(f"  {m.spelled()}")
    for p in problems:
        print(f"ios: {p}", file=sys.stderr)
    if problems:
        return 1
    read = sum(1 for v in listing.values() if not v.block.startswith("documentation"))
    print(
        f"ios: stubs declare {len(surface.types)} types and {len(surface.members)} members, "
        "all used by the XCUITest layer and all as in the XCTest API listing "
        f"({len(listing)} declarations, {read} "
        "read in public header copies at a named revision); every XC* type it names is declared"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
