#!/bin/sh
# stub-surface.sh STUB_CLASSES APP_CLASSES: fails when a stub declares a method or constructor
# that the app's bytecode never references, so the stubs stay exactly the used android.* surface.
# (Constants are inlined by javac and overridden callbacks are called by the platform, so fields
# and methods the app overrides are exempt.)
set -eu
stubs=$1
app=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every android.* method/constructor the app references: "pkg/Class.name:(desc)ret".
find "$app" -name '*.class' -print0 | xargs -0 javap -c -p 2>/dev/null \
    | sed -n 's|.*// \(Interface\)\{0,1\}Method \(android/[^ ]*\)$|\2|p' \
    | sed 's|"<init>"|<init>|' | sort -u >"$tmp/used"
# Methods the app declares (overrides of platform callbacks) and methods it calls on its own
# classes (inherited platform methods such as Instrumentation.getContext): "name:(desc)ret".
{
    find "$app" -name '*.class' -print0 | xargs -0 javap -s -p 2>/dev/null | awk '
        /\(.*\);$/ { line = $0; sub(/\(.*/, "", line); n = split(line, w, " "); name = w[n]
                     next }
        /descriptor:/ && name != "" { print name ":" $2; name = "" }'
    find "$app" -name '*.class' -print0 | xargs -0 javap -c -p 2>/dev/null \
        | sed -n 's|.*// \(Interface\)\{0,1\}Method \([^ ]*\)$|\2|p' | grep -v '^android/' \
        | sed 's|^.*\.\([^.]*:\)|\1|'
} | sort -u >"$tmp/overrides"

# Every method/constructor the stubs declare.
find "$stubs" -name '*.class' | sort | while read -r cls; do
    rel=${cls#"$stubs"/}
    owner=${rel%.class}
    javap -s -p "$cls" | awk -v owner="$owner" '
        /\(.*\);$/ { line = $0; sub(/\(.*/, "", line); n = split(line, w, " "); name = w[n]
                     if (index(name, ".") > 0) name = "<init>"; next }
        /descriptor:/ && name != "" { print owner "." name ":" $2; name = "" }'
done | grep -v -E '\.(values|valueOf):' | sort -u >"$tmp/declared"

unused=""
while read -r m; do
    if grep -qxF "$m" "$tmp/used"; then
        continue
    fi
    short=${m#*.}
    if grep -qxF "$short" "$tmp/overrides"; then
        continue
    fi
    unused="$unused
  $m"
done <"$tmp/declared"
if [ -n "$unused" ]; then
    echo "android: stub members the app never uses (remove them, or use them):$unused" >&2
    exit 1
fi
echo "android: stubs declare $(wc -l <"$tmp/declared") members, all used by the app"
