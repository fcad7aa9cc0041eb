/// A MIME type reduced to what matching needs: lower-case type and
/// subtype, parameters dropped (`text/plain;charset=utf-8` is `text/plain`).
///
/// The X11 clipboard targets `UTF8_STRING`, `STRING`, `TEXT` and
/// `COMPOUND_TEXT` count as `text/plain`, so a pasteboard read straight
/// from X11 still offers Paste. Parsing scans the UTF-8 bytes once and
/// copies only a type with parameters, blanks or capitals.
package struct ContentType: Hashable, Sendable {
    /// `type/subtype`, lower-case; `text/plain` for the X11 text targets.
    let essence: String
    /// Byte offset of the `/` in `essence`, or nil when there is none.
    package let slash: Int?

    init(_ raw: String) {
        var raw = raw
        let scan = raw.withUTF8 { Self.scan($0) }
        var essence = raw
        var slash = scan.slash
        if scan.needsCopy {
            if scan.start >= scan.end {
                essence = ""
            } else {
                let bytes = raw.utf8
                let from = bytes.index(bytes.startIndex, offsetBy: scan.start)
                let to = bytes.index(bytes.startIndex, offsetBy: scan.end)
                essence = String(raw[from..<to]).lowercased()
            }
            slash = essence.utf8.firstIndex(of: UInt8(ascii: "/")).map {
                essence.utf8.distance(from: essence.utf8.startIndex, to: $0)
            }
        }
        if slash == nil, Self.x11TextTargets.contains(essence) {
            essence = "text/plain"
            slash = 4
        }
        self.essence = essence
        self.slash = slash
    }

    /// One pass over the bytes: where the essence starts and ends (before
    /// any `;`, blanks trimmed), where its `/` is, and whether it has to be
    /// copied (parameters, blanks or capitals).
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>)
        -> (start: Int, end: Int, slash: Int?, needsCopy: Bool) {
        var start = -1
        var end = 0
        var slash: Int?
        var needsCopy = false
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: ";") {
                needsCopy = true
                break
            }
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                needsCopy = true
                continue
            }
            if start < 0 { start = offset }
            end = offset + 1
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { needsCopy = true }
            if byte == UInt8(ascii: "/") && slash == nil { slash = offset }
        }
        return (max(start, 0), start < 0 ? 0 : end, slash, needsCopy)
    }

    /// The rich-text types Paste and Match Style looks for.
    static let richTypes: [ContentType] = [
        ContentType("text/html"), ContentType("text/rtf"), ContentType("application/rtf"),
    ]

    private static let x11TextTargets: Set<String> = ["utf8_string", "string", "text", "compound_text"]

    /// Same type and subtype, parameters aside.
    func isSame(as other: ContentType) -> Bool {
        essence == other.essence
    }

    /// True when something that takes `self` can take a value of `offered`:
    /// equal types; `*/*`; `image/*` takes any `image/…`; `text/plain` takes
    /// any `text/…` (all text pastes as plain text). A wildcard on the
    /// offered side (`text/*` as a context's content type) matches any type
    /// of that family too.
    package func accepts(_ offered: ContentType) -> Bool {
        guard let slash, let offeredSlash = offered.slash else { return false }
        if essence == offered.essence { return true }
        if essence == "*/*" || offered.essence == "*/*" { return true }
        // Same family: the bytes up to and including the slash agree.
        guard slash == offeredSlash,
              essence.utf8.prefix(slash + 1).elementsEqual(offered.essence.utf8.prefix(slash + 1)) else { return false }
        if essence.utf8.count == slash + 2 && essence.utf8.last == UInt8(ascii: "*") { return true }
        if offered.essence.utf8.count == slash + 2 && offered.essence.utf8.last == UInt8(ascii: "*") { return true }
        return essence == "text/plain"
    }

    /// True when some type of `accepted` accepts some type of `offered`.
    static func anyAccepts(_ accepted: [ContentType], _ offered: [ContentType]) -> Bool {
        for wanted in accepted {
            for candidate in offered where wanted.accepts(candidate) {
                return true
            }
        }
        return false
    }

    /// `raw` parsed one by one.
    package static func parse(_ raw: [String]) -> [ContentType] {
        var result: [ContentType] = []
        result.reserveCapacity(raw.count)
        for text in raw { result.append(ContentType(text)) }
        return result
    }
}
