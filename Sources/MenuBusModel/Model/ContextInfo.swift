/// What an app says about an on-screen item it publishes as a context: a
/// text field, a photo, a file row. Menus are composed from it.
public struct ContextInfo: Hashable, Sendable {
    /// What sort of item the context is.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case text, image, file, url, item
        /// A button (a toolbar's): its menu is the app's items alone, with
        /// an optional primary action (`primaryAction`).
        case button
        /// A back or forward button's history: its menu lists visited
        /// places, most recent first, filled by a deferred element that is
        /// asked for at every presentation.
        case history

        /// A button or a history button: no suggestions, a primary action.
        public var isButton: Bool { self == .button || self == .history }
    }

    /// Text, image, file, URL, item (default), button or history.
    public var kind: Kind
    /// MIME types of the content; for a text context, what Paste accepts.
    /// Empty means the default for `kind` (see `effectiveContentTypes`).
    public var contentTypes: [String]
    /// The user can change the content (Cut, Paste, Delete, Format).
    public var editable: Bool
    /// There is content to select (Select, Select All).
    public var hasContent: Bool
    /// The content keeps styles (Format, Paste and Match Style).
    public var richText: Bool
    /// The undo document the context edits.
    public var document: String?
    /// What the app can perform; nil means the default for `kind`
    /// (see `effectiveSupportedCommands`).
    public var supportedCommands: Set<StandardCommand>?
    /// A name for the item, for presenters that show one.
    public var title: String?
    /// False: the item offers no menu now (UIKit's
    /// `contextMenuInteractionEnabled`); `PresentMenu` refuses.
    public var enabled: Bool
    /// What a presenter may show above the menu (`PresentMenu`'s `Preview`).
    public var preview: ContextPreview?
    /// For a button: the id of the app's item a tap runs
    /// (`ActivatePrimaryAction`); it may be `hidden`, so it is not also in the menu.
    public var primaryAction: String?
    /// For a button: a tap shows the menu, as UIKit's
    /// `showsMenuAsPrimaryAction`; then there is no other primary action.
    public var menuIsPrimaryAction: Bool

    /// A context; every property has the API's default.
    public init(
        kind: Kind = .item, contentTypes: [String] = [], editable: Bool = false,
        hasContent: Bool = false, richText: Bool = false, document: String? = nil,
        supportedCommands: Set<StandardCommand>? = nil, title: String? = nil, enabled: Bool = true,
        preview: ContextPreview? = nil, primaryAction: String? = nil, menuIsPrimaryAction: Bool = false
    ) {
        self.preview = preview
        self.primaryAction = primaryAction
        self.menuIsPrimaryAction = menuIsPrimaryAction
        self.kind = kind
        self.contentTypes = contentTypes
        self.editable = editable
        self.hasContent = hasContent
        self.richText = richText
        self.document = document
        self.supportedCommands = supportedCommands
        self.title = title
        self.enabled = enabled
    }

    /// `supportedCommands`, or when the app gave none, the default for `kind`:
    /// every standard command for `text`; Copy and Share for `image`, `file`
    /// and `url` (Look Up and Translate work on text only); Copy and Share
    /// for `item` too, which offer themselves only when the item declares
    /// content types.
    public var effectiveSupportedCommands: Set<StandardCommand> {
        if let supportedCommands { return supportedCommands }
        return Set(StandardCommand.allCases.filter { Self.supportsByDefault($0, kind: kind) })
    }

    /// `contentTypes`, or when empty, the default for `kind`: `text/plain`
    /// for text, `image/*` for an image, `text/uri-list` for a file or URL,
    /// nothing for an item.
    public var effectiveContentTypes: [String] {
        if !contentTypes.isEmpty { return contentTypes }
        switch kind {
        case .text: return ["text/plain"]
        case .image: return ["image/*"]
        case .file, .url: return ["text/uri-list"]
        case .item, .button, .history: return []
        }
    }

    /// True when a provider's answer may replace the selection here: the
    /// context is editable and its app can perform `replace-selection`.
    /// Elsewhere providers that change the text are not offered, and an
    /// answer goes to the chooser as `ProviderResult`.
    public var takesReplacement: Bool {
        editable && supports(.replaceSelection)
    }

    /// True when the app can perform `command` in this context.
    public func supports(_ command: StandardCommand) -> Bool {
        if let supportedCommands { return supportedCommands.contains(command) }
        return Self.supportsByDefault(command, kind: kind)
    }

    private static func supportsByDefault(_ command: StandardCommand, kind: Kind) -> Bool {
        switch kind {
        case .text: true
        case .image, .file, .url, .item: command == .copy || command == .share
        case .button, .history: false
        }
    }

    /// Checks strings and lists against `Limits`, the preview, and that
    /// only a button has a primary action; `field` names the dict.
    package func validate(field: String = "context") throws(ModelError) {
        try preview?.validate(field: field + ".preview")
        if let primaryAction {
            try ElementID.check(primaryAction, field: field + ".primary-action")
            guard kind.isButton else {
                throw .invalid(field + ".primary-action", "only a button or history context has a primary action")
            }
            guard !menuIsPrimaryAction else {
                throw .invalid(field + ".primary-action",
                               "a button whose menu is its primary action (menu-is-primary-action) has no other")
            }
        }
        if menuIsPrimaryAction && !kind.isButton {
            throw .invalid(field + ".menu-is-primary-action", "only a button or history context has a primary action")
        }
        try StringCheck.list(contentTypes, field: field + ".content-types", maxCount: Limits.maxContentTypes)
        if let document { try StringCheck.length(document, field: field + ".document") }
        if let title { try StringCheck.length(title, field: field + ".title") }
        if let supportedCommands, supportedCommands.count > Limits.maxSupportedCommands {
            throw .limit(field + ".supported-commands",
                         "\(supportedCommands.count) entries are more than the limit of \(Limits.maxSupportedCommands)")
        }
    }
}
