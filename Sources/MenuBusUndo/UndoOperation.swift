import MenuBusModel

/// One change to a document's undo stack: what a D-Bus call asks for, what
/// `UndoStack.perform` applies, and what a journal record holds, so that
/// replaying the journal's operations rebuilds the stack exactly.
///
/// | operation | D-Bus method |
/// | --- | --- |
/// | `register` | `RegisterUndo(documentId, actionName, undoData, redoData, {merge-key})` |
/// | `beginGroup` / `endGroup` | `BeginUndoGroup` / `EndUndoGroup` |
/// | `undo` / `redo` | `Undo` / `Redo` |
/// | `markClean` | `MarkClean` |
/// | `setLimit` | `SetUndoLimit(documentId, levels)` |
/// | `clear` | `ClearUndo` (the service may remove the document instead, `UndoStore.remove`) |
package enum UndoOperation: Hashable, Sendable {
    case register(actionName: String, undo: [UInt8], redo: [UInt8], mergeKey: String)
    case beginGroup(actionName: String)
    case endGroup
    case undo
    case redo
    case markClean
    /// Undo levels; 0 means unlimited.
    case setLimit(levels: Int)
    case clear

    /// Whether the operation may create the document it names: those that
    /// add to a stack or set it up do; the others answer `NoSuchDocument`
    /// for a document the app does not have.
    package var createsDocument: Bool {
        switch self {
        case .register, .beginGroup, .markClean, .setLimit: true
        case .endGroup, .undo, .redo, .clear: false
        }
    }
}
