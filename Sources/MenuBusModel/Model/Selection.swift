/// The selection in a context, as the edit menu needs it.
public struct Selection: Hashable, Sendable {
    /// How much is selected.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// Nothing, not even an insertion point.
        case none
        /// An insertion point.
        case caret
        /// Part of the content.
        case range
        /// All of the content.
        case all
    }

    /// A text style in effect over the selection.
    public enum TextAttribute: String, CaseIterable, Hashable, Sendable {
        case bold, italic, underline
    }

    /// None (default), caret, range or all.
    public var kind: Kind
    /// Length of the selection, in the app's own units (characters, items).
    public var length: UInt32
    /// The selected text, when short enough to send; lets providers work
    /// without asking the app.
    public var text: String?
    /// Bold, italic, underline in effect over the selection.
    public var attributes: Set<TextAttribute>
    /// MIME types the clipboard offers now.
    public var pasteboardTypes: [String]
    /// Where the selection is, in the app's surface coordinates, so a
    /// presenter can place the edit menu without covering it.
    public var rect: Rect?
    /// The selected files and links as URIs (`file:///…`, `https://…`):
    /// the selection then carries `text/uri-list`, and providers that take
    /// it are offered (see Selection+URIs.swift).
    public var uris: [String] = []
    /// The field has the keyboard focus of its app's window: send true when
    /// it gains it and false when it loses it (the window's included), so a
    /// desktop shortcut can ask for its menu (`ShowMenuForFocus`).
    public var focused = false

    /// A selection; every property has the API's default.
    public init(
        kind: Kind = .none, length: UInt32 = 0, text: String? = nil,
        attributes: Set<TextAttribute> = [], pasteboardTypes: [String] = [], rect: Rect? = nil
    ) {
        self.kind = kind
        self.length = length
        self.text = text
        self.attributes = attributes
        self.pasteboardTypes = pasteboardTypes
        self.rect = rect
    }

    /// A range or everything, and not empty: what Cut, Copy and Delete act on.
    public var hasSelectedContent: Bool {
        (kind == .range || kind == .all) && length > 0
    }

    /// Checks strings and lists against `Limits`; `field` names the dict.
    package func validate(field: String = "selection") throws(ModelError) {
        if let text { try StringCheck.length(text, field: field + ".text", maxBytes: Limits.maxSelectionTextBytes) }
        try StringCheck.list(pasteboardTypes, field: field + ".pasteboard-types", maxCount: Limits.maxContentTypes)
        try rect?.validate(field: field + ".rect")
        try validateURIs(field: field + ".uris")
    }
}
