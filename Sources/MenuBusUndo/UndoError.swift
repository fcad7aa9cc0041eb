import MenuBusModel

/// Why an undo call was refused: what kind of fault, which field (an API
/// argument name: `documentId`, `actionName`, `undoData`, `options.merge-key`,
/// `levels`) and a sentence. Nothing was changed or written when one is
/// thrown.
///
/// The service maps kinds to docs/API.md's error names:
///
/// | kind | D-Bus error |
/// | --- | --- |
/// | `nothingToUndo` | `org.menubus.MenuBus1.Error.NothingToUndo` |
/// | `nothingToRedo` | `org.menubus.MenuBus1.Error.NothingToRedo` |
/// | `noSuchDocument` | `org.menubus.MenuBus1.Error.NoSuchDocument` |
/// | `limitExceeded(_)` | `org.menubus.MenuBus1.Error.LimitExceeded` |
/// | `invalidArgument` | `org.freedesktop.DBus.Error.InvalidArgs` |
/// | `groupOpen` | `org.menubus.MenuBus1.Error.UndoGroupOpen`, naming the open group |
/// | `noOpenGroup` | `org.menubus.MenuBus1.Error.NoUndoGroup` |
/// | `storage(errno:)` | `org.menubus.MenuBus1.Error.StorageFailed`, naming the document and the cause |
///
/// ```swift
/// extension UndoError {
///     var busError: BusError {
///         switch kind {
///         case .nothingToUndo: BusError(.nothingToUndo, description)
///         case .nothingToRedo: BusError(.nothingToRedo, description)
///         case .noSuchDocument: BusError(.noSuchDocument, description)
///         case .limitExceeded: BusError(.limitExceeded, description)
///         case .groupOpen: BusError(.undoGroupOpen, description)
///         case .noOpenGroup: BusError(.noUndoGroup, description)
///         case .invalidArgument: .invalidArgs(description)
///         case .storage: BusError(.storageFailed, description)
///         }
///     }
/// }
/// ```
package struct UndoError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: Hashable, Sendable {
        /// `Undo` with no step to undo.
        case nothingToUndo
        /// `Redo` with no step to redo.
        case nothingToRedo
        /// A call that needs an existing document named one the app does not have.
        case noSuchDocument
        /// `Undo`, `Redo` or `MarkClean` while a group is open (as QUndoStack).
        case groupOpen
        /// `EndUndoGroup` with no group open.
        case noOpenGroup
        /// A value that breaks a rule (an empty document id).
        case invalidArgument
        /// A value over one of `UndoLimits`, which is named.
        case limitExceeded(UndoLimits.Bound)
        /// The journal could not be written; `errno` says why.
        case storage(errno: Int32)
    }

    package let kind: Kind
    /// The API argument at fault, or `documentId` for the document's state.
    package let field: String
    /// A sentence about what is wrong; never echoes a payload.
    package let message: String

    package var description: String { "\(field): \(message)" }

    package static func limit(_ bound: UndoLimits.Bound, field: String, value: Int, limit: Int) -> UndoError {
        UndoError(kind: .limitExceeded(bound), field: field,
                  message: "\(value) is over the limit of \(limit) \(bound.rawValue)")
    }
}
