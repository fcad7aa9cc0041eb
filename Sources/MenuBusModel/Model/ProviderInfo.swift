/// A service an app offers to every app's menus with `RegisterProvider`
/// (translate, look up, or an item of its own such as "Convert to
/// Uppercase"): what the client registers and what the daemon composes.
public struct ProviderInfo: Hashable, Sendable {
    /// Unique on the bus; at most `Limits.maxProviderIdBytes` of
    /// `[A-Za-z0-9._:-]` so that `menubus:provider:<id>` is a valid element id.
    public var id: String
    public var title: String
    public var icon: String?
    /// The system item it performs, or nil for an item of its own.
    public var role: ProviderRole?
    /// MIME types it can process.
    public var contentTypes: [String]
    /// `Process` returns replacement text for the selection.
    public var returnsText: Bool
    /// Offer it only in editable contexts.
    public var requiresEditable: Bool

    public init(id: String, title: String, icon: String? = nil, role: ProviderRole? = nil,
                contentTypes: [String] = ["text/plain"], returnsText: Bool = false,
                requiresEditable: Bool = false) {
        self.id = id
        self.title = title
        self.icon = icon
        self.role = role
        self.contentTypes = contentTypes
        self.returnsText = returnsText
        self.requiresEditable = requiresEditable
    }

    /// True when the provider can work on this context's content: the
    /// context is editable if it must be, and one of the provider's content
    /// types takes one of the context's.
    package func matches(_ context: ContextInfo) -> Bool {
        matches(contentTypes: ContentType.parse(context.effectiveContentTypes), editable: context.editable)
    }

    /// `matches(_:)` with the context's content types parsed once by the caller.
    package func matches(contentTypes offered: [ContentType], editable: Bool) -> Bool {
        if requiresEditable && !editable { return false }
        for raw in contentTypes {
            let wanted = ContentType(raw)
            for candidate in offered where wanted.accepts(candidate) {
                return true
            }
        }
        return false
    }

    /// Checks the id, the strings and the content types against the API's
    /// rules and `Limits`; `field` names the properties dict.
    package func validate(idField: String = "providerId", field: String = "properties") throws(ModelError) {
        try ElementID.check(id, field: idField, maxBytes: Limits.maxProviderIdBytes)
        try StringCheck.length(title, field: field + ".title")
        if let icon { try StringCheck.length(icon, field: field + ".icon") }
        try StringCheck.list(contentTypes, field: field + ".content-types", maxCount: Limits.maxContentTypes)
    }
}
