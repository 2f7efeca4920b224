@testable import AgentCore
import XCTest

/// Alerts found in a capture and the button each answer taps; the keyboard's hide key.
final class DeviceCapabilitiesTests: XCTestCase {
    private func node(_ h: Int, _ parent: Int, _ cls: String, _ label: String?, window: Int = 2) -> RawNode {
        var n = RawNode(handle: h, parent: parent)
        n.className = cls
        n.label = label
        n.window = window
        n.bounds = Bounds(0, 0, 100, 100)
        return n
    }

    private func permissionAlert() -> RawTree {
        var t = RawTree(capture: 1, platform: .ios)
        var w = RawWindow(id: 2)
        w.type = "system"
        w.package = "com.apple.springboard"
        t.windows = [w]
        t.nodes = [node(0, -1, "Alert", "“Demo” Would Like to Access the Camera"),
                   node(1, 0, "StaticText", "Scan receipts"),
                   node(2, 0, "Button", "Don’t Allow"),
                   node(3, 0, "Button", "Allow")]
        return t
    }

    func testASpringBoardPermissionAlertIsListedAndAnswered() throws {
        let found = DeviceCapabilities.alerts(permissionAlert())
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found[0].info.buttons, ["Don’t Allow", "Allow"])
        XCTAssertEqual(found[0].info.message, "Scan receipts")
        XCTAssertTrue(found[0].info.system)
        XCTAssertEqual(try DeviceCapabilities.choose(found[0], "accept", nil).get().handle, 3)
        XCTAssertEqual(try DeviceCapabilities.choose(found[0], "dismiss", nil).get().handle, 2)
        XCTAssertEqual(try DeviceCapabilities.choose(found[0], "press", "allow").get().handle, 3)
        guard case .failure(let why) = DeviceCapabilities.choose(found[0], "press", "Later") else { return XCTFail() }
        XCTAssertTrue(why.message.contains("its buttons: Don’t Allow, Allow"))
    }

    func testTheKeyboardIsHiddenByItsReturnKey() {
        var t = RawTree(capture: 1, platform: .ios)
        XCTAssertFalse(DeviceCapabilities.hideKey(t).shown)
        t.nodes = [node(0, -1, "Keyboard", nil), node(1, 0, "Button", "q"), node(2, 0, "Button", "return")]
        let (shown, key) = DeviceCapabilities.hideKey(t)
        XCTAssertTrue(shown)
        XCTAssertEqual(key?.handle, 2)
    }
}
