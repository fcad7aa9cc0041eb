import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// How an item shows its `state` in the desktop's menu protocols.
///
/// - `radio`: a direct child of a `single-selection` menu (section or
///   submenu); exactly the `on` one is marked.
/// - `checkmark`: an item whose state is `on` or `mixed`, or a standard
///   command that is a toggle by nature (Bold, Italic, Underline), so it
///   keeps its checkbox while off. Any other item in state `off` is a plain
///   item: MenuBus has no "checkable but off" flag, and a checkbox on every
///   item would be wrong.
/// - `mixed` is `toggle-state` −1 (indeterminate) in dbusmenu; GTK's menu
///   models have no third state, so there it shows unchecked (choosing a
///   mixed Bold makes the whole selection bold, as macOS does).
enum ExportToggle: Equatable {
    case none
    case checkmark
    case radio

    init(_ element: MenuElement, parent: MenuElement?) {
        guard element.kind == .action else {
            self = .none
            return
        }
        if let parent, parent.kind == .menu, parent.has(.singleSelection) {
            self = .radio
        } else if element.state != .off {
            self = .checkmark
        } else if let command = element.command, ExportToggle.toggleCommands.contains(command) {
            self = .checkmark
        } else {
            self = .none
        }
    }

    static let toggleCommands: Set<StandardCommand> = [.bold, .italic, .underline]

    /// `toggle-state` of dbusmenu: 1 on, 0 off, −1 mixed.
    static func dbusmenuState(_ state: MenuElement.State) -> Int32 {
        switch state {
        case .on: 1
        case .off: 0
        case .mixed: -1
        }
    }
}
