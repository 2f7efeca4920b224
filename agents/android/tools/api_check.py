#!/usr/bin/env python3
"""The Android stubs proven against the official API listing, and API levels guarded.

Reads ``tools/api-listing/current.txt`` and ``tools/api-listing/api-26.txt`` (lines of AOSP's
API signature listings, each block naming its source) and fails (exit 1, one line per problem)
when:

1. a stub class the listings cover declares a public member that no block of ``current.txt``
   (or, for a class only ``api-26.txt`` holds, that listing) lists with the same signature:
   name, parameter types, return or field type, ``static``/``final``, ``throws``, and for
   constants the value (javac inlines them, so a wrong value would ship); or the class itself
   differs (class/interface, ``static``, ``final``, ``abstract``). A method or field the
   listing declares on a superclass named in the class line's ``extends`` (and listed too)
   counts as the class's own (``Bundle.getString`` is listed on ``BaseBundle``); a stub
   ``enum``'s constants are compared with the listing's ``enum_constant`` lines, and the
   enum is static (when nested) and final as Java makes it;
2. a stub class is neither proven nor named in ``UNPROVEN`` (a new stub class must be added
   to the listings, or knowingly to that list);
3. the device layer (``agents/android/app``) calls a proven member that is newer than the
   agent's minimum API level (listed in ``current.txt`` but not in ``api-26.txt``) outside a
   block guarded by ``if (... Build.VERSION.SDK_INT >= N ...)`` with N > 26. The rule is
   textual: the call (matched by name and argument count) must sit inside the braces of such
   an ``if``; an ``else`` branch is not guarded.

Types are compared by simple names (``java.util.List<android.view.accessibility.X>`` and
``List<X>`` are the same), annotations and ``deprecated`` markers are ignored. Options:
``--stubs DIR``, ``--app DIR`` and ``--listings DIR`` check other trees (the tests use
copies).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ANDROID = Path(__file__).resolve().parents[1]
LISTINGS = ANDROID / "tools" / "api-listing"
MIN_SDK = 26

# Stub classes not yet proven against a listing (their members would be checked only by the
# compile against the SDK in scripts/build-android-agent). Empty: every stub class is proven.
# A new stub class must get its listing lines (both files, or api-26.txt alone when all its
# members are API 26 or older) or be named here with the reason.
UNPROVEN: frozenset[str] = frozenset()

_ANNOTATION = re.compile(r"@\w+(\([^)]*\))?\s*")
_PACKAGE_PART = re.compile(r"\b[a-z][a-z0-9_]*\.")


def simple(type_text: str) -> str:
    """A type with package qualifiers, annotations and spaces removed."""
    t = _ANNOTATION.sub("", type_text)
    t = _PACKAGE_PART.sub("", t)
    return re.sub(r"\s+", "", t)


@dataclass(frozen=True)
class Member:
    kind: str  # "method", "ctor" or "field"
    name: str
    params: tuple[str, ...]
    type: str  # return or field type ("" for constructors)
    static: bool
    final: bool
    throws: tuple[str, ...] = ()
    value: str | None = None

    def key(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.kind, self.name, self.params)

    def describe(self) -> str:
        mods = ("static " if self.static else "") + ("final " if self.final else "")
        if self.kind == "field":
            value = f" = {self.value}" if self.value is not None else ""
            return f"field {mods}{self.type} {self.name}{value}"
        throws = f" throws {', '.join(self.throws)}" if self.throws else ""
        return f"{self.kind} {mods}{self.type} {self.name}({', '.join(self.params)}){throws}"


@dataclass
class ClassInfo:
    name: str  # fully qualified, nested classes joined by "."
    kind: str = ""  # "class" or "interface"; "" when no block showed the class line
    static: bool = False
    final: bool = False
    abstract: bool = False
    members: dict[tuple[str, str, tuple[str, ...]], Member] = field(default_factory=dict)
    enum: bool = False  # a stub ``enum`` (its constants are recorded as static final fields)
    superclass: str = ""  # the listing's ``extends`` class, fully qualified ("" when none)


def _split_params(text: str) -> tuple[str, ...]:
    out: list[str] = []
    depth = 0
    cur = ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return tuple(p.strip() for p in out)


def _int_value(text: str) -> str:
    """A constant's value in a comparable form (ints in decimal, strings as written)."""
    t = text.strip().rstrip(";").strip()
    if t.startswith('"'):
        return t
    if t == "null":
        return ""
    try:
        return str(int(t.rstrip("Ll"), 0))
    except ValueError:
        return t


# ---- the listing -------------------------------------------------------------------------

_L_CLASS = re.compile(
    r"^\s*(?P<mods>(?:@\S+\s+)*(?:public|protected)[\w\s]*?)\s*(?P<kind>class|interface|enum)\s+"
    r"(?P<name>[\w.]+)"
)
_L_METHOD = re.compile(
    r"^\s*(?P<kind>method|ctor)\s+(?P<mods>.*?)(?P<type>[\w.<>\[\]?,\s]+?)\s*(?P<name>\w+)?\("
    r"(?P<params>.*)\)(?:\s+throws\s+(?P<throws>[^;]+))?;"
)
_L_FIELD = re.compile(
    r"^\s*field\s+(?P<mods>.*?)(?P<type>[\w.<>\[\]?]+)\s+(?P<name>\w+)(?:\s*=\s*(?P<value>[^;]+))?;"
)


def parse_listing(path: Path) -> dict[str, ClassInfo]:
    """Classes of every block of ``path`` (blocks of one class are merged)."""
    classes: dict[str, ClassInfo] = {}
    package = ""
    current: ClassInfo | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("//", 1)[0] if not raw.lstrip().startswith("field") else raw
        if raw.lstrip().startswith("//"):
            continue
        m = re.match(r"^package\s+([\w.]+)\s*\{", line)
        if m:
            package = m.group(1)
            continue
        cm = _L_CLASS.match(line)
        if cm and not line.lstrip().startswith(("method", "ctor", "field")):
            name = f"{package}.{cm.group('name')}"
            current = classes.setdefault(name, ClassInfo(name))
            mods = _ANNOTATION.sub("", cm.group("mods")).split()
            current.kind = "interface" if cm.group("kind") == "interface" else "class"
            current.static = "static" in mods
            current.final = "final" in mods
            current.abstract = "abstract" in mods
            ext = re.search(r"\bextends\s+([\w.]+)", line)
            if ext and current.kind == "class":
                current.superclass = ext.group(1)
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped.startswith(("method", "ctor")):
            mm = re.match(
                r"^(method|ctor)\s+(.*?)\((.*)\)(?:\s+throws\s+([^;]+))?;",
                _ANNOTATION.sub("", stripped),
            )
            if not mm:
                continue
            head = _ANNOTATION.sub("", mm.group(2)).split()
            kind = mm.group(1)
            mod_set = set(head)
            if kind == "ctor":
                name, type_ = head[-1].split(".")[-1], ""
            else:
                name, type_ = head[-1], simple(" ".join(w for w in head[:-1] if w not in _MODS))
            member = Member(
                kind,
                name,
                tuple(simple(p) for p in _split_params(mm.group(3))),
                type_,
                "static" in mod_set,
                "final" in mod_set,
                tuple(simple(t) for t in (mm.group(4) or "").split(",") if t.strip()),
            )
            current.members[member.key()] = member
        elif stripped.startswith(("field", "enum_constant")):
            keyword = "field" if stripped.startswith("field") else "enum_constant"
            body = _ANNOTATION.sub("", stripped[len(keyword) :]).split("//", 1)[0].strip()
            fm = re.match(r"^(.*?)\s*(\w+)(?:\s*=\s*(.+?))?;$", body)
            if not fm:
                continue
            words = fm.group(1).split()
            member = Member(
                "field",
                fm.group(2),
                (),
                simple(" ".join(w for w in words if w not in _MODS)),
                "static" in words,
                "final" in words,
                value=None if fm.group(3) is None else _int_value(fm.group(3)),
            )
            current.members[member.key()] = member
    return classes


_MODS = frozenset(
    {"public", "protected", "static", "final", "abstract", "default", "deprecated", "synchronized"}
)

# ---- the stubs ---------------------------------------------------------------------------

_S_CLASS = re.compile(
    r"^\s*(?P<mods>(?:public|protected|static|final|abstract|\s)*)\s*(?P<kind>class|interface|enum)"
    r"\s+(?P<name>\w+)"
)
_S_METHOD = re.compile(
    r"^\s*(?P<mods>(?:public|protected)(?:\s+(?:static|final|abstract|default|synchronized))*)\s+"
    r"(?:(?P<type>[\w.<>\[\]?, ]+?)\s+)?(?P<name>\w+)\s*\((?P<params>[^)]*)\)"
    r"(?:\s*throws\s+(?P<throws>[\w.,\s]+?))?\s*[{;]"
)
_S_FIELD = re.compile(
    r"^\s*(?P<mods>public(?:\s+(?:static|final))*)\s+(?P<type>[\w.<>\[\]?]+)\s+(?P<name>\w+)"
    r"\s*(?:=\s*(?P<value>.+?))?;\s*$"
)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse_stubs(root: Path) -> dict[str, ClassInfo]:
    """Public classes and members declared under ``root`` (a java source root)."""
    classes: dict[str, ClassInfo] = {}
    for path in sorted(root.rglob("*.java")):
        text = _strip_comments(path.read_text(encoding="utf-8"))
        pm = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M)
        package = pm.group(1) if pm else ""
        stack: list[tuple[ClassInfo | None, int]] = []  # (class, brace depth at its body)
        depth = 0
        pending: str = ""
        for line in text.splitlines():
            stripped = line.strip()
            cm = _S_CLASS.match(line)
            if cm and "(" not in stripped.split("{")[0]:
                outer = next((c for c, _ in reversed(stack) if c is not None), None)
                name = (
                    f"{outer.name}.{cm.group('name')}" if outer else f"{package}.{cm.group('name')}"
                )
                mods = cm.group("mods").split()
                is_enum = cm.group("kind") == "enum"
                # Java's implicit modifiers: a nested interface or enum is static, an enum
                # (stubs declare no constant bodies) is final.
                info = ClassInfo(
                    name,
                    "interface" if cm.group("kind") == "interface" else "class",
                    "static" in mods
                    or (outer is not None and cm.group("kind") in ("interface", "enum")),
                    "final" in mods or is_enum,
                    "abstract" in mods,
                    enum=is_enum,
                )
                if is_enum and "{" in line:
                    _add_enum_constants(info, name[len(package) + 1 :], line.split("{", 1)[1])
                if "public" in mods or "protected" in mods:
                    classes[name] = info
                    stack.append((info, depth + 1))
                else:
                    stack.append((None, depth + 1))
            elif stack and stack[-1][0] is not None and depth == stack[-1][1]:
                owner = stack[-1][0]
                if stripped == "}":
                    stripped = ""  # a nested class's closing brace: not part of a declaration
                if owner.enum and not pending and _ENUM_CONSTANTS.match(stripped):
                    _add_enum_constants(owner, owner.name[len(package) + 1 :], stripped)
                    stripped = ""
                pending = (pending + " " + stripped).strip() if pending else stripped
                if not pending:
                    pass
                elif not re.search(r"[{;]", pending):
                    pass  # a declaration spanning lines: wait for its end
                else:
                    _add_member(owner, pending)
                    pending = ""
            depth += line.count("{") - line.count("}")
            while stack and depth < stack[-1][1]:
                stack.pop()
    return classes


_ENUM_CONSTANTS = re.compile(r"^[A-Z_][A-Z0-9_]*(\s*,\s*[A-Z_][A-Z0-9_]*)*\s*,?\s*[;}]?\s*$")


def _add_enum_constants(owner: ClassInfo, type_name: str, text: str) -> None:
    """The constants at the start of an enum body (``A, B;`` or ``A, B }``) as the listing's
    ``enum_constant`` lines read: ``static final`` fields of the enum's own type."""
    head = re.split(r"[;}]", text, maxsplit=1)[0]
    for name in (n.strip() for n in head.split(",")):
        if re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
            member = Member("field", name, (), simple(type_name), True, True)
            owner.members[member.key()] = member


def _add_member(owner: ClassInfo, decl: str) -> None:
    fm = _S_FIELD.match(decl)
    if fm:
        mods = fm.group("mods").split()
        value = fm.group("value")
        member = Member(
            "field",
            fm.group("name"),
            (),
            simple(fm.group("type")),
            "static" in mods,
            "final" in mods,
            value=None if value is None or value.strip() == "null" else _int_value(value),
        )
        owner.members[member.key()] = member
        return
    mm = _S_METHOD.match(decl)
    if not mm:
        return
    mods = mm.group("mods").split()
    short = owner.name.split(".")[-1]
    is_ctor = mm.group("type") is None and mm.group("name") == short
    params = tuple(
        simple(" ".join(p.split()[:-1])) for p in _split_params(mm.group("params")) if p.strip()
    )
    member = Member(
        "ctor" if is_ctor else "method",
        short if is_ctor else mm.group("name"),
        params,
        "" if is_ctor else simple(mm.group("type") or ""),
        "static" in mods,
        "final" in mods,
        tuple(simple(t) for t in (mm.group("throws") or "").split(",") if t.strip()),
    )
    owner.members[member.key()] = member


# ---- the checks --------------------------------------------------------------------------


def check_stubs(
    stubs: dict[str, ClassInfo], current: dict[str, ClassInfo], api26: dict[str, ClassInfo]
) -> list[str]:
    """Problems of the stubs against ``current`` (or, for a class ``current`` does not hold
    yet, against ``api26``: public API is not removed in later levels)."""
    problems: list[str] = []
    for name, stub in sorted(stubs.items()):
        listed = current.get(name) or api26.get(name)
        if listed is None:
            if name not in UNPROVEN:
                problems.append(
                    f"{name}: a stub class in no listing block and not in UNPROVEN"
                    " (add its lines to tools/api-listing/, or name it in UNPROVEN)"
                )
            continue
        if listed.kind:
            problems.extend(
                f"{name}: class {attr} is {getattr(stub, attr)!r} in the stub,"
                f" {getattr(listed, attr)!r} in the listing"
                for attr in ("kind", "static", "final", "abstract")
                if getattr(stub, attr) != getattr(listed, attr)
            )
        chain = _superclasses(listed, current, api26)
        for key, member in sorted(stub.members.items()):
            where = chain if member.kind != "ctor" else chain[:1]
            got = next((c.members[key] for c in where if key in c.members), None)
            if got is None:
                same_name = [
                    m.describe() for c in chain for m in c.members.values() if m.name == member.name
                ]
                hint = f"; the listing has: {' | '.join(same_name)}" if same_name else ""
                problems.append(
                    f"{name}.{member.name}: stub {member.describe()} is not in the listing{hint}"
                )
                continue
            problems.extend(
                f"{name}.{member.name}: stub {member.describe()} differs in {attr}"
                f" from the listing's {got.describe()}"
                for attr in ("type", "static", "final", "throws")
                if getattr(member, attr) != getattr(got, attr)
            )
            if member.kind == "field" and got.value is not None and member.value != got.value:
                problems.append(
                    f"{name}.{member.name}: stub value {member.value} but the listing says"
                    f" {got.value}"
                )
    return problems


def _superclasses(
    listed: ClassInfo, current: dict[str, ClassInfo], api26: dict[str, ClassInfo]
) -> list[ClassInfo]:
    """``listed`` and the listed classes it extends, nearest first: a method the listing
    declares on a superclass (``Bundle.getString`` on ``BaseBundle``) is a member of the class.
    Constructors are not inherited: the caller matches them on the class itself. A superclass
    no listing block holds ends the chain (its members then prove nothing)."""
    chain = [listed]
    seen = {listed.name}
    name = listed.superclass
    while name and name not in seen:
        seen.add(name)
        parent = current.get(name) or api26.get(name)
        if parent is None:
            break
        chain.append(parent)
        name = parent.superclass
    return chain


def newer_members(
    current: dict[str, ClassInfo], api26: dict[str, ClassInfo]
) -> set[tuple[str, int]]:
    """(name, argument count) of methods listed now but not at API 26."""
    out: set[tuple[str, int]] = set()
    for name, cls in current.items():
        old = api26.get(name)
        for key, m in cls.members.items():
            if m.kind == "method" and (old is None or key not in old.members):
                out.add((m.name, len(m.params)))
    return out


_GUARD = re.compile(r"\bif\s*\(.*Build\.VERSION\.SDK_INT\s*>=\s*(\d+)")


def _calls(line: str) -> list[tuple[str, int]]:
    """(name, argument count) of the method calls ``.name(...)`` on one line."""
    out: list[tuple[str, int]] = []
    for m in re.finditer(r"\.(\w+)\(", line):
        depth, i, args, seen = 1, m.end(), 0, False
        while i < len(line) and depth:
            ch = line[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "," and depth == 1:
                args += 1
            elif not ch.isspace() and depth >= 1:
                seen = True
            i += 1
        out.append((m.group(1), args + 1 if seen else 0))
    return out


def check_guards(app: Path, newer: set[tuple[str, int]]) -> list[str]:
    problems: list[str] = []
    for path in sorted(app.rglob("*.java")):
        text = _strip_comments(path.read_text(encoding="utf-8"))
        guards: list[bool] = []  # one per open brace: inside an SDK_INT >= N (N > 26) block
        for number, line in enumerate(text.splitlines(), 1):
            g = _GUARD.search(line)
            line_guard = g is not None and int(g.group(1)) > MIN_SDK
            guarded = any(guards) or (line_guard and "{" not in line)
            problems.extend(
                f"{path.name}:{number}: {call[0]} ({call[1]} arguments) is newer than"
                f" API {MIN_SDK}; call it inside if (Build.VERSION.SDK_INT >= N) {{ ... }}"
                for call in _calls(line)
                if call in newer and not guarded and not line_guard
            )
            for ch in line:
                if ch == "{":
                    guards.append(line_guard and "else" not in line.split("{")[0])
                    line_guard = False
                elif ch == "}" and guards:
                    guards.pop()
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stubs", type=Path, default=ANDROID / "stubs" / "src" / "main" / "java")
    parser.add_argument("--app", type=Path, default=ANDROID / "app" / "src" / "main" / "java")
    parser.add_argument("--listings", type=Path, default=LISTINGS)
    args = parser.parse_args(argv)
    current = parse_listing(args.listings / "current.txt")
    api26 = parse_listing(args.listings / "api-26.txt")
    stubs = parse_stubs(args.stubs)
    problems = check_stubs(stubs, current, api26) + check_guards(
        args.app, newer_members(current, api26)
    )
    for p in problems:
        print(f"android api-check: {p}", file=sys.stderr)
    if problems:
        return 1
    proven = [n for n in stubs if n in current]
    only26 = [n for n in stubs if n not in current and n in api26]
    members = sum(len(stubs[n].members) for n in proven + only26)
    newer = len(newer_members(current, api26))
    unproven = len(stubs) - len(proven) - len(only26)
    print(
        f"android: {len(proven) + len(only26)} stub classes ({members} members) match the API"
        f" listing ({len(only26)} against API 26 only); calls to its {newer} methods newer than"
        f" API {MIN_SDK} are SDK_INT-guarded; {unproven} stub classes not yet proven"
        " (api_check.UNPROVEN)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
