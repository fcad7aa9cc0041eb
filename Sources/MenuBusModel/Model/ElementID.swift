/// The id scheme of menu elements: what an app may use, and the reserved
/// `menubus:` ids of the elements MenuBus composes in.
///
/// - `menubus:section:1` … `menubus:section:4`: the edit menu's groups;
///   `menubus:section:suggestions`: the context menu's system section.
/// - `menubus:<command>` (`menubus:copy`, `menubus:translate`): a standard command.
/// - `menubus:format`: the edit menu's Format submenu.
/// - `menubus:services`: the submenu gathering the provider suggestions
///   beyond the first few (`ProviderSuggestions`).
/// - `menubus:provider:<provider id>`: a provider's own item.
/// - `menubus:preview`: the menu's preview, which a presenter `Activate`s
///   when it is chosen; the owner hears `ActionInvoked` of this id.
/// - `menubus:primary-action`: a button's primary action, which a
///   presenter `Activate`s for a tap; the owner hears `ActionInvoked` of
///   the primary item's own id.
///
/// The last two are never elements of a layout: they name what the menu
/// carries beside its items.
package enum ElementID {
    /// Ids starting with this belong to MenuBus; apps may not use them.
    static let reservedPrefix = "menubus:"
    static let providerPrefix = "menubus:provider:"
    static let sectionPrefix = "menubus:section:"
    package static let format = "menubus:format"
    package static let services = "menubus:services"
    static let suggestions = "menubus:section:suggestions"
    package static let preview = "menubus:preview"
    package static let primaryAction = "menubus:primary-action"

    /// `menubus:section:<group>`; the edit menu's four as literals.
    package static func section(_ group: Int) -> String {
        switch group {
        case 1: "menubus:section:1"
        case 2: "menubus:section:2"
        case 3: "menubus:section:3"
        case 4: "menubus:section:4"
        default: sectionPrefix + String(group)
        }
    }

    /// `menubus:<command>`, as literals so composing builds no strings.
    package static func command(_ command: StandardCommand) -> String {
        switch command {
        case .undo: "menubus:undo"
        case .redo: "menubus:redo"
        case .cut: "menubus:cut"
        case .copy: "menubus:copy"
        case .paste: "menubus:paste"
        case .pasteAndMatchStyle: "menubus:paste-and-match-style"
        case .delete: "menubus:delete"
        case .select: "menubus:select"
        case .selectAll: "menubus:select-all"
        case .bold: "menubus:bold"
        case .italic: "menubus:italic"
        case .underline: "menubus:underline"
        case .lookup: "menubus:lookup"
        case .translate: "menubus:translate"
        case .searchWeb: "menubus:search-web"
        case .share: "menubus:share"
        case .replaceSelection: "menubus:replace-selection"
        }
    }

    package static func provider(_ providerId: String) -> String {
        providerPrefix + providerId
    }

    /// The standard command a composed id stands for (`menubus:copy` → copy).
    package static func command(in id: String) -> StandardCommand? {
        guard id.hasPrefix(reservedPrefix) else { return nil }
        return StandardCommand(rawValue: String(id.dropFirst(reservedPrefix.count)))
    }

    /// The provider id of a composed provider item, if `id` is one.
    package static func providerId(in id: String) -> String? {
        guard id.hasPrefix(providerPrefix) else { return nil }
        return String(id.dropFirst(providerPrefix.count))
    }

    static func isReserved(_ id: String) -> Bool {
        id.hasPrefix(reservedPrefix)
    }

    /// True for `[A-Za-z0-9._:-]`.
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Checks `id` is 1…`maxBytes` bytes of `[A-Za-z0-9._:-]`.
    package static func check(_ id: String, field: @autoclosure () -> String,
                      maxBytes: Int = Limits.maxIdBytes) throws(ModelError) {
        let count = id.utf8.count
        guard count > 0 else { throw .invalid(field(), "an id may not be empty") }
        guard count <= maxBytes else {
            throw .limit(field(), "an id of \(count) bytes is longer than the limit of \(maxBytes) bytes")
        }
        guard id.utf8.allSatisfy(isAllowed) else {
            throw .invalid(field(), "id \(ModelError.quoted(id)) may only contain A-Z, a-z, 0-9, '.', '_', ':' and '-'")
        }
    }
}
