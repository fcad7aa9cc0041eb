/// What the edit menu needs to know about a document's undo stack.
package struct UndoSummary: Hashable, Sendable {
    package var canUndo: Bool
    package var canRedo: Bool
    /// The action name of the step Undo would revert ("Typing").
    package var undoActionName: String?
    /// The action name of the step Redo would apply.
    package var redoActionName: String?

    package init(canUndo: Bool = false, canRedo: Bool = false,
         undoActionName: String? = nil, redoActionName: String? = nil) {
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.undoActionName = undoActionName
        self.redoActionName = redoActionName
    }

    /// "Undo Typing", or "Undo" when the step has no name.
    package var undoTitle: String { Self.title(.undo, undoActionName) }

    /// "Redo Typing", or "Redo" when the step has no name.
    package var redoTitle: String { Self.title(.redo, redoActionName) }

    private static func title(_ command: StandardCommand, _ name: String?) -> String {
        guard let name, !name.allSatisfy(\.isWhitespace) else { return command.title }
        return command.title + " " + name
    }
}
