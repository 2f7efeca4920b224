#!/bin/sh
# stub-surface.sh STUB_CLASSES APP_CLASSES: fails when a stub declares a public or protected
# method or constructor that the app's bytecode never references, so the stubs stay exactly the
# used android.* surface. Fields are not checked (javac inlines constants, so their use leaves no
# trace); methods the app overrides or calls on its own subclasses count as used.
set -eu
stubs=$1
app=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
JAVAP="javap -J-XX:TieredStopAtLevel=1"

# $1: javap -s -p output on stdin -> "owner.name:descriptor" per public/protected member.
members() {
    awk '
        /^[a-z ]*(class|interface|enum) / {
            for (i = 1; i <= NF; i++) if ($i == "class" || $i == "interface" || $i == "enum") {
                owner = $(i + 1); sub(/<.*/, "", owner); gsub(/\./, "/", owner) }
            next }
        /\(.*\);$/ { name = ""
                     if ($0 !~ /^ *(public|protected) /) next
                     line = $0; sub(/\(.*/, "", line); n = split(line, w, " "); name = w[n]
                     if (index(name, ".") > 0) name = "<init>"; next }
        /descriptor:/ && name != "" { print owner "." name ":" $2; name = "" }'
}

find "$app" -name '*.class' | sort >"$tmp/app-classes"
find "$stubs" -name '*.class' | sort >"$tmp/stub-classes"

# References from the app's bytecode: android.* ones fully qualified ("pkg/Cls.name:desc"),
# others (calls on its own classes, e.g. an inherited Instrumentation.getContext) by name only.
# shellcheck disable=SC2046 # class file paths contain no spaces
$JAVAP -c -p $(cat "$tmp/app-classes") \
    | sed -n 's|.*// \(Interface\)\{0,1\}Method \([^ ]*\)$|\2|p' | sed 's|"<init>"|<init>|' \
    | sort -u >"$tmp/refs"
grep '^android/' "$tmp/refs" >"$tmp/used" || true
{
    grep -v '^android/' "$tmp/refs" | sed 's|^.*\.\([^.]*:\)|\1|' || true
    # Methods the app declares: overrides of platform callbacks.
    # shellcheck disable=SC2046
    $JAVAP -s -p $(cat "$tmp/app-classes") | members | sed 's|^[^.]*\.||'
} | sort -u >"$tmp/short"

# shellcheck disable=SC2046
$JAVAP -s -p $(cat "$tmp/stub-classes") | members | grep -v -E '\.(values|valueOf):' \
    | sort -u >"$tmp/declared"

unused=""
while read -r m; do
    grep -qxF "$m" "$tmp/used" && continue
    grep -qxF "${m#*.}" "$tmp/short" && continue
    unused="$unused
  $m"
done <"$tmp/declared"
if [ -n "$unused" ]; then
    echo "android: stub members the app never uses (remove them, or use them):$unused" >&2
    exit 1
fi
echo "android: stubs declare $(wc -l <"$tmp/declared") public members, all used by the app"
