import MenuBusModel

/// One step of an undo stack: an action name and the payloads of every
/// `RegisterUndo` that went into it (one for a plain step, several for a
/// merged step or a group), each registration an undo and a redo payload.
///
/// The payloads are opaque bytes kept in one buffer, registration after
/// registration as `[undo length u32 LE][undo][redo length u32 LE][redo]`,
/// so a step costs one allocation beyond its inline 48 bytes however many
/// registrations it holds, and merging appends in amortized constant time.
/// Empty payloads are kept, so `undoPayloads` and `redoPayloads` always
/// have one entry per registration.
package struct UndoStep: Hashable, Sendable {
    /// The name shown as "Undo ‹name›"; may be empty.
    var actionName: String
    /// The `merge-key` of the registrations in it; empty for a group and for
    /// steps that never merge.
    var mergeKey: String
    /// The registrations, encoded as described above.
    private(set) var encoded: [UInt8]
    /// How many registrations `encoded` holds.
    private(set) var registrationCount: Int

    init(actionName: String, mergeKey: String = "") {
        self.actionName = actionName
        self.mergeKey = mergeKey
        encoded = []
        registrationCount = 0
    }

    /// A step with one registration, its buffer allocated to size.
    init(actionName: String, mergeKey: String, undo: some Collection<UInt8>, redo: some Collection<UInt8>) {
        self.init(actionName: actionName, mergeKey: mergeKey)
        encoded.reserveCapacity(8 + undo.count + redo.count)
        append(undo: undo, redo: redo)
    }

    /// A step from its encoded registrations (a journal snapshot); nil when
    /// the lengths do not add up to exactly `registrationCount` registrations.
    init?(actionName: String, mergeKey: String, registrationCount: Int, encoded: [UInt8]) {
        guard registrationCount >= 0, UndoStep.count(encoded) == registrationCount else { return nil }
        self.actionName = actionName
        self.mergeKey = mergeKey
        self.encoded = encoded
        self.registrationCount = registrationCount
    }

    /// An empty placeholder that holds no memory.
    static let empty = UndoStep(actionName: "")

    /// Bytes of all payloads.
    package var payloadBytes: Int { encoded.count - UndoLimits.registrationOverheadBytes * registrationCount }

    /// What the step counts against the document's byte quota: payloads,
    /// names, 8 bytes a registration and `UndoLimits.stepOverheadBytes`.
    var cost: Int { UndoStep.cost(encodedBytes: encoded.count, actionName: actionName, mergeKey: mergeKey) }

    /// The cost of a step with this many encoded bytes and these names.
    static func cost(encodedBytes: Int, actionName: String, mergeKey: String) -> Int {
        encodedBytes + actionName.utf8.count + mergeKey.utf8.count + UndoLimits.stepOverheadBytes
    }

    /// Adds a registration after the others.
    mutating func append(undo: some Collection<UInt8>, redo: some Collection<UInt8>) {
        UndoStep.appendLength(undo.count, to: &encoded)
        encoded.append(contentsOf: undo)
        UndoStep.appendLength(redo.count, to: &encoded)
        encoded.append(contentsOf: redo)
        registrationCount += 1
    }

    /// Adds every registration of `other` after these (merging, a group).
    mutating func append(registrationsOf other: UndoStep) {
        encoded.append(contentsOf: other.encoded)
        registrationCount += other.registrationCount
    }

    /// The undo payloads to apply, newest registration first.
    var undoPayloads: [[UInt8]] {
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(registrationCount)
        forEachRegistration { undo, _ in payloads.append(Array(undo)) }
        payloads.reverse()
        return payloads
    }

    /// The redo payloads to apply, oldest registration first.
    var redoPayloads: [[UInt8]] {
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(registrationCount)
        forEachRegistration { _, redo in payloads.append(Array(redo)) }
        return payloads
    }

    /// Calls `body` with the undo and redo payload of each registration, oldest first.
    func forEachRegistration(_ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        var offset = 0
        while offset < encoded.count {
            guard let undoLength = UndoStep.length(in: encoded, at: offset) else { return }
            let undoStart = offset + 4
            guard let redoLength = UndoStep.length(in: encoded, at: undoStart + undoLength) else { return }
            let redoStart = undoStart + undoLength + 4
            body(encoded[undoStart..<undoStart + undoLength], encoded[redoStart..<redoStart + redoLength])
            offset = redoStart + redoLength
        }
    }

    private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        let value = UInt32(truncatingIfNeeded: length)
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The length stored at `offset`, if it and the bytes it counts are inside `bytes`.
    private static func length(in bytes: [UInt8], at offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        guard length <= bytes.count - offset - 4 else { return nil }
        return length
    }

    /// Registrations in `bytes`, or nil when they do not end exactly at its end.
    private static func count(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        var registrations = 0
        while offset < bytes.count {
            guard let undoLength = length(in: bytes, at: offset),
                  let redoLength = length(in: bytes, at: offset + 4 + undoLength) else { return nil }
            offset += 8 + undoLength + redoLength
            registrations += 1
        }
        return registrations
    }
}
