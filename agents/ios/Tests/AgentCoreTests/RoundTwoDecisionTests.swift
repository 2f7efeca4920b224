@testable import AgentCore
import XCTest

/// Issue 34: the device-layer decisions a second read against WebDriverAgent found wrong, each
/// test named after the item (they fail on the code before the issue).
final class RoundTwoDecisionTests: XCTestCase {
    /// The layer slept the whole bound on every event: an idle app paid it, a busy one was not
    /// waited for. XCTest's own wait under a timeout costs the time to idle, at most the bound.
    func testIosIdleWaitIsABoundedWaitForIdleNotAFixedSleep() {
        XCTAssertEqual(IdleWait.cost(.bounded(ms: 1000), idleInMs: 0), 0, "an idle app pays nothing")
        XCTAssertEqual(IdleWait.cost(.bounded(ms: 1000), idleInMs: 120), 120)
        XCTAssertEqual(IdleWait.cost(.bounded(ms: 1000), idleInMs: nil), 1000, "never idle: the bound")
        XCTAssertEqual(IdleWait.cost(.bounded(ms: 300), idleInMs: 5000), 300)
        XCTAssertEqual(IdleWait.cost(.skip, idleInMs: nil), 0)
    }

    /// The command budget did not count the idle waits: a SET_TEXT that waits its bound on each
    /// event overran the deadline. The extra deadline now grows with the bound.
    func testIosCommandBudgetCountsTheIdleWaits() throws {
        let b = PrimitiveBackend(primitives: NullPrimitives(), pace: .device)
        var cmd = NodeActionCommand(id: 1, capture: 1, handle: 1, action: .setText, identity: NodeIdentity())
        cmd.text = String(repeating: "a", count: 20)
        b.quiescence = .uniform(0)
        let none = b.extraDeadlineMs(.nodeAction(cmd))
        b.quiescence = .uniform(1000)
        let waited = b.extraDeadlineMs(.nodeAction(cmd))
        XCTAssertGreaterThanOrEqual(waited - none, 1000 * (2 + NodeActionRunner.maxScrollSteps))
    }

    /// Pinch fell back to the application's centre and reported success wherever it was aimed.
    func testIosPinchWithNoElementUnderItIsRefusedNotMovedToTheAppsCentre() {
        var t = RawTree(capture: 1, platform: .ios)
        var app = RawNode(handle: 1, parent: -1)
        app.bounds = Bounds(0, 0, 1179, 2556)
        var photo = RawNode(handle: 2, parent: 0)
        photo.bounds = Bounds(0, 300, 1179, 1200)
        photo.automationId = "photo"
        t.nodes = [app, photo]
        guard case .failure = MultiTouchPlan.planned(t, kind: "pinch", center: Point(100, 2000), scale: 2, durationMs: 0) else {
            return XCTFail("a pinch with nothing named under it must be refused")
        }
        XCTAssertEqual(try MultiTouchPlan.planned(t, kind: "pinch", center: Point(500, 800), scale: 2, durationMs: 0).get().identifier,
                       "photo")
        XCTAssertNil(try MultiTouchPlan.planned(t, kind: "pinch", center: Point(590, 1278), scale: 2, durationMs: 0).get().identifier,
                     "the screen's centre: the application itself")
    }

    /// `UIScreen.scale` is not the screenshot's pixel ratio on Plus models and with Display Zoom.
    func testIosPixelRatioIsTheScreenshotsNotUIScreenScale() {
        var r = PixelRatio()
        let plus = ScreenGeometry(scale: 3, rotation: 0, nativeScale: nil, widthPoints: 414)
        XCTAssertEqual(r.ratio(plus), 3, "nothing measured, no native scale: the nominal one")
        XCTAssertEqual(r.ratio(ScreenGeometry(scale: 3, nativeScale: 2.608, widthPoints: 414)), 2.608)
        r.measured(pixelWidth: 1080, at: plus)
        XCTAssertEqual(r.ratio(plus), 1080.0 / 414, accuracy: 1e-9)
        XCTAssertEqual(r.ratio(ScreenGeometry(scale: 3, rotation: 90, widthPoints: 736)), 3, "per geometry")
        r.measured(pixelWidth: 131, at: plus)  // a thumbnail: ignored
        XCTAssertEqual(r.ratio(plus), 1080.0 / 414, accuracy: 1e-9)
    }

    /// The hit test treated only keyboards, alerts and sheets as covering.
    func testIosTabBarsNavigationBarsAndFloatingButtonsCoverATarget() {
        let app = ElementSnapshot(type: .application, frame: Rect(0, 0, 393, 852), children: [
            ElementSnapshot(type: .window, frame: Rect(0, 0, 393, 852), children: [
                ElementSnapshot(type: .other, frame: Rect(0, 0, 393, 852), children: [
                    ElementSnapshot(type: .staticText, identifier: "under-bar", label: "A", frame: Rect(0, 790, 393, 40)),
                    ElementSnapshot(type: .staticText, identifier: "under-nav", label: "B", frame: Rect(0, 60, 393, 30)),
                    ElementSnapshot(type: .staticText, identifier: "under-fab", label: "C", frame: Rect(300, 600, 60, 40)),
                ]),
                ElementSnapshot(type: .navigationBar, frame: Rect(0, 47, 393, 50)),
                ElementSnapshot(type: .button, identifier: "fab", label: "Add", frame: Rect(290, 590, 80, 60)),
                ElementSnapshot(type: .tabBar, frame: Rect(0, 769, 393, 83)),
            ]),
        ])
        let record = SnapshotConverter().convert(ScreenCapture(scale: 3, roots: [CapturedRoot(bundleId: "a.b", system: false, tree: app)]),
                                                 captureId: 1).1
        for (id, what) in [("under-bar", "the tab bar"), ("under-nav", "the navigation bar"), ("under-fab", "a button drawn over it")] {
            let e = record.elements.first { $0.element.identifier == id }!
            guard case .refuse(let why) = Reachability.check(e, in: record) else {
                return XCTFail("\(id) must not be tapped through \(what): \(Reachability.check(e, in: record))")
            }
            XCTAssertTrue(why.contains(what), why)
        }
    }
}

/// Primitives that do nothing (deadline arithmetic only).
final class NullPrimitives: DevicePrimitives, @unchecked Sendable {
    let deviceInfo = DeviceInfo(id: "null")
    let capabilities = ["tree"]
    func screen() throws -> ScreenGeometry { ScreenGeometry(scale: 3) }
    func runningApps() throws -> [RunningApp] { [] }
    func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot { ElementSnapshot(type: .application, frame: Rect(0, 0, 1, 1)) }
    func tap(x: Double, y: Double) throws {}
    func longPress(x: Double, y: Double, seconds: Double) throws {}
    func drag(_ plan: DragPlan) throws {}
    func typeText(_ text: String) throws {}
    func typeKey(_ key: KeyName) throws {}
    func pressHome() throws {}
    func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome { .success }
    func screenshotPNG() throws -> [UInt8] { [] }
    func setChangeListener(_ listener: (@Sendable () -> Void)?) {}
    func health() -> String? { nil }
}
