import MenuBusModel

/// One record of an undo journal, and its bytes on disk.
///
/// A journal file is a sequence of framed records:
///
/// ```
/// frame  = length u32 LE | ~length u32 LE | crc32(body) u32 LE | body (length bytes)
/// body   = kind u8 | fields
/// string = byte count u32 LE | UTF-8;   bytes = byte count u32 LE | bytes
/// ```
///
/// The complemented length tells a torn write (the length is sound but
/// the file ends first) from a damaged length (the two disagree); the CRC
/// covers the body. Kinds and fields:
///
/// | kind | record | fields |
/// | --- | --- | --- |
/// | 0x01 | header (always first) | "MBUNDO", version u8 (1), app id string, document id string |
/// | 0x02 | touched | seconds since the epoch, i64 |
/// | 0x10 | register | action name string, merge key string, undo bytes, redo bytes |
/// | 0x11 | begin group | action name string |
/// | 0x12–0x15 | end group, undo, redo, mark clean | — |
/// | 0x16 | set limit | levels u32 |
/// | 0x17 | clear | — |
/// | 0x20 | snapshot | steps u64, undo count u64, clean undo count i64 (−1: none), dropped u64, levels u32 |
/// | 0x21 | snapshot step | action name, merge key, registrations u32, encoded registrations bytes (`UndoStep.encoded`) |
///
/// A journal replays as: header, touched, then either operations only (a
/// new journal) or a snapshot (its counters, then its steps oldest first;
/// an open group follows as begin-group and register records), then
/// operations. The counters come first so that a snapshot cut short by
/// damage still knows which of the steps before it were undo steps.
enum UndoRecord: Hashable, Sendable {
    case header(UndoDocumentKey)
    case touched(Int64)
    case operation(UndoOperation)
    case snapshot(Snapshot)
    case snapshotStep(UndoStep)

    /// The counters that open a snapshot; `UndoStack(limits:steps:…)` takes them.
    struct Snapshot: Hashable, Sendable {
        /// Snapshot step records that follow.
        var stepCount: Int
        var undoCount: Int
        var cleanUndoCount: Int?
        var dropped: Int
        var levels: Int
    }

    /// Bytes before a record's body.
    static let frameBytes = 12
    /// The journal format this code writes and reads.
    static let version: UInt8 = 1
    static let magic = Array("MBUNDO".utf8)

    private enum Kind: UInt8 {
        case header = 0x01, touched = 0x02
        case register = 0x10, beginGroup = 0x11, endGroup = 0x12, undo = 0x13, redo = 0x14
        case markClean = 0x15, setLimit = 0x16, clear = 0x17
        case snapshot = 0x20, snapshotStep = 0x21
    }

    // MARK: Writing

    /// Appends the framed record to `bytes`.
    func encode(into bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Self.frameBytes))
        encodeBody(into: &bytes)
        let length = UInt32(truncatingIfNeeded: bytes.count - start - Self.frameBytes)
        let crc = bytes.withUnsafeBytes { raw in
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(rebasing: raw[(start + Self.frameBytes)...]))
            return crc.value
        }
        Self.store(length, in: &bytes, at: start)
        Self.store(~length, in: &bytes, at: start + 4)
        Self.store(crc, in: &bytes, at: start + 8)
    }

    /// Bytes `encode` appends for an operation's record, without encoding
    /// it (the disk budget is checked before the record is written off the loop).
    static func encodedCount(of operation: UndoOperation) -> Int {
        let body: Int
        switch operation {
        case let .register(actionName, undo, redo, mergeKey):
            body = 1 + 16 + actionName.utf8.count + mergeKey.utf8.count + undo.count + redo.count
        case let .beginGroup(actionName): body = 1 + 4 + actionName.utf8.count
        case .setLimit: body = 1 + 4
        case .endGroup, .undo, .redo, .markClean, .clear: body = 1
        }
        return frameBytes + body
    }

    /// Bytes of a `touched` record.
    static let touchedCount = frameBytes + 1 + 8

    /// The framed record alone.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    private func encodeBody(into bytes: inout [UInt8]) {
        switch self {
        case let .header(key):
            bytes.append(Kind.header.rawValue)
            bytes.append(contentsOf: Self.magic)
            bytes.append(Self.version)
            Self.put(key.appId, into: &bytes)
            Self.put(key.documentId, into: &bytes)
        case let .touched(seconds):
            bytes.append(Kind.touched.rawValue)
            Self.put64(UInt64(bitPattern: seconds), into: &bytes)
        case let .operation(operation):
            Self.encode(operation, into: &bytes)
        case let .snapshotStep(step):
            bytes.append(Kind.snapshotStep.rawValue)
            Self.put(step.actionName, into: &bytes)
            Self.put(step.mergeKey, into: &bytes)
            Self.put32(UInt32(truncatingIfNeeded: step.registrationCount), into: &bytes)
            Self.put(step.encoded, into: &bytes)
        case let .snapshot(end):
            bytes.append(Kind.snapshot.rawValue)
            Self.put64(UInt64(end.stepCount), into: &bytes)
            Self.put64(UInt64(end.undoCount), into: &bytes)
            Self.put64(UInt64(bitPattern: Int64(end.cleanUndoCount ?? -1)), into: &bytes)
            Self.put64(UInt64(end.dropped), into: &bytes)
            Self.put32(UInt32(truncatingIfNeeded: end.levels), into: &bytes)
        }
    }

    private static func encode(_ operation: UndoOperation, into bytes: inout [UInt8]) {
        switch operation {
        case let .register(actionName, undo, redo, mergeKey):
            bytes.append(Kind.register.rawValue)
            put(actionName, into: &bytes)
            put(mergeKey, into: &bytes)
            put(undo, into: &bytes)
            put(redo, into: &bytes)
        case let .beginGroup(actionName):
            bytes.append(Kind.beginGroup.rawValue)
            put(actionName, into: &bytes)
        case .endGroup: bytes.append(Kind.endGroup.rawValue)
        case .undo: bytes.append(Kind.undo.rawValue)
        case .redo: bytes.append(Kind.redo.rawValue)
        case .markClean: bytes.append(Kind.markClean.rawValue)
        case let .setLimit(levels):
            bytes.append(Kind.setLimit.rawValue)
            put32(UInt32(clamping: levels), into: &bytes)
        case .clear: bytes.append(Kind.clear.rawValue)
        }
    }

    private static func store(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value >> 24)
    }

    private static func put32(_ value: UInt32, into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    private static func put64(_ value: UInt64, into bytes: inout [UInt8]) {
        put32(UInt32(truncatingIfNeeded: value), into: &bytes)
        put32(UInt32(truncatingIfNeeded: value >> 32), into: &bytes)
    }

    private static func put(_ text: String, into bytes: inout [UInt8]) {
        put32(UInt32(truncatingIfNeeded: text.utf8.count), into: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private static func put(_ data: [UInt8], into bytes: inout [UInt8]) {
        put32(UInt32(truncatingIfNeeded: data.count), into: &bytes)
        bytes.append(contentsOf: data)
    }

    // MARK: Reading

    /// The record whose body is `bytes[body]`; nil when the body is not a
    /// well-formed record of a known kind (every field inside the body,
    /// strings valid UTF-8, ids within their bounds, nothing left over).
    static func decode(_ bytes: [UInt8], body: Range<Int>) -> UndoRecord? {
        var reader = Reader(bytes: bytes, offset: body.lowerBound, end: body.upperBound)
        guard let kindByte = reader.byte(), let kind = Kind(rawValue: kindByte) else { return nil }
        let record: UndoRecord
        switch kind {
        case .header:
            guard reader.bytes(count: magic.count) == magic[...], reader.byte() == version,
                  let appId = reader.string(), let documentId = reader.string(),
                  let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return nil }
            record = .header(key)
        case .touched:
            guard let seconds = reader.uint64() else { return nil }
            record = .touched(Int64(bitPattern: seconds))
        case .register:
            guard let name = reader.string(), let key = reader.string(),
                  let undo = reader.data(), let redo = reader.data() else { return nil }
            record = .operation(.register(actionName: name, undo: Array(undo), redo: Array(redo), mergeKey: key))
        case .beginGroup:
            guard let name = reader.string() else { return nil }
            record = .operation(.beginGroup(actionName: name))
        case .endGroup: record = .operation(.endGroup)
        case .undo: record = .operation(.undo)
        case .redo: record = .operation(.redo)
        case .markClean: record = .operation(.markClean)
        case .setLimit:
            guard let levels = reader.uint32() else { return nil }
            record = .operation(.setLimit(levels: Int(levels)))
        case .clear: record = .operation(.clear)
        case .snapshotStep:
            guard let name = reader.string(), let key = reader.string(), let count = reader.uint32(),
                  let encoded = reader.data(),
                  let step = UndoStep(actionName: name, mergeKey: key, registrationCount: Int(count),
                                      encoded: Array(encoded)) else { return nil }
            record = .snapshotStep(step)
        case .snapshot:
            guard let stepCount = reader.uint64(), let undoCount = reader.uint64(), let clean = reader.uint64(),
                  let dropped = reader.uint64(), let levels = reader.uint32(),
                  stepCount <= UInt64(Int32.max), undoCount <= stepCount, dropped <= UInt64(Int.max) else { return nil }
            let cleanValue = Int64(bitPattern: clean)
            guard cleanValue >= -1, cleanValue <= Int64(stepCount) else { return nil }
            record = .snapshot(Snapshot(stepCount: Int(stepCount), undoCount: Int(undoCount),
                                              cleanUndoCount: cleanValue < 0 ? nil : Int(cleanValue),
                                              dropped: Int(dropped), levels: Int(levels)))
        }
        guard reader.offset == reader.end else { return nil }
        return record
    }

    /// Reads little-endian fields from `bytes[offset..<end]`, nil past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let end: Int

        mutating func byte() -> UInt8? {
            guard offset < end else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32? {
            guard end - offset >= 4 else { return nil }
            defer { offset += 4 }
            return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        }

        mutating func uint64() -> UInt64? {
            guard let low = uint32(), let high = uint32() else { return nil }
            return UInt64(low) | UInt64(high) << 32
        }

        mutating func bytes(count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, end - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func data() -> ArraySlice<UInt8>? {
            guard let count = uint32() else { return nil }
            return bytes(count: Int(count))
        }

        mutating func string() -> String? {
            guard let data = data() else { return nil }
            return String(validating: data, as: UTF8.self)
        }
    }

    /// Reads the frame at `offset` in `bytes`.
    static func frame(in bytes: [UInt8], at offset: Int) -> Frame {
        let remaining = bytes.count - offset
        guard remaining >= frameBytes else { return .truncated }
        let length = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        let check = UInt32(bytes[offset + 4]) | UInt32(bytes[offset + 5]) << 8
            | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 24
        guard check == ~length else { return .badLength }
        guard Int(length) <= remaining - frameBytes else { return .truncated }
        let crc = UInt32(bytes[offset + 8]) | UInt32(bytes[offset + 9]) << 8
            | UInt32(bytes[offset + 10]) << 16 | UInt32(bytes[offset + 11]) << 24
        let body = offset + frameBytes..<offset + frameBytes + Int(length)
        let actual = bytes.withUnsafeBytes { raw in
            var sum = CRC32()
            sum.update(UnsafeRawBufferPointer(rebasing: raw[body]))
            return sum.value
        }
        guard actual == crc else { return .badChecksum(end: body.upperBound) }
        return .record(body)
    }

    /// What is at an offset of a journal.
    enum Frame: Hashable, Sendable {
        /// A record whose checksum holds; its body.
        case record(Range<Int>)
        /// The file ends inside the frame: a torn write.
        case truncated
        /// The length and its complement disagree: damage.
        case badLength
        /// A whole frame whose body fails its checksum; where it ends.
        case badChecksum(end: Int)
    }
}
