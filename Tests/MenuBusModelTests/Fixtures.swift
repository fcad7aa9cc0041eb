@testable import MenuBus

/// Shared inputs and helpers for the model tests.
enum Fixtures {
    /// An editable plain-text field with content.
    static let textField = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    /// An editable rich-text field with content.
    static let richField = ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true,
                                       hasContent: true, richText: true)
    /// Read-only text with content.
    static let label = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: false, hasContent: true)
    static let photo = ContextInfo(kind: .image, contentTypes: ["image/png"])

    static let range = Selection(kind: .range, length: 5, text: "hello")
    static let caret = Selection(kind: .caret)

    static let lookup = ProviderInfo(id: "org.example.Dictionary", title: "Dictionary", role: .lookup)
    static let translate = ProviderInfo(id: "org.example.Translate", title: "Translator", role: .translate)
    static let searchWeb = ProviderInfo(id: "org.example.Search", title: "Search", role: .searchWeb)
    static let share = ProviderInfo(id: "org.example.Share", title: "Sharing", role: .share)
    static let upper = ProviderInfo(id: "org.example.Upper", title: "Make Upper Case", returnsText: true,
                                    requiresEditable: true)
    static let allRoles = [lookup, translate, searchWeb, share]

    static func action(_ id: String, parent: String = "", title: String? = nil, icon: String? = nil,
                       attributes: Set<MenuElement.Attribute> = [], state: MenuElement.State = .off,
                       shortcut: String? = nil) -> MenuElement {
        MenuElement(id: id, parent: parent, title: title ?? id.capitalizedWords, icon: icon,
                    attributes: attributes, state: state, shortcut: shortcut)
    }

    static func submenu(_ id: String, parent: String = "", title: String? = nil,
                        options: Set<MenuElement.MenuOption> = []) -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, title: title ?? id.capitalizedWords, options: options)
    }

    static func section(_ id: String, parent: String = "") -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, options: [.inline])
    }
}

extension String {
    /// "copy-link" → "Copy Link": titles for test elements.
    var capitalizedWords: String {
        split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

extension Array where Element == MenuElement {
    /// Ids without sections, `menubus:` dropped: `["cut", "copy", "provider:x"]`.
    var shownItems: [String] {
        filter { !$0.isSection }.map { $0.id.hasPrefix("menubus:") ? String($0.id.dropFirst(8)) : $0.id }
    }

    /// Every id, in order.
    var ids: [String] { map(\.id) }

    func element(_ id: String) -> MenuElement? {
        first { $0.id == id }
    }
}
