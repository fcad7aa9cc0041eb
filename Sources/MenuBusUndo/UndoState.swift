import MenuBusModel

/// What `GetUndoState` answers and `UndoStateChanged` carries, field for
/// field (`can-undo`, `can-redo`, `undo-title`, `redo-title`, `undo-count`,
/// `redo-count`, `clean`, `dropped`), and what the edit menu needs
/// (`summary`).
///
/// While a group is open, `canUndo` and `canRedo` are false (Undo and Redo
/// are refused until it ends) and the document is not clean once the group
/// holds a registration, as with QUndoStack's macros.
package struct UndoState: Hashable, Sendable {
    package var canUndo: Bool
    package var canRedo: Bool
    /// The name of the step Undo would revert; nil when `canUndo` is false.
    package var undoActionName: String?
    /// The name of the step Redo would apply; nil when `canRedo` is false.
    package var redoActionName: String?
    /// Steps that can be undone (a step is one entry however many
    /// registrations it merged or grouped).
    package var undoCount: Int
    /// Steps that can be redone.
    package var redoCount: Int
    /// The document is at the position marked by `MarkClean`.
    package var clean: Bool
    /// Steps dropped by the undo levels or the byte quota since the
    /// document was created or last cleared. The wire form is `u`: clamp.
    package var dropped: Int
    /// Undo groups open now (0 when none): Undo, Redo and MarkClean wait
    /// for them to end.
    package var groupDepth: Int = 0
    /// The outermost open group's name, when one is open.
    package var openGroup: String? = nil

    /// What the edit menu composes Undo and Redo from.
    package var summary: UndoSummary {
        UndoSummary(canUndo: canUndo, canRedo: canRedo,
                    undoActionName: undoActionName, redoActionName: redoActionName)
    }

    /// "Undo Typing"; "Undo" when the step is unnamed or there is none.
    package var undoTitle: String { summary.undoTitle }

    /// "Redo Typing"; "Redo" when the step is unnamed or there is none.
    package var redoTitle: String { summary.redoTitle }
}
