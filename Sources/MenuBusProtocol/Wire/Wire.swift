import MenuBusModel
import MenuBusDBus

/// The one place the model meets D-Bus values: decoders that validate
/// every field and answer a fault with a `BusError` naming it
/// (`InvalidArgs`, or `org.menubus.MenuBus1.Error.LimitExceeded` for a
/// bound), and encoders that write only non-default keys in a fixed order.
package enum Wire {
    /// `a(ssa{sv})` → elements, every rule and bound of `ElementValidation`
    /// checked. `allowReserved` accepts `menubus:` ids (a composed menu read back).
    /// `previous`: the elements this field held, checked the same way, so
    /// an unchanged element is not checked again.
    package static func decodeElements(_ value: DBusValue, field: String = "items", allowReserved: Bool = false,
                                       previous: [MenuElement]? = nil) throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .full, allowReserved: allowReserved, previous: previous)
    }

    /// `a(ssa{sv})` read straight from a call's body, unchecked; nil where
    /// `decodeElements` would refuse it or the fast read stops (then decode
    /// the call's values: that names the fault). See `MenuElement.list(readingFrom:)`.
    package static func readElements(_ cursor: inout BodyCursor, reusing previous: [MenuElement] = []) -> [MenuElement]? {
        MenuElement.list(readingFrom: &cursor, reusing: previous)
    }

    /// `readElements`, taking the elements whose bytes are `spans`' from
    /// `previous` unread, and giving the bytes each element was read from
    /// (`MenuElement.list(readingFrom:reusing:spans:)`).
    package static func readElements(_ cursor: inout BodyCursor, reusing previous: [MenuElement],
                                     spans: ElementSpans?) -> (elements: [MenuElement], spans: ElementSpans?)? {
        MenuElement.list(readingFrom: &cursor, reusing: previous, spans: spans)
    }

    /// Elements from `readElements`, held to every rule and bound as
    /// `decodeElements` holds them (`previous` as there).
    package static func checkElements(_ elements: [MenuElement], field: String = "items",
                                      previous: [MenuElement]? = nil) throws(BusError) -> [MenuElement] {
        try MenuElement.checked(elements, field: field, previous: previous)
    }

    /// A composed menu read back (`GetContextMenu`, `GetEditMenu`,
    /// `GetLayout`, `LayoutChanged`): every rule checked, `menubus:` ids allowed.
    package static func decodeComposedMenu(_ value: DBusValue, field: String = "items") throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .full, allowReserved: true)
    }

    /// `a(ssa{sv})` → elements, checking only types and bounds: `Lint`
    /// reports the rules as findings instead.
    package static func decodeElementsForLint(_ value: DBusValue, field: String = "items") throws(BusError) -> [MenuElement] {
        try MenuElement.list(fromWire: value, field: field, check: .limitsOnly)
    }

    /// `a{sv}` → context.
    package static func decodeContext(_ value: DBusValue, field: String = "context") throws(BusError) -> ContextInfo {
        try ContextInfo(wire: value, field: field)
    }

    /// `a{sv}` → selection.
    package static func decodeSelection(_ value: DBusValue, field: String = "selection") throws(BusError) -> Selection {
        try Selection(wire: value, field: field)
    }

    /// `RegisterProvider`'s id and properties `a{sv}` → provider.
    package static func decodeProvider(id: String, _ value: DBusValue, idField: String = "providerId",
                               field: String = "properties") throws(BusError) -> ProviderInfo {
        try ProviderInfo(id: id, wire: value, idField: idField, field: field)
    }

    /// `a(sss)` → findings (a `Lint` reply, for clients).
    package static func decodeFindings(_ value: DBusValue, field: String = "findings") throws(BusError) -> [LintFinding] {
        try LintFinding.list(fromWire: value, field: field)
    }

    /// Elements → `a(ssa{sv})`.
    package static func encode(_ elements: [MenuElement]) -> DBusValue {
        MenuElement.wireList(elements)
    }

    /// Findings → `a(sss)`.
    package static func encode(_ findings: [LintFinding]) -> DBusValue {
        LintFinding.wireList(findings)
    }

    /// Context → `a{sv}`.
    package static func encode(_ context: ContextInfo) -> DBusValue {
        context.wireValue
    }

    /// Selection → `a{sv}`.
    package static func encode(_ selection: Selection) -> DBusValue {
        selection.wireValue
    }

    /// Provider → properties `a{sv}` (the id travels separately).
    package static func encode(_ provider: ProviderInfo) -> DBusValue {
        provider.wireValue
    }
}
