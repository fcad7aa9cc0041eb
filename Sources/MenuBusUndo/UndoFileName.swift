import MenuBusModel

/// The file name of a document's journal, safe for any app id and document
/// id (slashes, dots, `..`, control characters, any Unicode, 4 KiB long):
///
/// ```
/// <app id, [A-Za-z0-9._-] kept and anything else "_", at most 64 bytes,
///  a leading "." made "_">-<FNV-1a 64 of the ids, 16 hex digits>[-<n>].undo
/// ```
///
/// e.g. `org.example.Editor-3f2a…c1.undo`. The prefix is for people
/// listing the directory; the real ids are in the journal's header record,
/// which is what loading trusts. Two documents whose hashes collide get
/// `-1`, `-2`… (the store probes with `O_EXCL`). At most 64 + 1 + 16 + 1 +
/// 3 + 5 bytes, far below NAME_MAX.
enum UndoFileName {
    static let suffix = ".undo"
    /// A snapshot being written; left over only by a crash mid-compaction
    /// (the journal it was to replace is intact), removed when loading.
    static let temporarySuffix = ".undo.tmp"
    /// The journal of a document whose loading stopped at damage, kept
    /// for inspection until the document is removed.
    static let damagedSuffix = ".undo.damaged"
    static let maxPrefixBytes = 64

    static func name(for key: UndoDocumentKey, probe: Int = 0) -> String {
        let probeText = probe > 0 ? "-\(probe)" : ""
        return prefix(of: key.appId) + "-" + hashText(of: key) + probeText + suffix
    }

    /// The 16 hex digits a key's journal names carry.
    static func hashText(of key: UndoDocumentKey) -> String {
        hex(fnv1a(key))
    }

    /// The prefix and hash of a journal's name (`<prefix>-<hash>[-<n>].undo`);
    /// nil for a name this store did not make.
    static func parse(_ name: String) -> (prefix: String, hash: String)? {
        guard name.hasSuffix(suffix) else { return nil }
        var parts = name.dropLast(suffix.count).split(separator: "-", omittingEmptySubsequences: false)
        func isHash(_ part: Substring) -> Bool {
            part.utf8.count == 16 && part.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
        }
        if parts.count >= 3, let last = parts.last, !last.isEmpty, last.utf8.count <= 4,
           last.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), isHash(parts[parts.count - 2]) {
            parts.removeLast()
        }
        guard parts.count >= 2, let hash = parts.last, isHash(hash) else { return nil }
        return (parts.dropLast().joined(separator: "-"), String(hash))
    }

    /// The readable prefix of an app id's journal names.
    static func prefix(of appId: String) -> String {
        var prefix: [UInt8] = []
        for byte in appId.utf8.prefix(maxPrefixBytes) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                prefix.append(byte)
            default:
                prefix.append(UInt8(ascii: "_"))
            }
        }
        if prefix.first == UInt8(ascii: ".") { prefix[0] = UInt8(ascii: "_") }
        return String(decoding: prefix, as: UTF8.self)
    }

    /// FNV-1a 64 of the app id's length (4 bytes), the app id and the
    /// document id, so that no two pairs of ids give the same input.
    static func fnv1a(_ key: UndoDocumentKey) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func feed(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let length = UInt32(truncatingIfNeeded: key.appId.utf8.count)
        for shift in stride(from: 0, to: 32, by: 8) { feed(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        for byte in key.appId.utf8 { feed(byte) }
        for byte in key.documentId.utf8 { feed(byte) }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for shift in stride(from: 60, through: 0, by: -4) {
            bytes.append(digits[Int((value >> UInt64(shift)) & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
