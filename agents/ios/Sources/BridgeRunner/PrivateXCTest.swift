import Foundation
#if canImport(UIKit)
import UIKit
#endif
#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// The runner's own screen scale (UIKit, in the runner process: no accessibility round trip),
/// read on every call. Off Apple platforms (compiling against the stubs) a placeholder.
enum NativeScreen {
    static var scale: Double {
        #if canImport(UIKit)
        return Double(UIScreen.main.scale)
        #else
        return 3
        #endif
    }

    /// Pixels per point as rendered (`UIScreen.nativeScale`): 2.608 on a Plus model whose
    /// `scale` is 3, and different again with Display Zoom. Nil off Apple platforms.
    static var nativeScale: Double? {
        #if canImport(UIKit)
        return Double(UIScreen.main.nativeScale)
        #else
        return nil
        #endif
    }

    /// The screen's width in points as the interface is turned (`UIScreen.bounds`).
    static var widthPoints: Double? {
        #if canImport(UIKit)
        return Double(UIScreen.main.bounds.width)
        #else
        return nil
        #endif
    }
}

/// The general pasteboard of the runner's process (UIKit); nil off Apple platforms.
enum Pasteboard {
    static func read() -> String?? {
        #if canImport(UIKit)
        return .some(UIPasteboard.general.string)
        #else
        return nil
        #endif
    }

    static func write(_ text: String) -> Bool {
        #if canImport(UIKit)
        UIPasteboard.general.string = text
        return true
        #else
        return false
        #endif
    }
}

/// The private XCTest entry points the runner uses, each looked up at run time and used only
/// when present, with the public path as the fallback (listed in docs/ios.md):
///
/// - `XCAXClient_iOS -defaultParameters` (the snapshot parameters; WebDriverAgent and Maestro
///   override it the same way): `maxDepth` is merged in so XCTest limits the snapshot while it
///   takes it. Fallback: the reader cuts the walk at the limit (a screen too deep for XCTest then
///   still fails, and the core's ladder tries shallower in vain: the capture error says so);
/// - `XCUIApplicationProcess -waitForQuiescenceIncludingAnimationsIdle:` and
///   `-waitForQuiescenceIncludingAnimationsIdle:isPreEvent:` (XCTest's idle wait before and after
///   each event): skipped when `quiescenceBoundMs` is 0, else XCTest's own wait is called under
///   `_XCTSetApplicationStateTimeout(bound)` (a C function found with `dlsym`), so an idle app
///   pays nothing and a busy one at most the bound (WebDriverAgent does the same; issue 34: a
///   fixed sleep of the bound charged every event the whole bound and never waited for a busy
///   app). Without the timeout function the wait is skipped rather than left unbounded. Fallback
///   (no such methods): XCTest's own wait, unbounded under animation (the executor's deadline
///   then answers `busy`);
/// - `XCAXClient_iOS +sharedClient -activeApplications` (the accessibility elements of the apps
///   in front, with `processIdentifier`) and `XCUIApplication +applicationWithPID:` /
///   `-bundleID`: every app in front, Photos or Mail included. Fallback: the state of each
///   candidate bundle id (public; an app not among them reads as SpringBoard);
/// - `hasKeyboardFocus` on a snapshot object (`responds(to:)` first). Fallback: `hasFocus`.
///
/// Nothing here runs off Apple platforms: every entry point reports "not available" there.
enum PrivateXCTest {
    nonisolated(unsafe) static var snapshotOverrides: [String: Int] = [:]
    nonisolated(unsafe) static var quiescenceBoundMs = 0
    nonisolated(unsafe) private static var parametersHooked: Bool?
    nonisolated(unsafe) private static var quiescenceHooked: Bool?

    enum EntryPoint: Hashable { case snapshotParameters, quiescence, activeApplications, keyboardFocus }

    /// The private entry points missing in this XCTest, found by lookups only (no call, no
    /// input): what the runner reports as fallbacks from its start.
    static func missingEntryPoints() -> Set<EntryPoint> {
        #if canImport(ObjectiveC)
        var missing = Set<EntryPoint>()
        let ax = NSClassFromString("XCAXClient_iOS")
        if ax.flatMap({ class_getInstanceMethod($0, NSSelectorFromString("defaultParameters")) }) == nil {
            missing.insert(.snapshotParameters)
        }
        if ax.flatMap({ class_getInstanceMethod($0, NSSelectorFromString("activeApplications")) }) == nil
            || NSClassFromString("XCUIApplication").flatMap({ class_getClassMethod($0, NSSelectorFromString("applicationWithPID:")) }) == nil {
            missing.insert(.activeApplications)
        }
        let process = NSClassFromString("XCUIApplicationProcess")
        if process.flatMap({ class_getInstanceMethod($0, NSSelectorFromString("waitForQuiescenceIncludingAnimationsIdle:")) }) == nil
            || stateTimeoutSetter == nil {
            missing.insert(.quiescence)
        }
        if NSClassFromString("XCElementSnapshot").flatMap({ class_getInstanceMethod($0, NSSelectorFromString("hasKeyboardFocus")) }) == nil {
            missing.insert(.keyboardFocus)
        }
        return missing
        #else
        return [.snapshotParameters, .quiescence, .activeApplications, .keyboardFocus]
        #endif
    }

    /// Asks XCTest to stop at `depth` levels; false when the private parameters are missing.
    static func setSnapshotMaxDepth(_ depth: Int) -> Bool {
        guard hookSnapshotParameters() else { return false }
        snapshotOverrides["maxDepth"] = depth
        return true
    }

    static func hasKeyboardFocus(_ snapshot: Any) -> Bool? {
        #if canImport(ObjectiveC)
        let selector = NSSelectorFromString("hasKeyboardFocus")
        guard let object = snapshot as? NSObject, object.responds(to: selector) else { return nil }
        return (object.value(forKey: "hasKeyboardFocus") as? NSNumber)?.boolValue
        #else
        return nil
        #endif
    }

    private static func hookSnapshotParameters() -> Bool {
        if let done = parametersHooked { return done }
        #if canImport(ObjectiveC)
        let selector = NSSelectorFromString("defaultParameters")
        guard let cls = NSClassFromString("XCAXClient_iOS"), let method = class_getInstanceMethod(cls, selector) else {
            parametersHooked = false
            return false
        }
        typealias Getter = @convention(c) (AnyObject, Selector) -> NSDictionary?
        let original = unsafeBitCast(method_getImplementation(method), to: Getter.self)
        let replacement: @convention(block) (AnyObject) -> NSDictionary = { me in
            let merged = NSMutableDictionary()
            if let base = original(me, selector) as? [AnyHashable: Any] { merged.addEntries(from: base) }
            for (k, v) in snapshotOverrides { merged[k] = NSNumber(value: v) }
            return merged
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
        parametersHooked = true
        return true
        #else
        parametersHooked = false
        return false
        #endif
    }

    /// Bounds XCTest's idle waits by `quiescenceBoundMs` (0: skipped), keeping XCTest's own
    /// wait for idle inside the bound.
    @discardableResult
    static func installQuiescenceBound() -> Bool {
        if let done = quiescenceHooked { return done }
        #if canImport(ObjectiveC)
        guard let cls = NSClassFromString("XCUIApplicationProcess") else {
            quiescenceHooked = false
            return false
        }
        var hooked = false
        let one = NSSelectorFromString("waitForQuiescenceIncludingAnimationsIdle:")
        if let m = class_getInstanceMethod(cls, one) {
            typealias Wait = @convention(c) (AnyObject, Selector, Bool) -> Void
            let original = unsafeBitCast(method_getImplementation(m), to: Wait.self)
            let bounded: @convention(block) (AnyObject, Bool) -> Void = { me, animations in
                if applyStateTimeout() { original(me, one, animations) }
            }
            method_setImplementation(m, imp_implementationWithBlock(bounded))
            hooked = true
        }
        let two = NSSelectorFromString("waitForQuiescenceIncludingAnimationsIdle:isPreEvent:")
        if let m = class_getInstanceMethod(cls, two) {
            typealias Wait = @convention(c) (AnyObject, Selector, Bool, Bool) -> Void
            let original = unsafeBitCast(method_getImplementation(m), to: Wait.self)
            let bounded: @convention(block) (AnyObject, Bool, Bool) -> Void = { me, animations, pre in
                if applyStateTimeout() { original(me, two, animations, pre) }
            }
            method_setImplementation(m, imp_implementationWithBlock(bounded))
            hooked = true
        }
        quiescenceHooked = hooked
        return hooked
        #else
        quiescenceHooked = false
        return false
        #endif
    }

    /// Whether XCTest's own wait may run now: the bound is set as XCTest's application-state
    /// timeout first; false (skip the wait) when the bound is 0 or the function is missing.
    private static func applyStateTimeout() -> Bool {
        let ms = quiescenceBoundMs
        guard ms > 0, let set = stateTimeoutSetter else { return false }
        set(Double(ms) / 1000)
        return true
    }

    #if canImport(ObjectiveC)
    typealias SetTimeout = @convention(c) (Double) -> Void
    nonisolated(unsafe) private static let stateTimeoutSetter: SetTimeout? = {
        guard let handle = dlopen(nil, RTLD_NOW), let sym = dlsym(handle, "_XCTSetApplicationStateTimeout") else { return nil }
        return unsafeBitCast(sym, to: SetTimeout.self)
    }()
    #else
    private static let stateTimeoutSetter: (@Sendable (Double) -> Void)? = nil
    #endif

    /// The bundle ids of the applications in front (private accessibility client); nil when
    /// the private entry points are missing (the caller falls back to the public app states).
    static func activeApplications() -> [String]? {
        #if canImport(ObjectiveC)
        typealias Get = @convention(c) (AnyObject, Selector) -> AnyObject?
        typealias ByPid = @convention(c) (AnyObject, Selector, Int32) -> AnyObject?
        let sharedSel = NSSelectorFromString("sharedClient")
        let activeSel = NSSelectorFromString("activeApplications")
        let pidSel = NSSelectorFromString("applicationWithPID:")
        guard let axClass: AnyClass = NSClassFromString("XCAXClient_iOS"),
              let sharedM = class_getClassMethod(axClass, sharedSel),
              let activeM = class_getInstanceMethod(axClass, activeSel),
              let appClass: AnyClass = NSClassFromString("XCUIApplication"),
              let pidM = class_getClassMethod(appClass, pidSel),
              let client = unsafeBitCast(method_getImplementation(sharedM), to: Get.self)(axClass, sharedSel),
              let elements = unsafeBitCast(method_getImplementation(activeM), to: Get.self)(client, activeSel) as? [NSObject]
        else { return nil }
        let byPid = unsafeBitCast(method_getImplementation(pidM), to: ByPid.self)
        var ids: [String] = []
        for e in elements.prefix(16) {
            guard let pid = (e.value(forKey: "processIdentifier") as? NSNumber)?.int32Value,
                  let app = byPid(appClass, pidSel, pid) as? NSObject,
                  let id = app.value(forKey: "bundleID") as? String, !ids.contains(id) else { continue }
            ids.append(id)
        }
        return ids
        #else
        return nil
        #endif
    }
}
