/// The one place the model meets D-Bus values: decoders that validate
/// every field and answer a fault with a `BusError` naming it
/// (`InvalidArgs`, or `org.menubus.MenuBus1.Error.LimitExceeded` for a
/// bound), and encoders that write only non-default keys in a fixed order.
enum Wire {
    /// `a(ssa{sv})` → elements, every rule and bound of `ElementValidation`
    /// checked. `allowReserved` accepts `menubus:` ids (a composed menu read back).
    static func decodeElements(_ value: DBusValue, field: String = "items",
                               allowReserved: Bool = false) throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .full, allowReserved: allowReserved)
    }

    /// A composed menu read back (`GetContextMenu`, `GetEditMenu`,
    /// `GetLayout`, `LayoutChanged`): every rule checked, `menubus:` ids allowed.
    static func decodeComposedMenu(_ value: DBusValue, field: String = "items") throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .full, allowReserved: true)
    }

    /// `a(ssa{sv})` → elements, checking only types and bounds: `Lint`
    /// reports the rules as findings instead.
    static func decodeElementsForLint(_ value: DBusValue, field: String = "items") throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .limitsOnly)
    }

    /// `a{sv}` → context.
    static func decodeContext(_ value: DBusValue, field: String = "context") throws(BusError) -> ContextInfo {
        try ContextInfo(wire: value, field: field)
    }

    /// `a{sv}` → selection.
    static func decodeSelection(_ value: DBusValue, field: String = "selection") throws(BusError) -> Selection {
        try Selection(wire: value, field: field)
    }

    /// `RegisterProvider`'s id and properties `a{sv}` → provider.
    static func decodeProvider(id: String, _ value: DBusValue, idField: String = "providerId",
                               field: String = "properties") throws(BusError) -> ProviderInfo {
        try ProviderInfo(id: id, wire: value, idField: idField, field: field)
    }

    /// `a(sss)` → findings (a `Lint` reply, for clients).
    static func decodeFindings(_ value: DBusValue, field: String = "findings") throws(BusError) -> [LintFinding] {
        try LintFinding.list(fromWire: value, field: field)
    }

    /// Elements → `a(ssa{sv})`.
    static func encode(_ elements: [MenuElement]) -> DBusValue {
        MenuElement.wireList(elements)
    }

    /// Findings → `a(sss)`.
    static func encode(_ findings: [LintFinding]) -> DBusValue {
        LintFinding.wireList(findings)
    }

    /// Context → `a{sv}`.
    static func encode(_ context: ContextInfo) -> DBusValue {
        context.wireValue
    }

    /// Selection → `a{sv}`.
    static func encode(_ selection: Selection) -> DBusValue {
        selection.wireValue
    }

    /// Provider → properties `a{sv}` (the id travels separately).
    static func encode(_ provider: ProviderInfo) -> DBusValue {
        provider.wireValue
    }
}
