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
