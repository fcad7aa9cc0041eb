import MenuBusModel

/// Shared inputs and helpers for the model tests.
package enum Fixtures {
    /// An editable plain-text field with content.
    package static let textField = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    /// An editable rich-text field with content.
    package static let richField = ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true,
                                       hasContent: true, richText: true)
    /// Read-only text with content.
    package static let label = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: false, hasContent: true)
    package static let photo = ContextInfo(kind: .image, contentTypes: ["image/png"])

    package static let range = Selection(kind: .range, length: 5, text: "hello")
    package static let caret = Selection(kind: .caret)

    package static let lookup = ProviderInfo(id: "org.example.Dictionary", title: "Dictionary", role: .lookup)
    package static let translate = ProviderInfo(id: "org.example.Translate", title: "Translator", role: .translate)
    package static let searchWeb = ProviderInfo(id: "org.example.Search", title: "Search", role: .searchWeb)
    package static let share = ProviderInfo(id: "org.example.Share", title: "Sharing", role: .share)
    package static let upper = ProviderInfo(id: "org.example.Upper", title: "Make Upper Case", returnsText: true,
                                    requiresEditable: true)
    package static let allRoles = [lookup, translate, searchWeb, share]

    package static func action(_ id: String, parent: String = "", title: String? = nil, icon: String? = nil,
                       attributes: Set<MenuElement.Attribute> = [], state: MenuElement.State = .off,
                       shortcut: String? = nil) -> MenuElement {
        MenuElement(id: id, parent: parent, title: title ?? id.capitalizedWords, icon: icon,
                    attributes: attributes, state: state, shortcut: shortcut)
    }

    package static func submenu(_ id: String, parent: String = "", title: String? = nil,
                        options: Set<MenuElement.MenuOption> = []) -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, title: title ?? id.capitalizedWords, options: options)
    }

    package static func section(_ id: String, parent: String = "") -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, options: [.inline])
    }
}

extension String {
    /// "copy-link" → "Copy Link": titles for test elements.
    package var capitalizedWords: String {
        split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

extension Array where Element == MenuElement {
    /// Ids without sections, `menubus:` dropped: `["cut", "copy", "provider:x"]`.
    package var shownItems: [String] {
        filter { !$0.isSection }.map { $0.id.hasPrefix("menubus:") ? String($0.id.dropFirst(8)) : $0.id }
    }

    /// Every id, in order.
    package var ids: [String] { map(\.id) }

    package func element(_ id: String) -> MenuElement? {
        first { $0.id == id }
    }
}
