import MenuBusModel
import MenuBusDBus

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
