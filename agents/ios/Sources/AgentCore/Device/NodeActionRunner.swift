import Foundation

/// The dispatch chain of a node action on iOS, over XCUITest-level primitives.
///
/// XCUITest has no accessibility "press": `XCUIElement.tap()` itself synthesizes a touch at the
/// element's hit point, and `typeText` types into the focused element. So an element's own
/// action here is a tap at the centre of its frame in the live snapshot, or typing into it,
/// reported as ACCESSIBILITY_ACTION when the element's type is one XCUITest treats as tappable
/// (`ElementType.isClickable`) or editable. Order, as on Android: the element itself; for taps,
/// when allowed, up to `maxAncestors` tappable ancestors whose frames contain it
/// (ACCESSIBILITY_ACTION_ANCESTOR); for scrolls the nearest scrollable ancestor; then, only when
/// the hub allowed gestures, a tap at the centre of the element's frame (GESTURE_FALLBACK).
/// Setting text focuses the field with a tap when it has no focus, deletes what it holds (its
/// length is known from the snapshot; a secure field reports one bullet per character), then
/// types the text at the configured pace.
public enum NodeActionRunner {
    public static let maxAncestors = 3
    public static let maxScrollAncestors = 8
    public static let longPressSeconds = 1.0

    public static func run(_ cmd: NodeActionCommand, live: CapturedElement, in record: CaptureRecord,
                           primitives p: DevicePrimitives, pace: TypingPace) throws -> Outcome {
        switch cmd.action {
        case .click, .longClick:
            return try tap(cmd, live, record, p, long: cmd.action == .longClick)
        case .setText, .clearText:
            return try setText(cmd, live, p, pace)
        case .scrollForward, .scrollBackward:
            return try scroll(cmd, live, record, p)
        case .focus:
            guard live.type?.isEditable == true else { return .unsupported("only text inputs take focus here") }
            try p.tap(x: live.element.frame.midX, y: live.element.frame.midY)
            return .ok(.accessibilityAction)
        default:
            return .unsupported("\(cmd.action.rawValue) has no XCUITest equivalent")
        }
    }

    private static func hasArea(_ r: Rect) -> Bool { r.width > 0 && r.height > 0 }

    private static func press(_ p: DevicePrimitives, _ r: Rect, long: Bool) throws {
        if long {
            try p.longPress(x: r.midX, y: r.midY, seconds: longPressSeconds)
        } else {
            try p.tap(x: r.midX, y: r.midY)
        }
    }

    private static func tap(_ cmd: NodeActionCommand, _ live: CapturedElement, _ record: CaptureRecord,
                            _ p: DevicePrimitives, long: Bool) throws -> Outcome {
        let own = live.element.frame
        if live.type?.isClickable == true && hasArea(own) {
            try press(p, own, long: long)
            return .ok(.accessibilityAction)
        }
        if cmd.allowAncestor && hasArea(own) {
            var i = live.parent
            var steps = 0
            while i >= 0 && steps < maxAncestors {
                let a = record.elements[i]
                if a.type?.isClickable == true && contains(a.element.frame, own) {
                    try press(p, a.element.frame, long: long)
                    return .ok(.ancestor)
                }
                i = a.parent
                steps += 1
            }
        }
        if cmd.allowGesture {
            guard hasArea(own) else { return .failed("the element has no area to tap") }
            try press(p, own, long: long)
            return .ok(.gestureFallback)
        }
        return .unsupported("neither the element nor a containing ancestor is of a tappable type, and gestures are not allowed")
    }

    private static func setText(_ cmd: NodeActionCommand, _ live: CapturedElement, _ p: DevicePrimitives,
                                _ pace: TypingPace) throws -> Outcome {
        let text = cmd.action == .clearText ? "" : cmd.text
        guard let t = text else { return .fail(.badCommand, "SET_TEXT needs text") }
        guard live.type?.isEditable == true else { return .unsupported("the element is not a text input") }
        guard live.element.enabled else { return .failed("the text input is disabled") }
        let frame = live.element.frame
        if !live.element.hasFocus {
            guard hasArea(frame) else { return .failed("the text input has no area to tap") }
            try p.tap(x: frame.midX, y: frame.midY)
        }
        var existing = live.element.value ?? ""
        if existing == live.element.placeholder { existing = "" }  // XCUITest reports the placeholder of an empty field
        let deletes = String(repeating: KeyText.delete, count: existing.count)
        if !deletes.isEmpty { try p.typeText(deletes) }
        for (chunk, pause) in pace.plan(t) {
            try p.typeText(chunk)
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1000) }
        }
        return .ok(.accessibilityAction)
    }

    private static func scroll(_ cmd: NodeActionCommand, _ live: CapturedElement, _ record: CaptureRecord,
                               _ p: DevicePrimitives) throws -> Outcome {
        var target: CapturedElement?
        var method = ActionMethod.accessibilityAction
        if live.type?.isScrollable == true {
            target = live
        } else if cmd.allowAncestor {
            var i = live.parent
            var steps = 0
            while i >= 0 && steps < maxScrollAncestors {
                if record.elements[i].type?.isScrollable == true {
                    target = record.elements[i]
                    method = .ancestor
                    break
                }
                i = record.elements[i].parent
                steps += 1
            }
        }
        guard let s = target else { return .unsupported("neither the element nor an ancestor is scrollable") }
        let r = s.element.frame
        guard hasArea(r) else { return .failed("the scroll view has no area to swipe in") }
        let low = r.y + r.height * 0.75, high = r.y + r.height * 0.25
        let forward = cmd.action == .scrollForward
        try p.drag(fromX: r.midX, fromY: forward ? low : high, toX: r.midX, toY: forward ? high : low, seconds: 0.3)
        return .ok(method)
    }

    static func contains(_ outer: Rect, _ inner: Rect) -> Bool {
        outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.width >= inner.x + inner.width
            && outer.y + outer.height >= inner.y + inner.height
    }
}
