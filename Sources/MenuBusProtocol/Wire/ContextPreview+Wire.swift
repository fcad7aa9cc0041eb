import MenuBusModel
import MenuBusDBus

extension ContextPreview {
    /// The image keys, of which a preview gives at most one.
    static let imageKeys = ["image-uri", "icon", "image-png"]

    /// Decodes the context's `preview` `a{sv}`: `title` s (required),
    /// `subtitle` s, and at most one of `image-uri` s, `icon` s,
    /// `image-png` ay; unknown keys are ignored.
    package init(wire value: DBusValue, field: String) throws(ModelError) {
        var title: String?, subtitle: String?, image: Image?, imageKey: String?
        for (key, value) in try WireValue.entries(of: value, field: field) {
            func path() -> String { "\(field).\(key)" }
            switch key {
            case "title": title = try WireValue.string(value, field: path())
            case "subtitle": subtitle = try WireValue.string(value, field: path())
            case "image-uri", "icon", "image-png":
                if let imageKey, imageKey != key {
                    throw .invalid(path(), "give one image: '\(imageKey)' is given already")
                }
                imageKey = key
                switch key {
                case "image-uri": image = .uri(try WireValue.string(value, field: path()))
                case "icon": image = .icon(try WireValue.string(value, field: path()))
                default: image = .png(try Self.bytes(value, field: path()))
                }
            default: continue
            }
        }
        guard let title else { throw .invalid(field + ".title", "a preview needs a title") }
        self.init(title: title, subtitle: subtitle, image: image)
        try validate(field: field)
    }

    /// An `ay`, refused past `maxPNGBytes` before it is copied.
    private static func bytes(_ value: DBusValue, field: String) throws(ModelError) -> [UInt8] {
        let count: Int
        switch value {
        case .bytes(let bytes): count = bytes.count
        case .array(let element, let items) where element == "y": count = items.count
        default: throw WireValue.mismatch(value, expected: "ay", field: field)
        }
        guard count <= maxPNGBytes else {
            throw .limit(field, "\(count) bytes are more than the limit of \(maxPNGBytes) bytes (ContextPreview.maxPNGBytes)")
        }
        switch value {
        case .bytes(let bytes): return bytes
        case .array(_, let items): return items.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
        default: return []
        }
    }

    /// The `a{sv}`, keys in the order above; the menu's `Preview` property.
    package var wireValue: DBusValue {
        var entries = [WireValue.entry("title", .string(title))]
        if let subtitle { entries.append(WireValue.entry("subtitle", .string(subtitle))) }
        switch image {
        case .uri(let uri): entries.append(WireValue.entry("image-uri", .string(uri)))
        case .icon(let name): entries.append(WireValue.entry("icon", .string(name)))
        case .png(let bytes): entries.append(WireValue.entry("image-png", .bytes(bytes)))
        case nil: break
        }
        return .array("{sv}", entries)
    }
}
