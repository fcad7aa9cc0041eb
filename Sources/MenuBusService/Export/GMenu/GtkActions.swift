import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The actions behind a presented menu's `org.gtk.Menus` items, as
/// `org.gtk.Actions` describes them.
///
/// Names are valid GAction names built from the item's dbusmenu id, so both
/// exports agree and nothing of an element id needs escaping:
/// - `item-<id>`: one item; stateless, or a boolean state for a checkmark
///   (GTK draws a check box), chosen with no parameter;
/// - `choice-<menu id>`: the enabled items of one `single-selection` menu;
///   its state is the id of the `on` item (`""` when none), each item
///   targets its own element id, and GTK draws radio items. A disabled item
///   of such a menu gets an `item-<id>` action of the same shape, disabled,
///   because GTK enables or disables a whole action.
///
/// An action whose item left the menu stays, retired, as a GLib app's
/// action group keeps an action when the menu item naming it goes: the
/// item coming back (Select All as the selection changes) needs no
/// `org.gtk.Actions.Changed` before it shows. A retired action cannot be
/// chosen; retired actions go when the menu closes, the oldest first past
/// `maxRetired`.
struct GtkActions: Equatable {
    /// What choosing an action means.
    enum Route: Equatable {
        /// Choose this element.
        case item(String)
        /// Choose the element named by the string parameter, one of these.
        case choice([String])
    }

    struct Action: Equatable {
        var enabled: Bool
        /// `""` (no parameter) or `"s"`.
        var parameterType: Signature
        var state: DBusValue?
        var route: Route
        /// No item of the menu names it any more (`keepRetired`).
        var retired = false

        /// `(bgav)`.
        var description: DBusValue {
            .structure([.boolean(enabled), .signature(parameterType),
                        .array("v", state.map { [.variant($0)] } ?? [])])
        }

        /// Whether a consumer can change `other` into this with enable and
        /// state changes, or must remove and add it again.
        func hasSameShape(as other: Action) -> Bool {
            parameterType == other.parameterType && state?.signature == other.state?.signature
        }
    }

    /// An activation or state change the action cannot take: `InvalidArgs`.
    struct Refusal: Error, Equatable {
        let message: String
    }

    /// The actions in the order they were added, and their names.
    private(set) var names: [String] = []
    private var entries: [Action] = []
    /// Where each name is in `names` and `entries`.
    private var positions: [String: Int] = [:]

    /// Room for the actions of `count` items, so the table does not grow
    /// (and hash every name again) while a menu is mapped.
    init(capacity count: Int = 0) {
        names.reserveCapacity(count)
        entries.reserveCapacity(count)
        positions.reserveCapacity(count)
    }

    func action(_ name: String) -> Action? {
        positions[name].map { entries[$0] }
    }

    /// The action named `names[index]` of `other`, when this table has it
    /// at the same position (a menu mapped again mostly does), else by name.
    private func action(_ name: String, at index: Int, in other: GtkActions) -> Action? {
        if index < other.names.count, other.names[index] == name { return other.entries[index] }
        return other.action(name)
    }

    /// Adds the action of an item; returns its name and the item's `target`.
    mutating func add(_ element: MenuElement, parent: MenuElement?,
                      ids: inout ExportIDs) -> (name: String, target: DBusValue?) {
        let enabled = !element.has(.disabled)
        switch ids.toggle(element, parent: parent) {
        case .radio:
            let target = DBusValue.string(element.id)
            let onValue = DBusValue.string(element.state == .on ? element.id : "")
            if enabled, let parent {
                let name = "choice-" + String(ids.item(parent.id))
                if let position = positions[name], case .choice(let choices) = entries[position].route {
                    entries[position].route = .choice(choices + [element.id])
                    if entries[position].state == .string(""), element.state == .on { entries[position].state = onValue }
                } else {
                    insert(name, Action(enabled: true, parameterType: "s", state: onValue, route: .choice([element.id])))
                }
                return (name, target)
            }
            let name = "item-" + String(ids.item(element.id))
            insert(name, Action(enabled: enabled, parameterType: "s", state: onValue, route: .item(element.id)))
            return (name, target)
        case .checkmark:
            let name = "item-" + String(ids.item(element.id))
            insert(name, Action(enabled: enabled, parameterType: "", state: .boolean(element.state == .on),
                                route: .item(element.id)))
            return (name, nil)
        case .none:
            let name = "item-" + String(ids.item(element.id))
            insert(name, Action(enabled: enabled, parameterType: "", state: nil, route: .item(element.id)))
            return (name, nil)
        }
    }

    private mutating func insert(_ name: String, _ action: Action) {
        if let position = positions[name] {
            entries[position] = action
        } else {
            positions[name] = names.count
            names.append(name)
            entries.append(action)
        }
    }

    /// Retired actions kept at most: as many as a menu has elements.
    static let maxRetired = Limits.maxElementsPerMenu

    /// Keeps, after this table's own actions, those of `previous` (the
    /// table consumers hold) that no item here names, retired; the ones
    /// retired longest go past `maxRetired`. An item that comes back finds
    /// its action while `ExportIDs` keeps its number (it forgets the
    /// numbers of absent elements past its bound; the item then gets a new
    /// action, added before it shows, and the old one ages out).
    mutating func keepRetired(from previous: GtkActions) {
        var kept = 0
        // `previous` lists its own actions first, then those it had retired.
        for (index, name) in previous.names.enumerated() where positions[name] == nil {
            guard kept < GtkActions.maxRetired else { break }
            var action = previous.entries[index]
            action.retired = true
            insert(name, action)
            kept += 1
        }
    }

    /// `as` for `List`.
    var list: DBusValue {
        .array("s", names.map(DBusValue.string))
    }

    /// `a{s(bgav)}` for `DescribeAll`.
    var describeAll: DBusValue {
        .array("{s(bgav)}", zip(names, entries).map { .dictEntry(.string($0), $1.description) })
    }

    /// The element to choose for `Activate(name, parameters)`.
    func activation(_ name: String, parameters: [DBusValue]) throws(Refusal) -> String {
        let action = try live(name)
        switch (action.route, action.parameterType) {
        case (.item(let id), ""):
            guard parameters.isEmpty else {
                throw Refusal(message: "action '\(name)' takes no parameter, got \(parameters.count)")
            }
            return id
        case (.item(let id), _):
            guard parameters.count == 1, parameters[0] == .string(id) else {
                throw Refusal(message: "action '\(name)' takes the parameter '\(id)'")
            }
            return id
        case (.choice(let ids), _):
            guard parameters.count == 1, case .string(let id) = parameters[0] else {
                throw Refusal(message: "action '\(name)' takes one string parameter (an item id)")
            }
            guard ids.contains(id) else { throw Refusal(message: "action '\(name)' has no choice '\(id)'") }
            return id
        }
    }

    /// The element to choose for `SetState(name, value)`, or nil when the
    /// action already has that state. A checkmark changes by choosing its
    /// item, a radio action by choosing the item the value names.
    func stateChange(_ name: String, to value: DBusValue) throws(Refusal) -> String? {
        let action = try live(name)
        guard let state = action.state else { throw Refusal(message: "action '\(name)' has no state") }
        guard value.signature == state.signature else {
            throw Refusal(message: "action '\(name)' has a state of type '\(state.signature)', got '\(value.signature)'")
        }
        guard value != state else { return nil }
        switch action.route {
        case .item(let id):
            if action.parameterType == "s", value != .string(id) {
                throw Refusal(message: "action '\(name)' can only be set to '\(id)'")
            }
            return id
        case .choice(let ids):
            guard case .string(let id) = value, ids.contains(id) else {
                throw Refusal(message: "action '\(name)' has no choice '\(value.stringValue ?? "")'")
            }
            return id
        }
    }

    /// The action `name` of an item in the menu.
    private func live(_ name: String) throws(Refusal) -> Action {
        guard let action = action(name) else { throw Refusal(message: "no action named '\(name)'") }
        guard !action.retired else { throw Refusal(message: "action '\(name)' belongs to an item no longer in the menu") }
        return action
    }

    /// `Changed`'s four arguments (`as`, `a{sb}`, `a{sv}`, `a{s(bgav)}`)
    /// taking `old` to these actions, in the two signals consumers need
    /// around the menu change: `before` adds new actions and changes
    /// enabled and state (an action whose parameter or state type changed
    /// is removed and added again there), so a new item is never shown
    /// insensitive; `after` removes the actions no item uses any more. Nil
    /// where nothing changed.
    func changes(from old: GtkActions) -> (before: [DBusValue]?, after: [DBusValue]?) {
        var reshaped: [DBusValue] = [], gone: [DBusValue] = []
        var enabled: [DBusValue] = [], states: [DBusValue] = [], added: [DBusValue] = []
        for (index, name) in old.names.enumerated() {
            let before = old.entries[index]
            guard let after = action(name, at: index, in: self) else {
                gone.append(.string(name))
                continue
            }
            guard after.hasSameShape(as: before) else {
                reshaped.append(.string(name))
                added.append(.dictEntry(.string(name), after.description))
                continue
            }
            if after.enabled != before.enabled { enabled.append(.dictEntry(.string(name), .boolean(after.enabled))) }
            if let state = after.state, state != before.state { states.append(.dictEntry(.string(name), .variant(state))) }
        }
        for (index, name) in names.enumerated() where action(name, at: index, in: old) == nil {
            added.append(.dictEntry(.string(name), entries[index].description))
        }
        let first: [DBusValue]? = reshaped.isEmpty && enabled.isEmpty && states.isEmpty && added.isEmpty ? nil
            : [.array("s", reshaped), .array("{sb}", enabled), .array("{sv}", states), .array("{s(bgav)}", added)]
        let second: [DBusValue]? = gone.isEmpty ? nil
            : [.array("s", gone), .array("{sb}", []), .array("{sv}", []), .array("{s(bgav)}", [])]
        return (first, second)
    }
}
