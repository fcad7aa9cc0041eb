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

extension MenuElement {
    /// An `a(ssa{sv})` read straight from a call's body, without the
    /// `DBusValue`s `list(fromWire:)` decodes from: for `UpdateItems`,
    /// which carries a whole menu on every change.
    ///
    /// It gives the elements `list(fromWire:)` gives, not yet checked by
    /// `ElementValidation` (`checked(_:field:previous:)` does that), or nil
    /// at anything `list(fromWire:)` would refuse or that is not read here:
    /// a known key of another type, an unknown value of an enumeration, a
    /// bound passed, a malformed body. The caller then decodes the call as
    /// values, which names the fault; so the errors are that path's, and
    /// this one never needs to word one.
    ///
    /// An element read exactly as the one at its index in `previous` (the
    /// list the context held) is that element, sharing its storage: a live
    /// change resends the whole menu, and the elements it did not change
    /// then cost no new strings, and compare at once wherever they are
    /// compared with the old ones.
    package static func list(readingFrom cursor: inout BodyCursor, reusing previous: [MenuElement] = []) -> [MenuElement]? {
        list(readingFrom: &cursor, reusing: previous, spans: nil)?.elements
    }

    /// `list(readingFrom:reusing:)`, with the bytes each element was read
    /// from (nil past `ElementSpans.maxBytes`). `held` are the spans the
    /// elements of `previous` were read from, index for index: an element
    /// whose bytes are its span's is `previous`'s, taken without reading
    /// it, counted as reading it counted.
    package static func list(readingFrom cursor: inout BodyCursor, reusing previous: [MenuElement],
                             spans held: ElementSpans?) -> (elements: [MenuElement], spans: ElementSpans?)? {
        do {
            var elements: [MenuElement] = []
            elements.reserveCapacity(min(previous.count, Limits.maxElementsPerMenu))
            let held = held?.isLittleEndian == cursor.isLittleEndian ? held : nil
            var kept: ElementSpans? = ElementSpans(isLittleEndian: cursor.isLittleEndian, bytes: held?.byteCount ?? 0,
                                                   elements: held?.count ?? 0)
            let end = try cursor.beginArray(elementAlignment: 8)
            while try cursor.hasMore(before: end) {
                let index = elements.count
                guard index < Limits.maxElementsPerMenu else { return nil }
                try cursor.alignToStruct()
                let start = cursor.offset
                let element: MenuElement
                let values: Int, counted: Int
                if index < previous.count, let same = held?.match(index, in: cursor.bytes(start..<end)) {
                    try cursor.skip(bytes: same.bytes, values: same.values, counting: same.counted)
                    (element, values, counted) = (previous[index], same.values, same.counted)
                } else {
                    let (valuesBefore, bytesBefore) = (cursor.valuesLeft, cursor.bytesRead)
                    guard let read = try self.element(&cursor, like: index < previous.count ? previous[index] : nil) else {
                        return nil
                    }
                    (element, values, counted) = (read, valuesBefore - cursor.valuesLeft, cursor.bytesRead - bytesBefore)
                }
                elements.append(element)
                if kept?.append(cursor.bytes(start..<cursor.offset), values: values, counted: counted) == false {
                    kept = nil
                }
            }
            return (elements, kept)
        } catch {
            return nil
        }
    }

    /// One `(ssa{sv})`, as `decode(_:at:field:check:)` builds it with `.full`;
    /// `old` itself when it reads as `old`, byte for byte.
    private static func element(_ cursor: inout BodyCursor, like old: MenuElement?) throws -> MenuElement? {
        try cursor.beginStruct()
        // Whether every string read was the held element's own bytes.
        var same = old != nil
        var element = MenuElement(id: try cursor.string(reusing: old?.id, same: &same),
                                  parent: try cursor.string(reusing: old?.parent, same: &same))
        var hasCached = false
        var entries = 0
        let end = try cursor.beginArray(elementAlignment: 8)
        while try cursor.hasMore(before: end) {
            entries += 1
            guard entries <= Limits.maxDictEntries else { return nil }
            try cursor.beginStruct()
            let key = Key(try cursor.stringBytes())
            let signature = try cursor.variantSignature()
            let type = ValueType(signature)
            switch key {
            case .type:
                guard type == .string, let kind = Kind(rawValue: try cursor.string()) else { return nil }
                element.kind = kind
            // One case per property, not a key path: writing through a key
            // path costs some 2,000 instructions an element here.
            case .title:
                guard type == .string else { return nil }
                element.title = try cursor.string(reusing: old?.title, same: &same)
            case .subtitle:
                guard type == .string else { return nil }
                element.subtitle = try cursor.string(reusing: old?.subtitle, same: &same)
            case .icon:
                guard type == .string else { return nil }
                element.icon = try cursor.string(reusing: old?.icon, same: &same)
            case .attributes:
                guard type == .strings, let attributes = try enumerations(&cursor, Attribute.self) else { return nil }
                element.attributes = Set(attributes)
            case .state:
                guard type == .string, let state = State(rawValue: try cursor.string()) else { return nil }
                element.state = state
            case .shortcut:
                guard type == .string else { return nil }
                element.shortcut = try cursor.string(reusing: old?.shortcut, same: &same)
            case .command:
                guard type == .string, let command = StandardCommand(rawValue: try cursor.string()) else { return nil }
                element.command = command
            case .options:
                guard type == .strings, let options = try enumerations(&cursor, MenuOption.self) else { return nil }
                element.options = Set(options)
            case .elementSize:
                guard type == .string, let size = ElementSize(rawValue: try cursor.string()) else { return nil }
                element.elementSize = size
            case .cached:
                guard type == .boolean else { return nil }
                element.cached = try cursor.boolean()
                hasCached = true
            case .other:
                try cursor.skip(signature)
            }
        }
        // `cached: true` on a non-deferred element is refused while decoding.
        if hasCached && element.kind != .deferred { return nil }
        // Strings the same bytes, the rest `==`: the held element itself.
        if same, let old, old == element { return old }
        return element
    }

    /// An `as` of raw values of `E`, at most `Limits.maxAttributesPerElement`.
    private static func enumerations<E: RawRepresentable>(_ cursor: inout BodyCursor, _ type: E.Type) throws -> [E]?
    where E.RawValue == String {
        var result: [E] = []
        let end = try cursor.beginArray(elementAlignment: 4)
        while try cursor.hasMore(before: end) {
            guard result.count < Limits.maxAttributesPerElement, let value = E(rawValue: try cursor.string()) else {
                return nil
            }
            result.append(value)
        }
        return result
    }

    /// The keys `decode(_:at:field:check:)` reads, told from the key's bytes.
    private enum Key {
        case type, title, subtitle, icon, attributes, state, shortcut, command, options, elementSize, cached, other

        init(_ bytes: UnsafeRawBufferPointer) {
            func named(_ name: StaticString) -> Bool {
                name.utf8CodeUnitCount == bytes.count
                    && UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount).elementsEqual(bytes)
            }
            self = named("title") ? .title : named("type") ? .type : named("attributes") ? .attributes
                : named("state") ? .state : named("shortcut") ? .shortcut : named("icon") ? .icon
                : named("subtitle") ? .subtitle : named("command") ? .command : named("options") ? .options
                : named("element-size") ? .elementSize : named("cached") ? .cached : .other
        }
    }

    /// The contained types the known keys take.
    private enum ValueType {
        case string, strings, boolean, other

        init(_ signature: UnsafeRawBufferPointer) {
            if signature.count == 1 {
                self = signature[0] == UInt8(ascii: "s") ? .string : signature[0] == UInt8(ascii: "b") ? .boolean : .other
            } else if signature.count == 2, signature[0] == UInt8(ascii: "a"), signature[1] == UInt8(ascii: "s") {
                self = .strings
            } else {
                self = .other
            }
        }
    }

    /// `elements`, decoded for `field`, held to `ElementValidation` as
    /// `list(fromWire:)` holds them with `.full` (only where they changed
    /// when they have the shape of `previous`, a list that passed).
    package static func checked(_ elements: [MenuElement], field: String = "items",
                                previous: [MenuElement]? = nil) throws(BusError) -> [MenuElement] {
        do throws(ModelError) {
            try validate(elements, field: field, allowReserved: false, previous: previous)
            return elements
        } catch {
            throw error.busError
        }
    }

    /// `ElementValidation.validate`, only where the elements changed when
    /// they have the shape of `previous` (app lists only).
    static func validate(_ elements: [MenuElement], field: String, allowReserved: Bool,
                         previous: [MenuElement]?) throws(ModelError) {
        if !allowReserved, let previous, try ElementValidation.validate(elements, field: field, sameShapeAs: previous) {
            return
        }
        try ElementValidation.validate(elements, field: field, allowReserved: allowReserved)
    }
}
