/// What XCTest's idle wait costs, decided here so host mode and the XCUITest layer agree
/// (issue 34). XCTest waits for the application to go idle before and after each event
/// (`waitForQuiescenceIncludingAnimationsIdle:`); WebDriverAgent keeps that wait and bounds it
/// with `_XCTSetApplicationStateTimeout`, so an idle app pays nothing and a busy one pays at most
/// the bound. A fixed sleep of the bound instead (what the layer did before) charges every
/// event the whole bound on an idle app and never waits for a busy one.
///
/// Invariants: the cost is never negative and never above the bound; `.skip` costs nothing;
/// an app that never goes idle (`idleInMs` nil) costs exactly the bound.
public enum IdleWait {
    /// Milliseconds an event waits under `wait` when the app goes idle `idleInMs` from now
    /// (nil: never).
    public static func cost(_ wait: Quiescence, idleInMs: Int?) -> Int {
        guard case .bounded(let bound) = wait else { return 0 }
        guard let idle = idleInMs else { return bound }
        return min(max(0, idle), bound)
    }

    /// The most one command can spend in idle waits: `events` waits of the policy's bound for
    /// `kind` (deadlines add it: the budget counts what the layer may wait).
    public static func budgetMs(_ policy: QuiescencePolicy, _ kind: QuiescencePolicy.Kind, events: Int) -> Int {
        guard case .bounded(let ms) = policy.wait(for: kind) else { return 0 }
        return ms * max(0, events)
    }
}
