import MenuBusModel
import MenuBusDBus

extension MenuElement {
    /// A menu on the wire: `(id, parent, properties)`, flat.
    static let wireListSignature: Signature = "a(ssa{sv})"
    static let wireSignature: Signature = "(ssa{sv})"

    /// How much of `ElementValidation` decoding runs.
    package enum WireCheck {
        /// Every rule and bound: what the service stores.
        case full
        /// Types and bounds only: for `Lint`, which reports the rules.
        case limitsOnly
    }

    /// Decodes an `a(ssa{sv})`. A wrong type of a known key, an unknown
    /// value of `type`, `attributes`, `state`, `command`, `options` or
    /// `element-size`, and (with `.full`) any broken rule answer
    /// `InvalidArgs`; a bound answers `LimitExceeded`; both name the field
    /// (`items[4].properties.attributes`). Unknown keys are ignored.
    /// - Parameter allowReserved: accept `menubus:` ids (composed menus read back).
    /// - Parameter previous: a list of the same field that passed these
    ///   checks (what the app sent before): when the new one has its ids,
    ///   parents and kinds, only the elements that changed are checked
    ///   (`ElementValidation.validate(_:field:sameShapeAs:)`).
    package static func list(fromWire value: DBusValue, field: String = "items", check: WireCheck = .full,
                     allowReserved: Bool = false, previous: [MenuElement]? = nil) throws(BusError) -> [MenuElement] {
        do throws(ModelError) {
            let elements = try decodeList(value, field: field, check: check)
            switch check {
            case .full: try validate(elements, field: field, allowReserved: allowReserved, previous: previous)
            case .limitsOnly: try ElementValidation.checkLimits(elements, field: field)
            }
            return elements
        } catch {
            throw error.busError
        }
    }

    /// The `a(ssa{sv})` of `elements`.
    static func wireList(_ elements: [MenuElement]) -> DBusValue {
        .array(wireSignature, elements.map(\.wireValue))
    }

    /// The `(ssa{sv})` of this element.
    package var wireValue: DBusValue {
        .structure([.string(id), .string(parent), wireProperties])
    }

    /// Only what differs from the defaults, keys in a fixed order: type,
    /// title, subtitle, icon, attributes, state, shortcut, command, options,
    /// element-size, cached.
    var wireProperties: DBusValue {
        var entries: [DBusValue] = []
        if kind != .action { entries.append(WireValue.entry("type", .string(kind.rawValue))) }
        if let title { entries.append(WireValue.entry("title", .string(title))) }
        if let subtitle { entries.append(WireValue.entry("subtitle", .string(subtitle))) }
        if let icon { entries.append(WireValue.entry("icon", .string(icon))) }
        if attributeBits != 0 {
            let names = Attribute.allCases.filter(has).map(\.rawValue)
            entries.append(WireValue.entry("attributes", WireValue.stringArray(names)))
        }
        if state != .off { entries.append(WireValue.entry("state", .string(state.rawValue))) }
        if let shortcut { entries.append(WireValue.entry("shortcut", .string(shortcut))) }
        if let command { entries.append(WireValue.entry("command", .string(command.rawValue))) }
        if optionBits != 0 {
            let names = MenuOption.allCases.filter(has).map(\.rawValue)
            entries.append(WireValue.entry("options", WireValue.stringArray(names)))
        }
        if let elementSize { entries.append(WireValue.entry("element-size", .string(elementSize.rawValue))) }
        if !cached { entries.append(WireValue.entry("cached", .boolean(false))) }
        return .array("{sv}", entries)
    }

    private static func decodeList(_ value: DBusValue, field: String, check: WireCheck) throws(ModelError) -> [MenuElement] {
        guard case .array(let element, let items) = value, element == wireSignature else {
            throw WireValue.mismatch(value, expected: wireListSignature, field: field)
        }
        guard items.count <= Limits.maxElementsPerMenu else {
            throw .limit(field, "\(items.count) elements are more than the limit of \(Limits.maxElementsPerMenu) per menu")
        }
        var result: [MenuElement] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try decode(item, at: index, field: field, check: check))
        }
        return result
    }

    private static func decode(_ item: DBusValue, at index: Int, field: String,
                               check: WireCheck) throws(ModelError) -> MenuElement {
        guard case .structure(let members) = item, members.count == 3,
              case .string(let id) = members[0], case .string(let parent) = members[1] else {
            throw WireValue.mismatch(item, expected: wireSignature, field: "\(field)[\(index)]")
        }
        // Field paths are built only for an error.
        func path(_ key: String) -> String { "\(field)[\(index)].properties.\(key)" }
        var element = MenuElement(id: id, parent: parent)
        var hasCached = false
        for (key, value) in try WireValue.entries(of: members[2], field: "\(field)[\(index)].properties") {
            switch key {
            case "type": element.kind = try WireValue.enumeration(value, Kind.self, field: path(key))
            case "title": element.title = try WireValue.string(value, field: path(key))
            case "subtitle": element.subtitle = try WireValue.string(value, field: path(key))
            case "icon": element.icon = try WireValue.string(value, field: path(key))
            case "attributes":
                element.attributes = Set(try WireValue.enumerations(
                    value, Attribute.self, field: path(key), maxCount: Limits.maxAttributesPerElement))
            case "state": element.state = try WireValue.enumeration(value, State.self, field: path(key))
            case "shortcut": element.shortcut = try WireValue.string(value, field: path(key))
            case "command": element.command = try WireValue.enumeration(value, StandardCommand.self, field: path(key))
            case "options":
                element.options = Set(try WireValue.enumerations(
                    value, MenuOption.self, field: path(key), maxCount: Limits.maxAttributesPerElement))
            case "element-size":
                element.elementSize = try WireValue.enumeration(value, ElementSize.self, field: path(key))
            case "cached":
                element.cached = try WireValue.bool(value, field: path(key))
                hasCached = true
            default:
                continue
            }
        }
        // `cached: false` elsewhere is ElementValidation's; `cached: true`
        // on a non-deferred element is visible only here.
        if check == .full && hasCached && element.kind != .deferred {
            throw .invalid(path("cached"), "only a deferred element may set cached; this element is \(element.kind.rawValue)")
        }
        return element
    }
}
