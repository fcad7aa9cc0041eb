/// What `GetUndoState` answers and `UndoStateChanged` carries, field for
/// field (`can-undo`, `can-redo`, `undo-title`, `redo-title`, `undo-count`,
/// `redo-count`, `clean`, `dropped`), and what the edit menu needs
/// (`summary`).
///
/// While a group is open, `canUndo` and `canRedo` are false (Undo and Redo
/// are refused until it ends) and the document is not clean once the group
/// holds a registration, as with QUndoStack's macros.
public struct UndoState: Hashable, Sendable {
    public var canUndo: Bool
    public var canRedo: Bool
    /// The name of the step Undo would revert; nil when `canUndo` is false.
    public var undoActionName: String?
    /// The name of the step Redo would apply; nil when `canRedo` is false.
    public var redoActionName: String?
    /// Steps that can be undone (a step is one entry however many
    /// registrations it merged or grouped).
    public var undoCount: Int
    /// Steps that can be redone.
    public var redoCount: Int
    /// The document is at the position marked by `MarkClean`.
    public var clean: Bool
    /// Steps dropped by the undo levels or the byte quota since the
    /// document was created or last cleared. The wire form is `u`: clamp.
    public var dropped: Int
    /// Undo groups open now (0 when none): Undo, Redo and MarkClean wait
    /// for them to end.
    public var groupDepth: Int = 0
    /// The outermost open group's name, when one is open.
    public var openGroup: String? = nil

    public init(canUndo: Bool = false, canRedo: Bool = false, undoActionName: String? = nil,
                redoActionName: String? = nil, undoCount: Int = 0, redoCount: Int = 0, clean: Bool = true,
                dropped: Int = 0, groupDepth: Int = 0, openGroup: String? = nil) {
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.undoActionName = undoActionName
        self.redoActionName = redoActionName
        self.undoCount = undoCount
        self.redoCount = redoCount
        self.clean = clean
        self.dropped = dropped
        self.groupDepth = groupDepth
        self.openGroup = openGroup
    }

    /// What the edit menu composes Undo and Redo from.
    package var summary: UndoSummary {
        UndoSummary(canUndo: canUndo, canRedo: canRedo,
                    undoActionName: undoActionName, redoActionName: redoActionName)
    }

    /// "Undo Typing"; "Undo" when the step is unnamed or there is none.
    public var undoTitle: String { summary.undoTitle }

    /// "Redo Typing"; "Redo" when the step is unnamed or there is none.
    public var redoTitle: String { summary.redoTitle }
}
