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

    func testTheKeyboardIsHiddenByItsReturnKeyInASingleLineField() {
        var t = RawTree(capture: 1, platform: .ios)
        XCTAssertEqual(KeyboardHide.plan(t), .notShown)
        t.nodes = [node(0, -1, "TextField", "Name"), node(1, -1, "Keyboard", nil), node(2, 1, "Button", "q"),
                   node(3, 1, "Button", "return")]
        t.focus = 0
        guard case .tap(_, let what) = KeyboardHide.plan(t) else { return XCTFail("\(KeyboardHide.plan(t))") }
        XCTAssertEqual(what, "the Return key")
    }

    // MARK: issue 34

    /// Keyboard hide tapped "return" whatever had focus: in a text view that types a newline
    /// and the keyboard stays. Now Return is never pressed there; a hide key or Done wins.
    func testIosKeyboardHideNeverPressesReturnInAMultiLineTextView() {
        var t = RawTree(capture: 1, platform: .ios)
        t.nodes = [node(0, -1, "TextView", "Notes"), node(1, -1, "Keyboard", nil), node(2, 1, "Button", "return")]
        t.nodes[1].bounds = Bounds(0, 1656, 1179, 2556)
        t.nodes[0].bounds = Bounds(63, 240, 1116, 1140)
        t.focus = 0
        guard case .dragDown(let from, let to) = KeyboardHide.plan(t) else { return XCTFail("\(KeyboardHide.plan(t))") }
        XCTAssertLessThan(from.y, to.y)
        XCTAssertLessThan(from.y, 1140, "starts inside the text view")
        t.nodes.append(node(3, 1, "Button", "Tastatur ausblenden"))
        XCTAssertEqual(KeyboardHide.plan(t), .tap(Point(50, 50), what: "the hide-keyboard key"))
    }

    private func localized(_ toggle: (String, String), _ answers: [(String, Bounds)]) -> DeviceCapabilities.FoundAlert {
        var t = RawTree(capture: 1, platform: .ios)
        t.nodes = [node(0, -1, "Alert", "Standort"), node(1, 0, "Other", nil), node(2, 1, "Button", toggle.0)]
        t.nodes[2].value = toggle.1
        for (i, (label, b)) in answers.enumerated() {
            var n = node(3 + i, 0, "Button", label)
            n.bounds = b
            t.nodes.append(n)
        }
        return DeviceCapabilities.alerts(t)[0]
    }

    /// Alert answers were chosen by English words, else the first/last button: on the iOS 17
    /// location prompt the first button is the "Precise" toggle. Now German and Japanese words
    /// count, a toggle is never an answer, and without a known word iOS's placement decides.
    func testIosAlertButtonsAreChosenInGermanAndJapaneseNeverTheToggle() throws {
        let de = localized(("Genau", "Ein"), [("Einmal erlauben", Bounds(0, 400, 300, 444)),
                                              ("Beim Verwenden der App erlauben", Bounds(0, 444, 300, 488)),
                                              ("Nicht erlauben", Bounds(0, 488, 300, 532))])
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(de, "dismiss", nil).get()), "nicht erlauben")
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(de, "accept", nil).get()), "einmal erlauben")
        let ja = localized(("正確な位置情報", "オン"), [("許可しない", Bounds(0, 400, 150, 444)), ("許可", Bounds(150, 400, 300, 444))])
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(ja, "dismiss", nil).get()), "許可しない")
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(ja, "accept", nil).get()), "許可")
        // Words nobody listed: a row puts the default on the right, a stack on top.
        let row = localized(("x", "1"), [("Lorem", Bounds(0, 400, 150, 444)), ("Ipsum", Bounds(150, 400, 300, 444))])
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(row, "accept", nil).get()), "ipsum")
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(row, "dismiss", nil).get()), "lorem")
        let stack = localized(("x", "1"), [("Lorem", Bounds(0, 400, 300, 444)), ("Ipsum", Bounds(0, 444, 300, 488)),
                                           ("Dolor", Bounds(0, 488, 300, 532))])
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(stack, "accept", nil).get()), "lorem")
        XCTAssertEqual(DeviceCapabilities.normalized(try DeviceCapabilities.choose(stack, "dismiss", nil).get()), "dolor")
    }
}
