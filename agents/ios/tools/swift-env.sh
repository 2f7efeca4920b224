# Sourced (not run) by scripts/check-ios and scripts/run-ios-agent-host, from the repository
# root: finds the Swift toolchain (swift on PATH, else $MOBRIDGE_SWIFT_BIN, default
# /opt/swift/usr/bin) and defines
#   IOS_DIR        agents/ios (the Swift package)
#   ios_need_swift exits when there is no toolchain: status 0 with a "skipped" line locally,
#                  status 1 under CI (env CI set), where nothing may skip
#   ios_build_host builds mobridge-ios-host unless the binary is newer than every source
IOS_DIR=agents/ios
IOS_HOST_BIN="$IOS_DIR/.build/debug/mobridge-ios-host"

_swift_bin=${MOBRIDGE_SWIFT_BIN:-/opt/swift/usr/bin}
if ! command -v swift >/dev/null 2>&1 && [ -x "$_swift_bin/swift" ]; then
    PATH="$_swift_bin:$PATH"
    export PATH
fi

ios_need_swift() {
    if command -v swift >/dev/null 2>&1; then
        return 0
    fi
    if [ -n "${CI:-}" ]; then
        echo "ios: FAILED: no Swift toolchain (swift not on PATH, no /opt/swift/usr/bin/swift);" \
            "CI must provide Swift 6 for Linux" >&2
        exit 1
    fi
    echo "ios: skipped: no Swift toolchain; install Swift 6 for Linux (swift.org) at /opt/swift" \
        "(or set MOBRIDGE_SWIFT_BIN, or put swift on PATH) to build and test agents/ios" >&2
    exit 0
}

ios_build_host() {
    if [ -x "$IOS_HOST_BIN" ] && [ -z "$(find "$IOS_DIR/Sources" "$IOS_DIR/Package.swift" \
        -newer "$IOS_HOST_BIN" -print 2>/dev/null | head -n 1)" ]; then
        return 0
    fi
    echo "ios: building mobridge-ios-host (swift build)" >&2
    (cd "$IOS_DIR" && swift build --product mobridge-ios-host >&2)
    touch "$IOS_HOST_BIN"  # up to date now, even when swift had nothing to relink
}
