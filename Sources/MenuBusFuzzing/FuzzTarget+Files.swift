#if DEBUG
@testable import MenuBusProviders
@testable import MenuBusUndo

/// `keyfile`: any text, as a provider declaration (every locale lookup and
/// key a declaration reads) and as the user's provider policy. A policy
/// that parses writes out a text that parses back to it: the CLI saves
/// the policy it read.
package func fuzzKeyFile(_ data: UnsafeRawBufferPointer) {
    let text = String(decoding: data, as: UTF8.self)
    _ = try? ProviderDeclaration.parse(text, file: "fuzz.provider", locales: ["sr_RS@latin", "sr_RS", "sr", "de"],
                                       isAvailable: { _, _ in true })
    let read = keyFileSummary(text)
    if case .success(let file) = Result(catching: { () throws(KeyFile.SyntaxError) in try KeyFile(parsing: text) }) {
        for group in file.groups {
            for entry in group.entries { _ = KeyFile.list(entry.value) }
        }
    }
    // A file with CRLF line ends reads as with LF ones.
    if !text.unicodeScalars.contains("\r") {
        FuzzCheck.require(keyFileSummary(text.replacing("\n", with: "\r\n")) == read, "CRLF line ends read otherwise")
    }
    guard let policy = try? ProviderPolicy(parsing: text) else { return }
    FuzzCheck.require((try? ProviderPolicy(parsing: policy.text)) == policy, "a policy does not read back what it wrote")
}

/// What a key file reads as (or the fault and its line), to compare two reads.
private func keyFileSummary(_ text: String) -> [String] {
    do throws(KeyFile.SyntaxError) {
        return try KeyFile(parsing: text).groups.flatMap { group in
            ["[\(group.name)] \(group.line)"] + group.entries.map { "\($0.key)[\($0.locale ?? "")]=\($0.value) \($0.line)" }
        }
    } catch {
        return [error.description]
    }
}

/// `undo`: any bytes as an undo journal. Loading cuts a torn or damaged
/// file to its good records (`goodLength`) and appends after them, so the
/// good records alone must replay complete, to the same document.
package func fuzzUndoReplay(_ data: UnsafeRawBufferPointer) {
    let bytes = Array(data)
    let limits = UndoLimits()
    let replay = UndoJournal.replay(bytes, limits: limits)
    FuzzCheck.require(replay.goodLength <= bytes.count, "the good records end after the file")
    if replay.ending == .complete {
        FuzzCheck.require(replay.goodLength == bytes.count, "a complete journal with bytes after its records")
    }
    let good = UndoJournal.replay(Array(bytes[..<replay.goodLength]), limits: limits)
    FuzzCheck.require(good.ending == .complete, "the good records alone end \(good.ending)")
    FuzzCheck.require(good.key == replay.key && good.records == replay.records && good.stack == replay.stack,
                      "the good records alone replay to another document")
}
#endif
