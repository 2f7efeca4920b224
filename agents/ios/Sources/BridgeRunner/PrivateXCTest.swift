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
///   each event): replaced by a bounded pause of `quiescenceBoundMs` (0: none). Fallback: XCTest's
///   own wait (unbounded under animation; the executor's deadline then answers `busy`);
/// - `hasKeyboardFocus` on a snapshot object (`responds(to:)` first). Fallback: `hasFocus`.
///
/// Nothing here runs off Apple platforms: every entry point reports "not available" there.
enum PrivateXCTest {
    nonisolated(unsafe) static var snapshotOverrides: [String: Int] = [:]
    nonisolated(unsafe) static var quiescenceBoundMs = 0
    nonisolated(unsafe) private static var parametersHooked: Bool?
    nonisolated(unsafe) private static var quiescenceHooked: Bool?

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

    /// Replaces XCTest's idle waits by a pause of at most `quiescenceBoundMs`.
    @discardableResult
    static func installQuiescenceBound() -> Bool {
        if let done = quiescenceHooked { return done }
        #if canImport(ObjectiveC)
        guard let cls = NSClassFromString("XCUIApplicationProcess") else {
            quiescenceHooked = false
            return false
        }
        var hooked = false
        let pause: @convention(block) (AnyObject, Bool) -> Void = { _, _ in boundedPause() }
        let pause2: @convention(block) (AnyObject, Bool, Bool) -> Void = { _, _, _ in boundedPause() }
        if let m = class_getInstanceMethod(cls, NSSelectorFromString("waitForQuiescenceIncludingAnimationsIdle:")) {
            method_setImplementation(m, imp_implementationWithBlock(pause))
            hooked = true
        }
        if let m = class_getInstanceMethod(cls, NSSelectorFromString("waitForQuiescenceIncludingAnimationsIdle:isPreEvent:")) {
            method_setImplementation(m, imp_implementationWithBlock(pause2))
            hooked = true
        }
        quiescenceHooked = hooked
        return hooked
        #else
        quiescenceHooked = false
        return false
        #endif
    }

    /// A plain sleep, never a run-loop spin: spinning the main run loop here would run the next
    /// queued agent command inside this one.
    private static func boundedPause() {
        let ms = quiescenceBoundMs
        if ms > 0 { Thread.sleep(forTimeInterval: Double(ms) / 1000) }
    }
}
