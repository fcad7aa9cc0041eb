import MenuBusModel
import MenuBusDBus

extension ContextInfo {
    /// Decodes the context `a{sv}` of `PublishContext`: `kind`,
    /// `content-types`, `editable`, `has-content`, `rich-text`, `document`,
    /// `supported-commands`, `title`, `enabled`, `preview`, `primary-action`,
    /// `menu-is-primary-action`; unknown keys are ignored.
    package init(wire value: DBusValue, field: String = "context") throws(BusError) {
        do throws(ModelError) {
            self.init()
            for (key, value) in try WireValue.entries(of: value, field: field) {
                func path() -> String { "\(field).\(key)" }
                switch key {
                case "kind": kind = try WireValue.enumeration(value, Kind.self, field: path())
                case "content-types":
                    contentTypes = try WireValue.strings(value, field: path(), maxCount: Limits.maxContentTypes)
                case "editable": editable = try WireValue.bool(value, field: path())
                case "has-content": hasContent = try WireValue.bool(value, field: path())
                case "rich-text": richText = try WireValue.bool(value, field: path())
                case "document": document = try WireValue.string(value, field: path())
                case "supported-commands":
                    supportedCommands = Set(try WireValue.enumerations(
                        value, StandardCommand.self, field: path(), maxCount: Limits.maxSupportedCommands))
                case "title": title = try WireValue.string(value, field: path())
                case "enabled": enabled = try WireValue.bool(value, field: path())
                case "preview": preview = try ContextPreview(wire: value, field: path())
                case "primary-action": primaryAction = try WireValue.string(value, field: path())
                case "menu-is-primary-action": menuIsPrimaryAction = try WireValue.bool(value, field: path())
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
        if kind != .item { entries.append(WireValue.entry("kind", .string(kind.rawValue))) }
        if !contentTypes.isEmpty { entries.append(WireValue.entry("content-types", WireValue.stringArray(contentTypes))) }
        if editable { entries.append(WireValue.entry("editable", .boolean(true))) }
        if hasContent { entries.append(WireValue.entry("has-content", .boolean(true))) }
        if richText { entries.append(WireValue.entry("rich-text", .boolean(true))) }
        if let document { entries.append(WireValue.entry("document", .string(document))) }
        if let supportedCommands {
            let names = StandardCommand.allCases.filter(supportedCommands.contains).map(\.rawValue)
            entries.append(WireValue.entry("supported-commands", WireValue.stringArray(names)))
        }
        if let title { entries.append(WireValue.entry("title", .string(title))) }
        if !enabled { entries.append(WireValue.entry("enabled", .boolean(false))) }
        if let preview { entries.append(WireValue.entry("preview", preview.wireValue)) }
        if let primaryAction { entries.append(WireValue.entry("primary-action", .string(primaryAction))) }
        if menuIsPrimaryAction { entries.append(WireValue.entry("menu-is-primary-action", .boolean(true))) }
        return .array("{sv}", entries)
    }
}
