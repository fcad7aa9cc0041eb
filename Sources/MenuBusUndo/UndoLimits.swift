import MenuBusModel

/// Every bound of the undo service, in one place.
///
/// A value over a bound is refused before anything is stored or written,
/// with `UndoError.Kind.limitExceeded(bound)` (the service answers
/// `org.menubus.MenuBus1.Error.LimitExceeded`, the message naming the field
/// and the bound). The memory and disk budgets, daemon-wide and per app
/// id, are settings the daemon may change (command-line flags); the others
/// are fixed.
///
/// Two bounds drop instead of refusing, as the API asks: the undo levels a
/// document sets (`SetUndoLimit`) and the byte quota per document. When a
/// new step takes a document over either, its oldest steps go, counted in
/// `UndoState.dropped`. A single step larger than the whole quota is
/// refused (`bytesPerDocument`), as is a group that would outgrow it.
package struct UndoLimits: Hashable, Sendable {
    /// A bound, named in messages by its `rawValue`.
    package enum Bound: String, CaseIterable, Hashable, Sendable {
        case payloadBytesPerStep = "payload bytes per step"
        case actionNameBytes = "action name bytes"
        case mergeKeyBytes = "merge key bytes"
        case documentIdBytes = "document id bytes"
        case appIdBytes = "app id bytes"
        case stepsPerGroup = "steps per group"
        case groupDepth = "group depth"
        case documentsPerApp = "documents per app"
        case bytesPerDocument = "bytes per document"
        /// Daemon-wide: undo bytes on disk, every journal together (`--undo-disk-budget`).
        case diskBytes = "undo bytes on disk"
        /// One app id's journals together (`--undo-app-disk-budget`).
        case appDiskBytes = "undo bytes on disk per app"
    }

    /// Undo bytes menubusd keeps in memory, every document together
    /// (`UndoStack.totalBytes`); past it the least recently used documents
    /// are dropped from memory and read again from their journals on use.
    static let defaultMemoryBytes = 256 << 20
    /// Undo bytes on disk, every journal together; past it a new step or
    /// document is refused (`LimitExceeded`), nothing stored is lost.
    static let defaultDiskBytes = 2 << 30
    /// Undo bytes one app id keeps in memory; past it that app's least
    /// recently used documents are dropped from memory, so no one app
    /// takes the daemon-wide budget from the others.
    static let defaultAppMemoryBytes = 32 << 20
    /// Undo bytes one app id keeps on disk; past it its new steps are refused.
    static let defaultAppDiskBytes = 256 << 20

    /// Bytes of one `RegisterUndo`'s undo and redo data together. Merged
    /// steps and groups grow past it; the document quota bounds them.
    package static let defaultPayloadBytesPerStep = 1 << 20
    /// Bytes a document's steps may hold in all (`UndoStep.cost`: payloads,
    /// names and a fixed overhead per step) before its oldest steps go.
    /// Keep it under what one message body may hold (`Message.maxBodyBytes`,
    /// 60 MiB, below D-Bus's 64 MiB array limit): one step can be this large
    /// and travels back in one `Undo` reply.
    package static let defaultBytesPerDocument = 48 << 20
    /// Bytes (UTF-8) of an action name ("Typing").
    static let maxActionNameBytes = 256
    /// Bytes of a `merge-key`.
    static let maxMergeKeyBytes = 256
    /// Bytes of a document id; the journal's file name is a hash, so any
    /// string this long is safe.
    static let maxDocumentIdBytes = Limits.maxStringBytes
    /// `RegisterUndo` calls inside one outermost group.
    static let maxStepsPerGroup = 100_000
    /// Groups open inside each other.
    static let maxGroupDepth = 64
    /// Documents one app id may hold.
    static let maxDocumentsPerApp = 256
    /// Bytes one step counts against the quota beyond its payloads and
    /// names: about what it costs in memory, so that a flood of empty
    /// steps is bounded too.
    static let stepOverheadBytes = 64
    /// Bytes each registration in a step counts (its two stored lengths).
    static let registrationOverheadBytes = 8

    /// Bytes of one `RegisterUndo`'s undo and redo data together.
    var payloadBytesPerStep: Int
    /// The byte quota of one document.
    package var bytesPerDocument: Int
    /// Daemon-wide undo bytes in memory (`--undo-memory-budget`).
    package var memoryBytes = UndoLimits.defaultMemoryBytes
    /// Daemon-wide undo bytes on disk (`--undo-disk-budget`).
    package var diskBytes = UndoLimits.defaultDiskBytes
    /// One app id's undo bytes in memory (`--undo-app-memory-budget`).
    package var appMemoryBytes = UndoLimits.defaultAppMemoryBytes
    /// One app id's undo bytes on disk (`--undo-app-disk-budget`).
    package var appDiskBytes = UndoLimits.defaultAppDiskBytes

    package init(payloadBytesPerStep: Int = UndoLimits.defaultPayloadBytesPerStep,
         bytesPerDocument: Int = UndoLimits.defaultBytesPerDocument) {
        self.payloadBytesPerStep = max(0, payloadBytesPerStep)
        self.bytesPerDocument = max(0, bytesPerDocument)
    }

    /// The value of a bound under these settings.
    package func value(of bound: Bound) -> Int {
        switch bound {
        case .payloadBytesPerStep: payloadBytesPerStep
        case .actionNameBytes: Self.maxActionNameBytes
        case .mergeKeyBytes: Self.maxMergeKeyBytes
        case .documentIdBytes: Self.maxDocumentIdBytes
        case .appIdBytes: Limits.maxAppIdBytes
        case .stepsPerGroup: Self.maxStepsPerGroup
        case .groupDepth: Self.maxGroupDepth
        case .documentsPerApp: Self.maxDocumentsPerApp
        case .bytesPerDocument: bytesPerDocument
        case .diskBytes: diskBytes
        case .appDiskBytes: appDiskBytes
        }
    }
}
