import MenuBusModel
import MenuBusDBus

extension Selection {
    /// Decodes the selection `a{sv}` of `UpdateSelection`: `kind`, `length`,
    /// `text`, `attributes`, `pasteboard-types`, `rect`, `uris`, `focused`; unknown keys are ignored.
    package init(wire value: DBusValue, field: String = "selection") throws(BusError) {
        do throws(ModelError) {
            self.init()
            for (key, value) in try WireValue.entries(of: value, field: field) {
                func path() -> String { "\(field).\(key)" }
                switch key {
                case "kind": kind = try WireValue.enumeration(value, Kind.self, field: path())
                case "length": length = try WireValue.uint32(value, field: path())
                case "text": text = try WireValue.string(value, field: path())
                case "attributes":
                    attributes = Set(try WireValue.enumerations(
                        value, TextAttribute.self, field: path(), maxCount: Limits.maxAttributesPerElement))
                case "pasteboard-types":
                    pasteboardTypes = try WireValue.strings(value, field: path(), maxCount: Limits.maxContentTypes)
                case "rect": rect = try WireValue.rect(value, field: path())
                case "uris": uris = try WireValue.strings(value, field: path(), maxCount: Selection.maxURIs)
                case "focused": focused = try WireValue.bool(value, field: path())
                default: continue
                }
            }
            try validate(field: field)
        } catch {
            throw error.busError
        }
    }

    /// The `a{sv}`: only what differs from the defaults, keys in the order above.
    package var wireValue: DBusValue {
        var entries: [DBusValue] = []
        if kind != .none { entries.append(WireValue.entry("kind", .string(kind.rawValue))) }
        if length != 0 { entries.append(WireValue.entry("length", .uint32(length))) }
        if let text { entries.append(WireValue.entry("text", .string(text))) }
        if !attributes.isEmpty {
            let names = TextAttribute.allCases.filter(attributes.contains).map(\.rawValue)
            entries.append(WireValue.entry("attributes", WireValue.stringArray(names)))
        }
        if !pasteboardTypes.isEmpty {
            entries.append(WireValue.entry("pasteboard-types", WireValue.stringArray(pasteboardTypes)))
        }
        if let rect { entries.append(WireValue.entry("rect", WireValue.rectValue(rect))) }
        if !uris.isEmpty { entries.append(WireValue.entry("uris", WireValue.stringArray(uris))) }
        if focused { entries.append(WireValue.entry("focused", .boolean(true))) }
        return .array("{sv}", entries)
    }
}
