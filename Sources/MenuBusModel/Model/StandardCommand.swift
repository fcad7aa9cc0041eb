/// A command MenuBus knows by name: the system items of edit and context
/// menus, each with a fixed title, icon and edit-menu group.
public enum StandardCommand: String, CaseIterable, Hashable, Sendable {
    case undo
    case redo
    case cut
    case copy
    case paste
    case pasteAndMatchStyle = "paste-and-match-style"
    case delete
    case select
    case selectAll = "select-all"
    case bold
    case italic
    case underline
    case lookup
    case translate
    case searchWeb = "search-web"
    case share
    /// Sent by MenuBus when a provider returns replacement text; never a menu item.
    case replaceSelection = "replace-selection"

    /// The item's title as menus show it.
    public var title: String {
        switch self {
        case .undo: "Undo"
        case .redo: "Redo"
        case .cut: "Cut"
        case .copy: "Copy"
        case .paste: "Paste"
        case .pasteAndMatchStyle: "Paste and Match Style"
        case .delete: "Delete"
        case .select: "Select"
        case .selectAll: "Select All"
        case .bold: "Bold"
        case .italic: "Italic"
        case .underline: "Underline"
        case .lookup: "Look Up"
        case .translate: "Translate"
        case .searchWeb: "Search Web"
        case .share: "Share…"
        case .replaceSelection: "Replace Selection"
        }
    }

    /// The freedesktop icon-naming-spec name, where the spec has one.
    public var icon: String? {
        switch self {
        case .undo: "edit-undo"
        case .redo: "edit-redo"
        case .cut: "edit-cut"
        case .copy: "edit-copy"
        case .paste: "edit-paste"
        case .delete: "edit-delete"
        case .selectAll: "edit-select-all"
        case .bold: "format-text-bold"
        case .italic: "format-text-italic"
        case .underline: "format-text-underline"
        case .searchWeb: "system-search"
        case .pasteAndMatchStyle, .select, .lookup, .translate, .share, .replaceSelection: nil
        }
    }

    /// The accelerator people know the command by (GTK syntax), shown in
    /// edit menus for presenters that draw shortcuts; nil where there is no
    /// common one.
    public var accelerator: String? {
        switch self {
        case .undo: "<Control>z"
        case .redo: "<Shift><Control>z"
        case .cut: "<Control>x"
        case .copy: "<Control>c"
        case .paste: "<Control>v"
        case .pasteAndMatchStyle: "<Shift><Control>v"
        case .delete: "Delete"
        case .selectAll: "<Control>a"
        case .bold: "<Control>b"
        case .italic: "<Control>i"
        case .underline: "<Control>u"
        case .select, .lookup, .translate, .searchWeb, .share, .replaceSelection: nil
        }
    }

    /// An icon for every menu item of a command, so a group of system
    /// items is never half with icons: `icon`, else the nearest name icon
    /// themes ship.
    var menuIcon: String {
        if let icon { return icon }
        switch self {
        case .pasteAndMatchStyle: return "edit-paste"
        case .select: return "edit-select"
        case .lookup: return "accessories-dictionary"
        case .translate: return "preferences-desktop-locale"
        case .share: return "document-send"
        default: return "system-run"
        }
    }

    /// The edit-menu group: 1 undo/redo, 2 editing, 3 format, look up,
    /// translate, search, share (and provider commands).
    public var group: Int {
        switch self {
        case .undo, .redo: 1
        case .cut, .copy, .paste, .pasteAndMatchStyle, .delete, .select, .selectAll: 2
        case .bold, .italic, .underline, .lookup, .translate, .searchWeb, .share, .replaceSelection: 3
        }
    }
}
