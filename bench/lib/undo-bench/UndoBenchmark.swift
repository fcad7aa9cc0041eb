import MenuBusModel
import MenuBusUndo

/// A handle for timing the undo store from outside the library (the
/// `menubus-undo-bench` tool): the library reads no clock, so the tool
/// times these calls, kept to what a benchmark needs; apps use the D-Bus
/// API.
final class UndoBenchmark {
    private let store: UndoStore
    private let appId = "org.menubus.UndoBench"

    /// A store over `<stateDirectory>/undo`, loaded at once; the default
    /// byte quota unless `bytesPerDocument` is given.
    init(stateDirectory: String, bytesPerDocument: Int? = nil) {
        let limits = UndoLimits(bytesPerDocument: bytesPerDocument ?? UndoLimits.defaultBytesPerDocument)
        store = UndoStore(stateDirectory: stateDirectory, limits: limits)
        _ = store.loadAll()
    }

    /// What `RegisterUndo` does below D-Bus: check, journal (write(2)),
    /// apply. Returns the undo count; throws the `UndoError` as text.
    @discardableResult
    func register(document: String, actionName: String, undo: [UInt8], redo: [UInt8],
                         mergeKey: String = "", now: Int64 = 0) throws -> Int {
        do {
            let operation = UndoOperation.register(actionName: actionName, undo: undo, redo: redo, mergeKey: mergeKey)
            return try store.perform(operation, appId: appId, documentId: document, now: now).state.undoCount
        } catch {
            throw BenchmarkFailure(description: "\(error)")
        }
    }

    /// `Undo` below D-Bus; returns the number of payloads to apply.
    @discardableResult
    func undo(document: String) throws -> Int {
        do {
            return try store.perform(.undo, appId: appId, documentId: document, now: 0).move?.payloads.count ?? 0
        } catch {
            throw BenchmarkFailure(description: "\(error)")
        }
    }

    /// The group commit: fdatasync of every journal written since the last call.
    @discardableResult
    func sync() -> Bool { store.sync() }

    var hasUnsyncedWrites: Bool { store.hasUnsyncedWrites }

    /// Rewrites a document's journal as a snapshot now.
    func compact(document: String) throws {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: document),
              let entry = store.documents[key] else { return }
        do {
            try entry.journal.rewrite(entry)
        } catch {
            throw BenchmarkFailure(description: "\(error)")
        }
    }

    /// Bytes of a document's journal file.
    func journalBytes(document: String) -> Int {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: document) else { return 0 }
        return store.documents[key]?.journal.size ?? 0
    }

    /// Undo steps of a document (0 when there is none).
    func undoCount(document: String) -> Int {
        store.state(appId: appId, documentId: document)?.undoCount ?? 0
    }

    /// Syncs and closes the journals.
    func close() { store.close() }

    /// Loads every journal under `<stateDirectory>/undo` into a new store
    /// and returns the undo steps loaded and the findings as text.
    static func reload(stateDirectory: String) -> (steps: Int, findings: [String]) {
        let store = UndoStore(stateDirectory: stateDirectory)
        let report = store.loadAll()
        let steps = store.documents.values.reduce(0) { $0 + $1.stack.undoCount }
        store.close()
        return (steps, report.findings.map(\.description))
    }

    /// A stack held in memory only, to measure what steps cost.
    struct HeldStack {
        package var stack: UndoStack
        var undoCount: Int { stack.undoCount }
        /// Bytes of payloads the steps hold.
        var payloadBytes: Int { stack.liveSteps.reduce(0) { $0 + $1.payloadBytes } }
    }

    /// Registers `steps` steps, each one undo and one redo payload of
    /// `payloadBytes` bytes and a name, without merging, into a stack.
    static func makeStack(steps: Int, payloadBytes: Int, actionName: String = "Typing") -> HeldStack {
        var stack = UndoStack(limits: UndoLimits(bytesPerDocument: Int.max))
        let undo = [UInt8](repeating: 1, count: payloadBytes)
        let redo = [UInt8](repeating: 2, count: payloadBytes)
        for _ in 0..<max(0, steps) {
            _ = try? stack.register(actionName: actionName, undo: undo, redo: redo)
        }
        return HeldStack(stack: stack)
    }

    struct BenchmarkFailure: Error, CustomStringConvertible {
        let description: String
    }
}
