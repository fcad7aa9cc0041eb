import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The numbers one presentation's elements have in the other protocols:
/// dbusmenu item ids (`Int32`, root 0) and `org.gtk.Menus` group and menu
/// numbers (`UInt32`, root group 0 menu 0).
///
/// A number is handed out once per key and never again in the presentation:
/// an element keeps its id while the menu changes around it, and an id a
/// consumer still holds never names something else. Keys are element ids,
/// plus `/sep/<anchor>` for separators (a `/` never occurs in element ids).
struct ExportIDs {
    private var items: [String: Int32] = [:]
    private var nextItem: Int32 = 1
    private var groups: [String: UInt32] = [:]
    private var nextGroup: UInt32 = 1
    private var menus: [String: UInt32] = [:]
    private var nextMenu: UInt32 = 1
    /// The toggle each element was first shown with: dbusmenu consumers
    /// (KDE's importer) fix `toggle-type` when they create an item, so a
    /// checkmark turned off stays a checkmark, with `toggle-state` 0.
    private var toggles: [String: ExportToggle] = [:]

    /// Keys kept beyond this many are forgotten at the next `retain`, unless
    /// still in the menu, so a presentation whose app keeps sending new ids
    /// stays small. A forgotten key that comes back gets a fresh number.
    static let keyBound = 4 * Limits.maxElementsPerMenu

    static func separatorKey(_ anchor: String) -> String {
        separatorPrefix + anchor
    }

    private static let separatorPrefix = "/sep/"

    private static func isSeparator(_ key: String, anchoredIn current: Set<String>) -> Bool {
        guard key.hasPrefix(separatorPrefix) else { return false }
        let anchor = String(key.dropFirst(separatorPrefix.count))
        return anchor.isEmpty || current.contains(anchor)
    }

    /// The dbusmenu id of `key`, allocated on first use.
    mutating func item(_ key: String) -> Int32 {
        Self.allocate(key, in: &items, next: &nextItem)
    }

    /// The `org.gtk.Menus` group of a submenu, allocated on first use.
    mutating func group(forSubmenu id: String) -> UInt32 {
        Self.allocate(id, in: &groups, next: &nextGroup)
    }

    /// The `org.gtk.Menus` menu number of a section, allocated on first use.
    mutating func menu(forSection id: String) -> UInt32 {
        Self.allocate(id, in: &menus, next: &nextMenu)
    }

    /// The numbers already handed out, nil for a key that has none: a
    /// patched mapping (`ElementPatch`) only reuses numbers.
    func existingItem(_ key: String) -> Int32? { items[key] }
    func existingGroup(forSubmenu id: String) -> UInt32? { groups[id] }
    func existingMenu(forSection id: String) -> UInt32? { menus[id] }

    /// `key`'s number in `table`, or `next`, which then moves on. 2^31
    /// distinct keys in one presentation cannot happen within the limits;
    /// `next` saturates rather than wrap back onto numbers in use.
    private static func allocate<Number: FixedWidthInteger>(_ key: String, in table: inout [String: Number],
                                                           next: inout Number) -> Number {
        if let number = table[key] { return number }
        let number = next
        if next < Number.max { next += 1 }
        table[key] = number
        return number
    }

    /// How `element` shows its state, the same for its whole life in this
    /// presentation once it was shown as a toggle.
    mutating func toggle(_ element: MenuElement, parent: MenuElement?) -> ExportToggle {
        let toggle = ExportToggle(element, parent: parent)
        if toggle == .none, let kept = toggles[element.id] { return kept }
        if toggle != .none { toggles[element.id] = toggle }
        return toggle
    }

    /// Whether `group` was ever handed out (0, the root, always was).
    func isAllocated(group: UInt32) -> Bool {
        group < nextGroup
    }

    var count: Int { items.count + groups.count + menus.count }

    /// Forgets keys not in `current` once more than `keyBound` are held;
    /// `current` is built only then (each live change maps the menu again).
    /// A separator's key is kept while its anchor is (`""`, the top, always
    /// is), whichever export retains: so the org.gtk.Menus export, which
    /// knows no separators, does not renumber dbusmenu's.
    mutating func retain(_ current: @autoclosure () -> Set<String>) {
        guard count > ExportIDs.keyBound else { return }
        let current = current()
        items = items.filter { current.contains($0.key) || Self.isSeparator($0.key, anchoredIn: current) }
        groups = groups.filter { current.contains($0.key) }
        menus = menus.filter { current.contains($0.key) }
        toggles = toggles.filter { current.contains($0.key) }
    }
}
