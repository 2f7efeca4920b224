# Sourced by scripts/check-android, scripts/run-android-agent-host, scripts/build-android-agent.
# Locates (and when missing, installs through apt) the JDK and the Debian jars the agent needs:
# org.json (libandroid-json-java: the same API Android has built in), JUnit 4 and hamcrest.

JSON_JAR=/usr/share/java/com.android.json.jar
JUNIT_JAR=/usr/share/java/junit4.jar
HAMCREST_JAR=/usr/share/java/hamcrest-core.jar
ANDROID_DIR=agents/android
BUILD_DIR=$ANDROID_DIR/build

# ensure_java_deps [test]: the JDK and org.json; with "test", JUnit and hamcrest too.
ensure_java_deps() {
    missing=""
    command -v javac >/dev/null 2>&1 || missing="$missing default-jdk-headless"
    [ -f "$JSON_JAR" ] || missing="$missing libandroid-json-java"
    if [ "${1:-}" = test ]; then
        [ -f "$JUNIT_JAR" ] || missing="$missing junit4"
        [ -f "$HAMCREST_JAR" ] || missing="$missing libhamcrest-java"
    fi
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "android: missing$missing; install them with: sudo scripts/system-packages --install" >&2
        return 1
    fi
    echo "android: running apt-get as root to install:$missing (listed in scripts/system-packages)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086 # word list of package names
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >&2
}

# java_sources DIR...: every .java file under the given source roots, one per line.
java_sources() {
    for d in "$@"; do
        [ -d "$d" ] && find "$d" -name '*.java'
    done | sort
}

# compile OUT CLASSPATH SRC_ROOT...: javac (Java 17, warnings are errors) into OUT.
compile() {
    out=$1
    cp=$2
    shift 2
    rm -rf "$out"
    mkdir -p "$out"
    java_sources "$@" >"$out.sources"
    if [ ! -s "$out.sources" ]; then
        echo "android: no sources in $*" >&2
        return 1
    fi
    javac -J-XX:TieredStopAtLevel=1 --release 17 -encoding UTF-8 -Xlint:all,-serial,-options,-processing -Werror \
        -d "$out" -cp "$cp" "@$out.sources"
}

# build_host_jar: core + host into $BUILD_DIR/mobridge-agent-host.jar when sources changed.
# Builds in a private directory and renames, so concurrent callers never see half a jar.
build_host_jar() {
    jar_path=$BUILD_DIR/mobridge-agent-host.jar
    if [ -f "$jar_path" ] && [ -z "$(find "$ANDROID_DIR/core/src/main" \
            "$ANDROID_DIR/host/src/main" -name '*.java' -newer "$jar_path" | head -n 1)" ]; then
        return 0
    fi
    mkdir -p "$BUILD_DIR"
    tmp=$(mktemp -d "$BUILD_DIR/host-build.XXXXXX")
    compile "$tmp/classes" "$JSON_JAR" "$ANDROID_DIR/core/src/main/java" \
        "$ANDROID_DIR/host/src/main/java" || { rm -rf "$tmp"; return 1; }
    jar --create --file "$tmp/host.jar" -C "$tmp/classes" .
    mv -f "$tmp/host.jar" "$jar_path"
    rm -rf "$tmp"
}
