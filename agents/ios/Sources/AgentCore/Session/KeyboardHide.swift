/// How the keyboard is hidden, decided from one capture (pure; issue 34). Keys that only hide
/// it come first ("Hide keyboard", "Dismiss keyboard", a toolbar's "Done"), in English, German
/// and Japanese; the Return key only when the field with keyboard focus is single-line (in a
/// text view Return types a newline, so it is never pressed there); for a text view, a short
/// drag down from just above the keyboard (interactive dismissal, as scroll views offer it).
/// Whatever was done, the caller captures again and reports failure while a keyboard still
/// shows (WebDriverAgent: "the keyboard cannot be dismissed"; appium-adb checks too).
public enum KeyboardHide: Equatable, Sendable {
    case notShown
    case tap(Point, what: String)
    case dragDown(from: Point, to: Point)
    case refuse(String)

    static let hideWords: Set<String> = ["hide keyboard", "dismiss keyboard", "tastatur ausblenden", "キーボードを閉じる"]
    static let doneWords: Set<String> = ["done", "fertig", "完了"]
    static let returnIds: Set<String> = ["return", "Return", "\n"]
    static let singleLine: Set<String> = ["TextField", "SecureTextField", "SearchField"]

    public static func plan(_ tree: RawTree) -> KeyboardHide {
        let kinds = tree.nodes.map(DeviceCapabilities.kind)
        guard let keyboard = kinds.firstIndex(of: "Keyboard") else { return .notShown }
        let inKeyboard = tree.nodes.indices.filter { DeviceCapabilities.isInside(tree.nodes[$0], keyboard, tree) }
        let keys = inKeyboard.filter { ["Button", "Key"].contains(kinds[$0]) }.map { tree.nodes[$0] }
        let lower = { (n: RawNode) in DeviceCapabilities.normalized(n) }
        if let k = keys.first(where: { hideWords.contains(lower($0)) }), let at = DeviceCapabilities.centre(k) {
            return .tap(at, what: "the hide-keyboard key")
        }
        let done = tree.nodes.indices.first { i in
            let n = tree.nodes[i]
            guard kinds[i] == "Button", doneWords.contains(lower(n)) else { return false }
            var p = n.parent
            var steps = 0
            while p >= 0 && p < tree.nodes.count && steps < 64 {
                if kinds[p] == "Toolbar" || p == keyboard { return true }
                p = tree.nodes[p].parent
                steps += 1
            }
            return false
        }
        if let i = done, let at = DeviceCapabilities.centre(tree.nodes[i]) { return .tap(at, what: "the toolbar's Done button") }
        let focused = tree.focus.flatMap { f in tree.nodes.first { $0.handle == f } }
            ?? tree.nodes.first { $0.focused && $0.editable }
        let focusKind = focused.map(DeviceCapabilities.kind)
        if let fk = focusKind, singleLine.contains(fk),
           let k = keys.first(where: { returnIds.contains($0.automationId ?? "") || lower($0) == "return" }),
           let at = DeviceCapabilities.centre(k) {
            return .tap(at, what: "the Return key")
        }
        if focusKind == "TextView", let kb = tree.nodes[keyboard].bounds, let fb = focused?.bounds {
            let x = (fb.left + fb.right) / 2
            let from = max(fb.top + 1, min(kb.top - 10, fb.bottom - 1))
            return .dragDown(from: Point(x, from), to: Point(x, kb.bottom - 1))
        }
        return .refuse("the keyboard shows no hide key or Done button, and Return would act on the focused element; recovery: tap the app's own close or Done button, then retry")
    }

    /// Hides the keyboard of `backend`'s screen as `plan` says, then captures again: a keyboard
    /// still shown is a failure, never a success. `nextCapture` hands out capture ids; `acted`
    /// is called once something was done (UI thread).
    public static func perform(_ backend: UiBackend, nextCapture: () -> Int, acted: () -> Void) throws -> Outcome {
        let what: String
        switch plan(try backend.capture(nextCapture())) {
        case .notShown: return .success
        case .refuse(let why): return .unsupported(why)
        case .tap(let at, let w):
            what = w
            let o = try backend.gesture(kind: "tap", points: [at], durationMs: 0)
            if !o.ok { return o }
        case .dragDown(let from, let to):
            what = "a drag down over the text view"
            let o = try backend.gesture(kind: "swipe", points: [from, to], durationMs: 300)
            if !o.ok { return o }
        }
        acted()
        if plan(try backend.capture(nextCapture())) == .notShown { return .success }
        return .failed("the keyboard still shows after \(what); recovery: tap the app's own close or Done button, then retry")
    }
}
