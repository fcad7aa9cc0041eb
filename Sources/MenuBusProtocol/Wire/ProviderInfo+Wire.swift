import MenuBusModel
import MenuBusDBus

extension ProviderInfo {
    /// Decodes the properties `a{sv}` of `RegisterProvider`: `title` s
    /// (required), `icon` s, `role` s (`""` for an item of its own),
    /// `content-types` as (default `text/plain`), `returns-text` b,
    /// `requires-editable` b, `shortcut` s; unknown keys are ignored. Checks the id too.
    package init(id: String, wire value: DBusValue, idField: String = "providerId",
         field: String = "properties") throws(BusError) {
        do throws(ModelError) {
            var title: String?
            self.init(id: id, title: "")
            for (key, value) in try WireValue.entries(of: value, field: field) {
                func path() -> String { "\(field).\(key)" }
                switch key {
                case "title": title = try WireValue.string(value, field: path())
                case "icon": icon = try WireValue.string(value, field: path())
                case "role":
                    let name = try WireValue.string(value, field: path())
                    role = name.isEmpty ? nil : try WireValue.parse(name, ProviderRole.self, field: path())
                case "content-types":
                    contentTypes = try WireValue.strings(value, field: path(), maxCount: Limits.maxContentTypes)
                case "returns-text": returnsText = try WireValue.bool(value, field: path())
                case "requires-editable": requiresEditable = try WireValue.bool(value, field: path())
                case "shortcut":
                    let text = try WireValue.string(value, field: path())
                    shortcut = text.isEmpty ? nil : text
                default: continue
                }
            }
            guard let title else { throw .invalid(field + ".title", "a provider needs a title") }
            self.title = title
            try validate(idField: idField, field: field)
        } catch {
            throw error.busError
        }
    }

    /// The properties `a{sv}`, keys in the order above.
    package var wireValue: DBusValue {
        var entries = [WireValue.entry("title", .string(title))]
        if let icon { entries.append(WireValue.entry("icon", .string(icon))) }
        if let role { entries.append(WireValue.entry("role", .string(role.rawValue))) }
        entries.append(WireValue.entry("content-types", WireValue.stringArray(contentTypes)))
        if returnsText { entries.append(WireValue.entry("returns-text", .boolean(true))) }
        if requiresEditable { entries.append(WireValue.entry("requires-editable", .boolean(true))) }
        if let shortcut { entries.append(WireValue.entry("shortcut", .string(shortcut))) }
        return .array("{sv}", entries)
    }
}
