import Foundation

/// The dispatch chain of a node action on iOS, over XCUITest-level primitives.
///
/// XCUITest has no accessibility "press": `XCUIElement.tap()` itself synthesizes a touch at the
/// element's hit point, and `typeText` types into the element with keyboard focus. So an
/// element's own action here is a tap at its hit point in the live snapshot, or typing into it,
/// reported as ACCESSIBILITY_ACTION when the element's type is one XCUITest treats as tappable
/// (`ElementType.isClickable`) or editable. Order, as on Android: the element itself; for taps,
/// when allowed, up to `maxAncestors` tappable ancestors whose frames contain it
/// (ACCESSIBILITY_ACTION_ANCESTOR); for scrolls the nearest scrollable ancestor; then, only when
/// the hub allowed gestures, a tap on the element (GESTURE_FALLBACK).
///
/// Before any touch the element is checked with `Reachability` on the live snapshot: a hidden
/// element inside a scroll view is scrolled into view (at most `maxScrollSteps` drags, a fresh
/// snapshot after each); one that stays off screen or covered is refused `NOT_VISIBLE` — the
/// covering keyboard or alert is never tapped.
///
/// Setting text: a field without keyboard focus is tapped near the end of its visible part (the
/// caret goes to the end), and must then report keyboard focus (when the layer can read it);
/// its old value is deleted by its length from the end (a secure field reports one bullet per
/// character); the text is typed at the configured pace; the value is then read back and, when
/// it differs, cleared and typed once more before the action fails. Messages never contain the
/// field's value or the text.
public enum NodeActionRunner {
    public static let maxAncestors = 3
    public static let maxScrollAncestors = 8
    public static let maxScrollSteps = 8
    public static let longPressSeconds = 1.0

    /// What a node action needs besides the element: the primitives, the typing pace, the
    /// current scale (drag velocity) and a fresh snapshot on demand.
    public struct Context {
        public var primitives: DevicePrimitives
        public var pace: TypingPace
        public var scale: Double
        public var refresh: () throws -> CaptureRecord
        /// Called before each input event with its kind, so the layer bounds XCTest's idle wait
        /// for it (a tap or scroll at the node-action bound, typing at the typing bound).
        public var waitFor: (QuiescencePolicy.Kind) -> Void = { _ in }

        public init(primitives: DevicePrimitives, pace: TypingPace, scale: Double, refresh: @escaping () throws -> CaptureRecord) {
            self.primitives = primitives
            self.pace = pace
            self.scale = scale
            self.refresh = refresh
        }
    }

    public static func run(_ cmd: NodeActionCommand, live: CapturedElement, in record: CaptureRecord,
                           context c: Context) throws -> Outcome {
        switch cmd.action {
        case .click, .longClick:
            return try tap(cmd, live, record, c, long: cmd.action == .longClick)
        case .setText, .clearText:
            return try setText(cmd, live, record, c)
        case .scrollForward, .scrollBackward:
            return try scroll(cmd, live, record, c)
        case .focus:
            guard live.type?.isEditable == true else { return .unsupported("only text inputs take focus here") }
            switch try reach(live, record, c) {
            case .refused(let o): return o
            case .ok(let e, let r, _, _):
                try tapAtEnd(e, r, c)
                return .ok(.accessibilityAction)
            }
        default:
            return .unsupported("\(cmd.action.rawValue) has no XCUITest equivalent")
        }
    }

    private static func hasArea(_ r: Rect) -> Bool { r.width > 0 && r.height > 0 }

    enum Reached {
        case ok(CapturedElement, CaptureRecord, Double, Double)
        case refused(Outcome)
    }

    /// The element (found again after each scroll) in view, with the record it was found in and
    /// its hit point; or the refusal.
    static func reach(_ target: CapturedElement, _ record: CaptureRecord, _ c: Context)
        throws -> Reached {
        var t = target, r = record
        for step in 0...maxScrollSteps {
            switch Reachability.check(t, in: r) {
            case .visible(let x, let y):
                return .ok(t, r, x, y)
            case .refuse(let why):
                return .refused(.fail(.notVisible, why))
            case .scroll(_, let dy, let viewport):
                if step == maxScrollSteps { break }
                let d = max(-0.8 * viewport.height, min(0.8 * viewport.height, dy))
                var plan = DragPlan.between(fromX: viewport.midX, fromY: viewport.midY + d / 2, toX: viewport.midX,
                                            toY: viewport.midY - d / 2, seconds: 0.4, scale: c.scale)
                plan.holdSeconds = 0.1  // stop before lifting: no momentum past the element
                c.waitFor(.nodeAction)
                try c.primitives.drag(plan)
                r = try c.refresh()
                guard let again = r.find(path: t.path) else {
                    return .refused(.notFound("the element is gone after scrolling it into view"))
                }
                t = again
            }
        }
        return .refused(.fail(.notVisible, "\(Reachability.notVisible): still not in view after \(maxScrollSteps) scrolls; recovery: scroll towards it, then find it again"))
    }

    private static func press(_ c: Context, _ x: Double, _ y: Double, long: Bool) throws {
        c.waitFor(.nodeAction)
        let p = c.primitives
        if long {
            try p.longPress(x: x, y: y, seconds: longPressSeconds)
        } else {
            try p.tap(x: x, y: y)
        }
    }

    private static func pressReached(_ e: CapturedElement, _ r: CaptureRecord, _ c: Context, long: Bool,
                                     _ method: ActionMethod) throws -> Outcome {
        switch try reach(e, r, c) {
        case .refused(let o): return o
        case .ok(_, _, let x, let y):
            try press(c, x, y, long: long)
            return .ok(method)
        }
    }

    private static func tap(_ cmd: NodeActionCommand, _ live: CapturedElement, _ record: CaptureRecord,
                            _ c: Context, long: Bool) throws -> Outcome {
        let own = live.element.frame
        if live.type?.isClickable == true && hasArea(own) {
            return try pressReached(live, record, c, long: long, .accessibilityAction)
        }
        if cmd.allowAncestor && hasArea(own) {
            var i = live.parent
            var steps = 0
            while i >= 0 && steps < maxAncestors {
                let a = record.elements[i]
                if a.type?.isClickable == true && contains(a.element.frame, own) {
                    return try pressReached(a, record, c, long: long, .ancestor)
                }
                i = a.parent
                steps += 1
            }
        }
        if cmd.allowGesture {
            guard hasArea(own) else { return .failed("the element has no area to tap") }
            return try pressReached(live, record, c, long: long, .gestureFallback)
        }
        return .unsupported("neither the element nor a containing ancestor is of a tappable type, and gestures are not allowed")
    }

    /// A tap near the right end of the element's visible part (puts the caret at the end).
    private static func tapAtEnd(_ e: CapturedElement, _ r: CaptureRecord, _ c: Context) throws {
        let v = Reachability.visibleRect(of: e, in: r)
        let y: Double
        if case .visible(_, let hy) = Reachability.check(e, in: r) { y = hy } else { y = v.midY }
        c.waitFor(.nodeAction)
        try c.primitives.tap(x: v.maxX - min(4, v.width / 4), y: y)
    }

    /// Keyboard focus as the snapshot reports it; nil when the layer cannot read it.
    static func keyboardFocus(_ e: CapturedElement) -> Bool? { e.element.hasKeyboardFocus }

    /// What the field holds: "" for an empty one (XCUITest reports the placeholder there).
    static func content(_ e: CapturedElement) -> String {
        let v = e.element.value ?? ""
        return v == e.element.placeholder ? "" : v
    }

    private static func holds(_ e: CapturedElement, _ text: String) -> Bool {
        let got = content(e)
        if e.type?.isSecure == true { return got.count == text.count }  // one bullet per character
        return got == text
    }

    private static func type(_ text: String, _ c: Context) throws {
        c.waitFor(.typing)
        for (chunk, pause) in c.pace.plan(text) {
            try c.primitives.typeText(chunk)
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1000) }
        }
    }

    private static func setText(_ cmd: NodeActionCommand, _ live: CapturedElement, _ record: CaptureRecord,
                                _ c: Context) throws -> Outcome {
        let text = cmd.action == .clearText ? "" : cmd.text
        guard let t = text else { return .fail(.badCommand, "SET_TEXT needs text") }
        guard live.type?.isEditable == true else { return .unsupported("the element is not a text input") }
        guard live.element.enabled else { return .failed("the text input is disabled") }
        var field = live, r = record
        let focused = keyboardFocus(field) ?? field.element.hasFocus
        if !focused {
            switch try reach(field, r, c) {
            case .refused(let o): return o
            case .ok(let e, let er, _, _):
                try tapAtEnd(e, er, c)
            }
            r = try c.refresh()
            guard let again = r.find(path: field.path) else { return .notFound("the text input is gone after tapping it") }
            field = again
            if keyboardFocus(field) == false {
                return .failed("the text input did not get keyboard focus when tapped; recovery: dismiss what covers it, or FOCUS it, then retry")
            }
        }
        for attempt in 0..<2 {
            let old = content(field)
            if attempt > 0 {
                try tapAtEnd(field, r, c)  // the caret may not have been at the end
            }
            if !old.isEmpty {
                c.waitFor(.typing)
                try c.primitives.typeText(String(repeating: KeyText.delete, count: old.count))
            }
            try type(t, c)
            r = try c.refresh()
            guard let after = r.find(path: field.path) else { return .notFound("the text input is gone after typing") }
            field = after
            if holds(field, t) { return .ok(.accessibilityAction) }
        }
        return .failed("the text input holds \(content(field).count) characters after typing \(t.count) (typed twice); recovery: read the field and retry")
    }

    private static func scroll(_ cmd: NodeActionCommand, _ live: CapturedElement, _ record: CaptureRecord,
                               _ c: Context) throws -> Outcome {
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
        let r = Reachability.visibleRect(of: s, in: record)
        guard hasArea(r) else { return .failed("the scroll view has no area to swipe in") }
        let low = r.y + r.height * 0.75, high = r.y + r.height * 0.25
        let forward = cmd.action == .scrollForward
        c.waitFor(.nodeAction)
        try c.primitives.drag(DragPlan.between(fromX: r.midX, fromY: forward ? low : high, toX: r.midX,
                                               toY: forward ? high : low, seconds: 0.3, scale: c.scale))
        return .ok(method)
    }

    static func contains(_ outer: Rect, _ inner: Rect) -> Bool {
        outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.width >= inner.x + inner.width
            && outer.y + outer.height >= inner.y + inner.height
    }
}
