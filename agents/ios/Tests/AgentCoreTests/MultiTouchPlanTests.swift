@testable import AgentCore
import XCTest

/// The element a pinch or two-finger tap goes to, and the pinch's signed velocity.
final class MultiTouchPlanTests: XCTestCase {
    private func node(_ h: Int, _ id: String?, _ b: Bounds) -> RawNode {
        var n = RawNode(handle: h, parent: h == 0 ? -1 : 0)
        n.automationId = id
        n.bounds = b
        return n
    }

    private func screen() -> RawTree {
        var t = RawTree(capture: 1, platform: .ios)
        t.package = "com.example.photos"
        t.nodes = [node(0, "root", Bounds(0, 0, 1170, 2532)),
                   node(1, "photo", Bounds(0, 300, 1170, 1500)),
                   node(2, "badge", Bounds(100, 400, 200, 500)),
                   node(3, "cell", Bounds(0, 1600, 1170, 1800)),
                   node(4, "cell", Bounds(0, 1800, 1170, 2000)),
                   node(5, nil, Bounds(500, 900, 600, 1000))]
        return t
    }

    func testThePinchGoesToTheSmallestUniquelyNamedElementUnderTheCentre() {
        let p = MultiTouchPlan.plan(screen(), kind: "pinch", center: Point(585, 900), scale: 2, durationMs: 500)
        XCTAssertEqual(p.identifier, "photo")  // node 5 is smaller but has no identifier
        XCTAssertEqual(p.bundleId, "com.example.photos")
        XCTAssertEqual(p.gesture, .pinch(scale: 2, velocity: 2))
        XCTAssertEqual(MultiTouchPlan.target(screen(), Point(150, 450)), "badge")
    }

    func testAnIdentifierSharedByTwoElementsIsNotATargetAndTheAppIsTheFallback() {
        // Both cells are "cell": the identifier query could find the other one, so the next
        // uniquely named element around the point is used ("root"), and off every element, none.
        XCTAssertEqual(MultiTouchPlan.target(screen(), Point(585, 1700)), "root")
        XCTAssertNil(MultiTouchPlan.target(screen(), Point(5000, 5000)))
        let tap = MultiTouchPlan.plan(RawTree(capture: 1, platform: .ios), kind: "two_finger_tap",
                                      center: Point(10, 10), scale: 1, durationMs: 0)
        XCTAssertEqual(tap.gesture, .twoFingerTap)
        XCTAssertNil(tap.identifier)
    }

    func testVelocityIsPositiveToZoomInAndNegativeToZoomOut() {
        XCTAssertEqual(MultiTouchPlan.velocity(scale: 3, durationMs: 1000), 2)
        XCTAssertEqual(MultiTouchPlan.velocity(scale: 0.5, durationMs: 250), -2)
        // No duration: the default half second; a tiny change still moves at the minimum speed.
        XCTAssertEqual(MultiTouchPlan.velocity(scale: 2, durationMs: 0), 2)
        XCTAssertEqual(MultiTouchPlan.velocity(scale: 1.01, durationMs: 1000), MultiTouchPlan.minSpeed)
        XCTAssertEqual(MultiTouchPlan.velocity(scale: 0.99, durationMs: 1000), -MultiTouchPlan.minSpeed)
    }
}
