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
    /// A key that runs it on the selection in every app whose shim sees
    /// the key go unused (GTK accelerator syntax, `<Control><Alt>u`), as
    /// the macOS Services shortcuts do; edit menus show it beside the item.
    public var shortcut: String?

    public init(id: String, title: String, icon: String? = nil, role: ProviderRole? = nil,
                contentTypes: [String] = ["text/plain"], returnsText: Bool = false,
                requiresEditable: Bool = false, shortcut: String? = nil) {
        self.id = id
        self.title = title
        self.icon = icon
        self.role = role
        self.contentTypes = contentTypes
        self.returnsText = returnsText
        self.requiresEditable = requiresEditable
        self.shortcut = shortcut
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
        if let shortcut { try Self.checkShortcut(shortcut, field: field + ".shortcut") }
    }

    /// A provider's shortcut is an accelerator with `<Control>`, `<Alt>`
    /// or `<Super>`: a key with no modifier, or with Shift alone, is one
    /// that typing needs, and a field that leaves it unused would lose it.
    static func checkShortcut(_ shortcut: String, field: @autoclosure () -> String) throws(ModelError) {
        try ShortcutSyntax.check(shortcut, field: field())
        guard let canonical = ShortcutSyntax.canonical(shortcut),
              ["<control>", "<alt>", "<super>"].contains(where: canonical.contains) else {
            throw .invalid(field(), "\(ModelError.quoted(shortcut)) needs <Control>, <Alt> or <Super>: a key without them is one that typing needs")
        }
    }
}
