/// XCUITest's element types by raw value (`XCUIElement.ElementType`, XCUIElementTypes.h), and
/// the per-type rules the agent reports with each element.
///
/// The rules are what XCUITest can do with an element of that type — it has no action list and
/// no clickable flag, only the type — and are the same table the hub's importers apply to iOS
/// dumps (bridge/core/importers/ios_rules.py), so a capture from this agent and a WebDriverAgent
/// dump of the same screen normalize alike:
/// - `click` (and `clickable`): Button, Link, Cell, Switch, Toggle, Tab, Key, MenuItem,
///   MenuButton, RadioButton, CheckBox, DisclosureTriangle, PopUpButton, Icon, and the inputs;
/// - `setText` (+ `click`, `editable`, `focusable`): TextField, SecureTextField, SearchField,
///   TextView; `password`: SecureTextField (its value never leaves the device);
/// - `scrollForward` + `scrollBackward` (`scrollable`): ScrollView, Table, CollectionView, WebView;
/// - `checkable`: Switch, Toggle, CheckBox, `checked` when the value is 1/true/on.
public enum ElementType: UInt, Sendable, CaseIterable {
    case any = 0, other, application, group, window, sheet, drawer, alert, dialog, button, radioButton,
         radioGroup, checkBox, disclosureTriangle, popUpButton, comboBox, menuButton, toolbarButton, popover,
         keyboard, key, navigationBar, tabBar, tabGroup, toolbar, statusBar, table, tableRow, tableColumn,
         outline, outlineRow, browser, collectionView, slider, pageIndicator, progressIndicator,
         activityIndicator, segmentedControl, picker, pickerWheel, `switch`, toggle, link, image, icon,
         searchField, scrollView, scrollBar, staticText, textField, secureTextField, datePicker, textView,
         menu, menuItem, menuBar, menuBarItem, map, webView, incrementArrow, decrementArrow, timeline,
         ratingIndicator, valueIndicator, splitGroup, splitter, relevanceIndicator, colorWell, helpTag,
         matte, dockItem, ruler, rulerMarker, grid, levelIndicator, cell, layoutArea, layoutItem, handle,
         stepper, tab, touchBar, statusItem

    /// `XCUIElementTypeButton` for `.button`: the spelling WebDriverAgent and the hub use.
    public var className: String {
        let n = "\(self)"
        return "XCUIElementType" + n.prefix(1).uppercased() + n.dropFirst()
    }

    /// The class name of a raw type value; unknown values (a newer SDK) keep their number.
    public static func className(of raw: UInt) -> String {
        ElementType(rawValue: raw)?.className ?? "XCUIElementType\(raw)"
    }

    static let clickTypes: Set<ElementType> = [.button, .link, .cell, .switch, .toggle, .tab, .key, .menuItem,
                                               .menuButton, .radioButton, .checkBox, .disclosureTriangle,
                                               .popUpButton, .icon]
    static let textTypes: Set<ElementType> = [.textField, .secureTextField, .searchField, .textView]
    static let scrollTypes: Set<ElementType> = [.scrollView, .table, .collectionView, .webView]
    static let checkTypes: Set<ElementType> = [.switch, .toggle, .checkBox]

    public var isEditable: Bool { Self.textTypes.contains(self) }
    public var isClickable: Bool { Self.clickTypes.contains(self) || isEditable }
    public var isScrollable: Bool { Self.scrollTypes.contains(self) }
    public var isCheckable: Bool { Self.checkTypes.contains(self) }
    public var isSecure: Bool { self == .secureTextField }

    /// The action names reported for this type, in the hub's canonical order.
    public var actionNames: [String] {
        var names: [String] = []
        if isClickable { names.append("click") }
        if isEditable { names.append("setText") }
        if isScrollable { names += ["scrollForward", "scrollBackward"] }
        return names
    }
}
