import AgentCore
import Foundation

/// The pathology scenes of host mode (`--scene NAME`), each reproducing one failure class a real
/// iPhone shows, as XCUITest would report it. The Java host builds the same list with the same
/// names and texts.
///
/// - `large`: a table of 200 rows "Row 1".."Row 200", each a cell with 4 children (~1,000 nodes);
/// - `deep`: 300 nested containers with the text "Deep leaf" at the bottom (XCTest fails an
///   unlimited snapshot that deep: `HostPrimitives` reproduces it);
/// - `busy`: "Tick N" changes every 100 ms and the app never goes idle; a button "Stop" (freezes
///   the ticker: the text becomes "Stopped at N") and a text field "Note";
/// - `prefilled`: a text field "Email" holding "old@example.com"; a tap puts the caret where it
///   lands (proportionally along the field), deletes go before the caret;
/// - `other-app`: Settings (`com.apple.Preferences`, cells "Wi-Fi" and "Bluetooth") is in front,
///   the demo app runs in the background;
/// - `landscape`: rotated (90), a button "Change scale" that switches the scale 3 <-> 2;
/// - `fold`: a focused field "Name" (keyboard up), a table of "Row 1".."Row 60" (50 pt each) where
///   "Row 40" is below the fold, and a button "Submit" under the keyboard; a tap on the keyboard
///   types "x", ENTER hides it; a drag scrolls the table unless it starts with a press of 0.5 s
///   or more (that opens a context menu);
/// - `system-dialog`: SpringBoard's alert window "Allow “Demo” to use your location?" with
///   "Allow" and "Don’t Allow" over the app, whose status "Ready" becomes "Location allowed" /
///   "Location denied";
/// - `long-text`: a text field "Bio" and a text of 2,000 characters;
/// - `settling` (issue 34): a button "Go" (status "Went N") and a field "Note"; the app animates
///   for 250 ms after every input event, then is idle (XCTest's wait ends there);
/// - `tab-bar`: a table of "Row 1".."Row 30" (50 pt each) under a tab bar (buttons "Home" and
///   "Settings", y 769..852): "Row 14" is half under it, "Row 15" wholly; a tap on the bar
///   switches the tab ("Tab Settings"), a tap on a row opens it ("Opened Row N");
/// - `alert-de`: SpringBoard's iOS 17 style location alert in German: a toggle "Genau" (value
///   "Ein") above three stacked answers "Einmal erlauben", "Beim Verwenden der App erlauben",
///   "Nicht erlauben";
/// - `alert-ja`: the same in Japanese with the answers in a row: "許可しない" left, "許可" right,
///   under the toggle "正確な位置情報" (value "オン");
/// - `plus`: an iPhone Plus: 414 x 736 points, `UIScreen.scale` 3 but 1080 pixels wide (native
///   scale 2.608); a button "Tap me" (status "Tapped");
/// - `notes`: a multi-line text view "Notes" holding "First line", with the keyboard up: Return
///   types a newline (the keyboard stays), a drag down from the text view hides the keyboard.
///
/// Fields report `hasFocus` false and `hasKeyboardFocus` true while they have the keyboard, as
/// on an iPhone. Not thread-safe: `HostPrimitives` holds its lock around every use.
public final class PathologyScene {
    public static let names = ["login", "large", "deep", "busy", "prefilled", "other-app", "landscape", "fold",
                               "system-dialog", "long-text", "settling", "tab-bar", "alert-de", "alert-ja", "plus",
                               "notes"]
    static let plusNative = 1080.0 / 414
    public static let settings = "com.apple.Preferences"
    static let demo = ScriptedApp.bundleId
    static let springboard = ScriptedApp.springboard
    static let w = ScriptedApp.width, h = ScriptedApp.height
    static let keyboardFrame = Rect(0, 552, w, 300)
    static let returnKey = Rect(290, 790, 100, 50)
    /// The 2,000-character text of `long-text` (the digits 0-9 over and over, every 50th a space).
    public static let longText: String = {
        var s = ""
        for i in 0..<2000 { s.append(i > 0 && i % 50 == 0 ? " " : Character(String(i % 10))) }
        return s
    }()

    public let name: String
    public var onChange: () -> Void = {}
    public private(set) var scale = ScriptedApp.scale
    public var landscape: Bool
    public private(set) var status = ""
    private var focus: String?
    private var values: [String: String] = [:]
    private var carets: [String: Int] = [:]
    private var offset = 0.0
    private var alertUp: Bool
    private let started = Date()

    public init?(_ name: String) {
        guard Self.names.contains(name), name != "login" else { return nil }
        self.name = name
        landscape = name == "landscape"
        alertUp = ["system-dialog", "alert-de", "alert-ja"].contains(name)
        switch name {
        case "prefilled": values["email"] = "old@example.com"
        case "fold": focus = "name"
        case "notes":
            values["notes"] = "First line"
            focus = "notes"
        default: break
        }
        for (k, v) in values { carets[k] = v.count }
    }

    public var neverIdle: Bool { name == "busy" }
    public var idleAfterMs: Int { name == "settling" ? 250 : 0 }
    public var alertShown: Bool { alertUp }
    public var nativeScale: Double? { name == "plus" ? Self.plusNative : nil }
    public var widthPoints: Double { name == "plus" ? 414 : (landscape ? Self.h : Self.w) }
    public var heightPoints: Double { name == "plus" ? 736 : (landscape ? Self.w : Self.h) }
    private var precise = true
    private var went = 0
    /// The tick counter of `busy`: one more every 100 ms.
    /// Tenths of a second since the scene started; frozen once "Stop" was tapped.
    public var tick: Int { stoppedAt ?? Int(Date().timeIntervalSince(started) * 10) }
    private var stoppedAt: Int?

    private var full: Rect { Rect(0, 0, widthPoints, heightPoints) }

    // MARK: trees

    public func roots() -> [CapturedRoot] {
        let front = name == "other-app" ? Self.settings : Self.demo
        var out = [CapturedRoot(bundleId: front, system: false, tree: tree(of: front)!)]
        if alertUp, let sb = tree(of: Self.springboard) { out.append(CapturedRoot(bundleId: Self.springboard, system: true, tree: sb)) }
        return out
    }

    public func runningApps() -> [RunningApp] {
        var apps = [RunningApp(bundleId: Self.demo, foreground: name != "other-app"),
                    RunningApp(bundleId: Self.springboard, foreground: true)]
        if name == "other-app" { apps.append(RunningApp(bundleId: Self.settings, foreground: true)) }
        return apps
    }

    public func tree(of bundleId: String) -> ElementSnapshot? {
        switch bundleId {
        case Self.demo:
            var windows = [ElementSnapshot(type: .window, frame: full, children: [content()])]
            if focus != nil {
                windows.append(ElementSnapshot(type: .window, frame: Self.keyboardFrame, children: [
                    ElementSnapshot(type: .keyboard, frame: Self.keyboardFrame, children: [
                        ElementSnapshot(type: .key, identifier: "Return", label: "return", frame: Self.returnKey),
                    ]),
                ]))
            }
            return ElementSnapshot(type: .application, label: "Mobridge Demo", frame: full, children: windows)
        case Self.settings where name == "other-app":
            return settingsTree()
        case Self.springboard:
            var windows: [ElementSnapshot] = []
            if alertUp && name != "system-dialog" {
                windows.append(ElementSnapshot(type: .window, frame: full, children: [localizedAlert()]))
            } else if alertUp {
                let box = Rect(66, 300, 270, 200)
                windows.append(ElementSnapshot(type: .window, frame: full, children: [
                    ElementSnapshot(type: .alert, label: "Allow “Demo” to use your location?", frame: box, children: [
                        ElementSnapshot(type: .staticText, label: "Allow “Demo” to use your location?", frame: Rect(82, 316, 238, 60)),
                        ElementSnapshot(type: .button, label: "Allow", frame: Rect(66, 412, 270, 44)),
                        ElementSnapshot(type: .button, label: "Don’t Allow", frame: Rect(66, 456, 270, 44)),
                    ]),
                ]))
            }
            return ElementSnapshot(type: .application, label: "SpringBoard", frame: full, children: windows)
        default:
            return nil
        }
    }

    /// The alert of `alert-de` / `alert-ja`: a toggle in its own group, then the answers.
    private func localizedAlert() -> ElementSnapshot {
        let de = name == "alert-de"
        let title = de ? "„Demo“ möchte deinen Standort verwenden" : "“Demo”に位置情報の使用を許可しますか?"
        let toggle = ElementSnapshot(type: .other, frame: Rect(66, 350, 270, 50), children: [
            ElementSnapshot(type: .button, label: de ? "Genau" : "正確な位置情報", value: de ? (precise ? "Ein" : "Aus") : (precise ? "オン" : "オフ"),
                            frame: Rect(100, 360, 200, 30)),
        ])
        var items = [ElementSnapshot(type: .staticText, label: title, frame: Rect(82, 306, 238, 40)), toggle]
        for (label, frame) in alertAnswers() {
            items.append(ElementSnapshot(type: .button, label: label, frame: frame))
        }
        return ElementSnapshot(type: .alert, label: title, frame: Rect(66, 300, 270, 250), children: items)
    }

    /// The answers of the localized alerts, with their frames; the last one denies.
    private func alertAnswers() -> [(String, Rect)] {
        if name == "alert-de" {
            return [("Einmal erlauben", Rect(66, 412, 270, 44)), ("Beim Verwenden der App erlauben", Rect(66, 456, 270, 44)),
                    ("Nicht erlauben", Rect(66, 500, 270, 44))]
        }
        return [("許可しない", Rect(66, 456, 135, 44)), ("許可", Rect(201, 456, 135, 44))]
    }

    private func field(_ id: String, _ label: String, _ frame: Rect, placeholder: String) -> ElementSnapshot {
        let v = values[id] ?? ""
        return ElementSnapshot(type: .textField, identifier: id, label: label, value: v.isEmpty ? placeholder : v,
                               placeholder: placeholder, frame: frame, hasFocus: false, hasKeyboardFocus: focus == id)
    }

    private func text(_ label: String, _ frame: Rect, id: String = "") -> ElementSnapshot {
        ElementSnapshot(type: .staticText, identifier: id, label: label, frame: frame)
    }

    private func content() -> ElementSnapshot {
        let area = landscape ? Rect(0, 0, Self.h, Self.w) : Rect(0, 59, Self.w, 759)
        var items: [ElementSnapshot] = []
        switch name {
        case "large":
            let rows = (1...200).map { i -> ElementSnapshot in
                let top = 59 + Double(i - 1) * 44
                return ElementSnapshot(type: .cell, frame: Rect(0, top, Self.w, 44), children: [
                    text("Row \(i)", Rect(21, top + 4, 200, 20)),
                    text("Detail \(i)", Rect(21, top + 24, 200, 16)),
                    ElementSnapshot(type: .image, identifier: "icon", frame: Rect(330, top + 10, 24, 24)),
                    ElementSnapshot(type: .button, label: "More", frame: Rect(355, top + 7, 30, 30)),
                ])
            }
            items = [ElementSnapshot(type: .table, identifier: "rows", frame: Rect(0, 59, Self.w, 793), children: rows)]
        case "deep":
            var node = text("Deep leaf", Rect(21, 400, 200, 20))
            for _ in 0..<300 { node = ElementSnapshot(type: .other, frame: Rect(0, 59, Self.w, 759), children: [node]) }
            items = [node]
        case "busy":
            items = [text(stoppedAt.map { "Stopped at \($0)" } ?? "Tick \(tick)", Rect(21, 80, 351, 30), id: "tick"),
                     ElementSnapshot(type: .button, label: "Stop", frame: Rect(21, 130, 351, 47)),
                     field("note", "Note", Rect(21, 190, 351, 47), placeholder: "Note")]
        case "prefilled":
            items = [text("Email", Rect(21, 80, 351, 24)),
                     field("email", "Email", Rect(21, 110, 351, 47), placeholder: "name@example.com")]
        case "landscape":
            items = [text("Landscape", Rect(21, 20, 300, 30)),
                     ElementSnapshot(type: .button, identifier: "scale", label: "Change scale", frame: Rect(21, 80, 300, 44)),
                     text("Scale \(Int(scale))", Rect(21, 140, 300, 30), id: "scale.value")]
        case "fold":
            let rows = (1...60).map { i -> ElementSnapshot in
                let top = 100 + Double(i - 1) * 50 - offset
                return ElementSnapshot(type: .cell, frame: Rect(0, top, Self.w, 50), children: [
                    text("Row \(i)", Rect(21, top + 15, 351, 20)),
                ])
            }
            items = [field("name", "Name", Rect(21, 60, 351, 38), placeholder: "Name"),
                     ElementSnapshot(type: .table, identifier: "rows", frame: Rect(0, 100, Self.w, 500), children: rows),
                     text(status, Rect(21, 610, 351, 30), id: "status"),
                     ElementSnapshot(type: .button, label: "Submit", frame: Rect(21, 700, 351, 47))]
        case "system-dialog":
            items = [text(status.isEmpty ? "Ready" : status, Rect(21, 80, 351, 30), id: "location")]
        case "long-text":
            items = [field("bio", "Bio", Rect(21, 80, 351, 47), placeholder: "Bio"),
                     text(Self.longText, Rect(21, 140, 351, 600), id: "long")]
        case "settling":
            items = [text(went == 0 ? "Ready" : "Went \(went)", Rect(21, 80, 351, 30), id: "status"),
                     ElementSnapshot(type: .button, label: "Go", frame: Rect(21, 130, 351, 47)),
                     field("note", "Note", Rect(21, 190, 351, 47), placeholder: "Note")]
        case "tab-bar":
            let rows = (1...30).map { i -> ElementSnapshot in
                let top = 100 + Double(i - 1) * 50 - offset
                return ElementSnapshot(type: .cell, frame: Rect(0, top, Self.w, 50), children: [
                    text("Row \(i)", Rect(21, top + 15, 351, 20)),
                ])
            }
            items = [text(status.isEmpty ? "Ready" : status, Rect(21, 65, 351, 30), id: "status"),
                     ElementSnapshot(type: .table, identifier: "rows", frame: Rect(0, 100, Self.w, 752), children: rows),
                     ElementSnapshot(type: .tabBar, identifier: "tabs", frame: Rect(0, 769, Self.w, 83), children: [
                         ElementSnapshot(type: .button, label: "Home", frame: Rect(0, 769, 196, 49)),
                         ElementSnapshot(type: .button, label: "Settings", frame: Rect(196, 769, 197, 49)),
                     ])]
        case "alert-de", "alert-ja":
            items = [text(status.isEmpty ? "Ready" : status, Rect(21, 80, 351, 30), id: "location")]
        case "plus":
            items = [text(status.isEmpty ? "Ready" : status, Rect(21, 80, 351, 30), id: "status"),
                     ElementSnapshot(type: .button, identifier: "tapme", label: "Tap me", frame: Rect(40, 300, 150, 50))]
        case "notes":
            let v = values["notes"] ?? ""
            items = [text("Notes", Rect(21, 40, 351, 30)),
                     ElementSnapshot(type: .textView, identifier: "notes", label: "Notes", value: v, frame: Rect(21, 80, 351, 300),
                                     hasFocus: false, hasKeyboardFocus: focus == "notes")]
        default:
            break
        }
        return ElementSnapshot(type: .other, identifier: "__screen_\(name)", frame: area, children: items)
    }

    private func settingsTree() -> ElementSnapshot {
        var cells = ["Wi-Fi", "Bluetooth"].enumerated().map { i, label -> ElementSnapshot in
            let top = 150 + Double(i) * 44
            return ElementSnapshot(type: .cell, identifier: label, frame: Rect(0, top, Self.w, 44), children: [
                text(label, Rect(21, top + 12, 200, 20)),
            ])
        }
        if !status.isEmpty { cells.append(text(status, Rect(21, 250, 351, 30), id: "status")) }
        return ElementSnapshot(type: .application, label: "Settings", frame: full, children: [
            ElementSnapshot(type: .window, frame: full, children: [
                ElementSnapshot(type: .navigationBar, identifier: "Settings", frame: Rect(0, 47, Self.w, 96), children: [
                    text("Settings", Rect(21, 90, 200, 40)),
                ]),
                ElementSnapshot(type: .table, frame: Rect(0, 143, Self.w, 709), children: cells),
            ]),
        ])
    }

    // MARK: input

    private func fieldFrame(_ id: String) -> Rect? {
        switch (name, id) {
        case ("busy", "note"): return Rect(21, 190, 351, 47)
        case ("prefilled", "email"): return Rect(21, 110, 351, 47)
        case ("fold", "name"): return Rect(21, 60, 351, 38)
        case ("long-text", "bio"): return Rect(21, 80, 351, 47)
        case ("settling", "note"): return Rect(21, 190, 351, 47)
        case ("notes", "notes"): return Rect(21, 80, 351, 300)
        default: return nil
        }
    }

    private func focusField(_ id: String, x: Double) {
        guard let f = fieldFrame(id) else { return }
        let count = (values[id] ?? "").count
        carets[id] = max(0, min(count, Int(((x - f.x) / f.width * Double(count)).rounded())))
        focus = id
        onChange()
    }

    public func tap(x: Double, y: Double) {
        if alertUp && name != "system-dialog" {  // the localized alerts
            if Rect(100, 360, 200, 30).contains(x: x, y: y) { precise.toggle(); status = "Precise \(precise ? "on" : "off")"; onChange(); return }
            let answers = alertAnswers()
            for (i, (_, f)) in answers.enumerated() where f.contains(x: x, y: y) {
                let deny = name == "alert-de" ? i == answers.count - 1 : i == 0
                status = deny ? "Location denied" : "Location allowed"
                alertUp = false
                onChange()
            }
            return
        }
        if alertUp {  // the system alert is modal
            if Rect(66, 412, 270, 44).contains(x: x, y: y) { status = "Location allowed"; alertUp = false; onChange() }
            if Rect(66, 456, 270, 44).contains(x: x, y: y) { status = "Location denied"; alertUp = false; onChange() }
            return
        }
        if focus != nil && !landscape && Self.keyboardFrame.contains(x: x, y: y) {
            if Self.returnKey.contains(x: x, y: y) { try? type("\n") } else { try? type("x") }
            return
        }
        for id in ["note", "email", "name", "bio", "notes"] {
            if let f = fieldFrame(id), f.contains(x: x, y: y) { focusField(id, x: x); return }
        }
        switch name {
        case "busy":
            if Rect(21, 130, 351, 47).contains(x: x, y: y), stoppedAt == nil { stoppedAt = tick; onChange() }
        case "landscape":
            if Rect(21, 80, 300, 44).contains(x: x, y: y) { scale = scale == 3 ? 2 : 3; onChange() }
        case "fold":
            if Rect(0, 100, Self.w, 500).contains(x: x, y: y) {
                let row = Int((y - 100 + offset) / 50) + 1
                if (1...60).contains(row) { status = "Opened Row \(row)"; onChange() }
            } else if Rect(21, 700, 351, 47).contains(x: x, y: y) {
                status = "Submitted"
                onChange()
            }
        case "other-app":
            if Rect(0, 150, Self.w, 44).contains(x: x, y: y) { status = "Wi-Fi opened"; onChange() }
        case "settling":
            if Rect(21, 130, 351, 47).contains(x: x, y: y) { went += 1; onChange() }
        case "tab-bar":
            if Rect(0, 769, Self.w, 83).contains(x: x, y: y) {
                status = x < 196 ? "Tab Home" : "Tab Settings"
                onChange()
            } else if Rect(0, 100, Self.w, 752).contains(x: x, y: y) {
                let row = Int((y - 100 + offset) / 50) + 1
                if (1...30).contains(row) { status = "Opened Row \(row)"; onChange() }
            }
        case "plus":
            if Rect(40, 300, 150, 50).contains(x: x, y: y) { status = "Tapped"; onChange() }
        default:
            break
        }
    }

    /// Types at the caret of the field with keyboard focus (`\u{8}` deletes before it, `\n`
    /// hides the keyboard).
    public func type(_ text: String) throws {
        guard let f = focus else { throw ScriptedApp.NoFocus() }
        var v = Array(values[f] ?? "")
        var caret = min(carets[f] ?? v.count, v.count)
        for c in text {
            switch c {
            case "\u{8}":
                if caret > 0 { v.remove(at: caret - 1); caret -= 1 }
            case "\n" where f == "notes", "\r" where f == "notes", "\r\n" where f == "notes":  // a text view takes the newline
                v.insert("\n", at: caret)
                caret += 1
            case "\n", "\r", "\r\n", "\u{1B}":
                focus = nil
            default:
                v.insert(c, at: caret)
                caret += 1
            }
            if focus == nil { break }
        }
        values[f] = String(v)
        carets[f] = caret
        onChange()
    }

    public func drag(_ plan: DragPlan) {
        if name == "notes" {  // interactive dismissal: a drag down from the text view
            if focus != nil, Rect(21, 80, 351, 300).contains(x: plan.fromX, y: plan.fromY), plan.toY > plan.fromY + 40 {
                focus = nil
                onChange()
            }
            return
        }
        if name == "tab-bar" {
            guard Rect(0, 100, Self.w, 669).contains(x: plan.fromX, y: plan.fromY) else { return }
            offset = max(0, min(30 * 50 - 669, offset + plan.fromY - plan.toY))
            onChange()
            return
        }
        guard name == "fold" else { return }
        if plan.pressSeconds >= 0.5 {  // a hold before the move: a context menu, not a scroll
            status = "Context menu"
            onChange()
            return
        }
        guard Rect(0, 100, Self.w, 500).contains(x: plan.fromX, y: plan.fromY) else { return }
        offset = max(0, min(60 * 50 - 500, offset + plan.fromY - plan.toY))
        onChange()
    }
}
