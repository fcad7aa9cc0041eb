import MenuBusModel
import MenuBusSupport

/// How often this user chose each provider, so the suggestions they choose
/// most stay among the few a menu shows (`ProviderSuggestions`), after a
/// restart too: `<state folder>/provider-usage`, one `count<TAB>id` line
/// per provider.
///
/// Budget: at most `maxEntries` providers (the least chosen goes when a new
/// one comes), counts up to `maxCount` (when one reaches it every count
/// halves, which keeps their order; a count of one goes), a file of at
/// most `maxFileBytes`. Written whole and atomically
/// (`Files.writeAtomically`), at most once per `writeDelay` and at
/// shutdown. A file it cannot read costs one warning and counting starts
/// afresh (the next write replaces it); lines it cannot parse cost one
/// warning and are skipped.
package final class ProviderUsage {
    static let fileName = "provider-usage"
    package static let maxEntries = 256
    static let maxCount = 1 << 20
    static let maxFileBytes = 64 << 10
    /// Choices within this many seconds are written together.
    static let writeDelay = 1.0

    package let path: String
    /// Times each provider was chosen, by id.
    package private(set) var counts: [String: Int] = [:]
    private var dirty = false
    private var writeScheduled = false
    /// Runs a closure after a delay in seconds (the daemon's loop).
    private let schedule: (Double, @escaping () -> Void) -> Void

    package init(stateDirectory: String, schedule: @escaping (Double, @escaping () -> Void) -> Void) {
        path = stateDirectory + "/" + Self.fileName
        self.schedule = schedule
        load()
    }

    /// Counts one choice of `providerId` and schedules the write.
    package func record(_ providerId: String) {
        guard !providerId.isEmpty, providerId.utf8.count <= Limits.maxProviderIdBytes else { return }
        if counts[providerId] == nil, counts.count >= Self.maxEntries, let least = leastChosen() {
            counts[least] = nil
        }
        let count = (counts[providerId] ?? 0) + 1
        counts[providerId] = count
        if count >= Self.maxCount {
            for (id, value) in counts { counts[id] = value / 2 == 0 ? nil : value / 2 }
        }
        dirty = true
        guard !writeScheduled else { return }
        writeScheduled = true
        schedule(Self.writeDelay) { [weak self] in
            guard let self else { return }
            self.writeScheduled = false
            self.flush()
        }
    }

    /// Writes the counts if they changed since the last write; false when
    /// they could not be written.
    @discardableResult
    package func flush() -> Bool {
        guard dirty else { return true }
        dirty = false
        let text = counts.sorted { $0.key < $1.key }.map { "\($0.value)\t\($0.key)\n" }.joined()
        do throws(Files.FileError) {
            try Files.makeDirectories(Files.parent(of: path))
            try Files.writeAtomically(Array(text.utf8), to: path)
            return true
        } catch {
            Log.rateLimitedWarning("provider-usage-write", "cannot write \(path): \(error.problem)")
            return false
        }
    }

    /// Reads the file again, keeping the greater count of each provider:
    /// after `--replace`, what the previous daemon wrote as it left.
    package func reload() {
        let counted = counts
        load()
        for (id, count) in counted { counts[id] = max(counts[id] ?? 0, count) }
        counts = Self.mostChosen(counts)
    }

    /// Adds the counts of the usage file in `stateDirectory` (kept by
    /// another way of starting menubusd), the greater of each provider's
    /// two, writes them here and removes that file, so one file remains.
    package func adopt(from stateDirectory: String) {
        let other = stateDirectory + "/" + Self.fileName
        guard other != path, Files.regularFileSize(other) != nil,
              let theirs = Self.read(other, unreadable: "its provider choices stay there") else { return }
        for (id, count) in theirs { counts[id] = max(counts[id] ?? 0, count) }
        counts = Self.mostChosen(counts)
        dirty = true
        if flush(), Files.remove(other) {
            Log.info("provider choices of \(other) moved into \(path)")
        }
    }

    /// The entry to drop for a new one: the fewest choices, then the
    /// greatest id, so the choice does not depend on hashing.
    private func leastChosen() -> String? {
        counts.min { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    private func load() {
        if let read = Self.read(path, unreadable: "provider choices are counted afresh") { counts = read }
    }

    /// The counts in the file at `path`; nil when there is none, or when it
    /// cannot be read, which costs a warning ending with `unreadable`. Lines
    /// that do not parse cost one warning.
    private static func read(_ path: String, unreadable: String) -> [String: Int]? {
        let bytes: [UInt8]?
        do throws(Files.FileError) {
            bytes = try Files.contents(path, maxBytes: maxFileBytes)
        } catch {
            Log.warning("\(path): \(error.problem); \(unreadable)")
            return nil
        }
        guard let bytes else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self)) { line in
            Log.warning("\(path): line \(line) is not 'count<TAB>provider id'; skipped lines like it")
        }
    }

    /// The counts in `text`; `skipped` hears the first line that does not
    /// parse. Keeps at most `maxEntries`, the most chosen.
    static func parse(_ text: String, skipped: (Int) -> Void = { _ in }) -> [String: Int] {
        var counts: [String: Int] = [:]
        var reported = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let count = Int(fields[0]), count > 0, count <= maxCount,
                  !fields[1].isEmpty, fields[1].utf8.count <= Limits.maxProviderIdBytes,
                  !fields[1].contains(where: { $0.isWhitespace })
            else {
                if !reported { skipped(number + 1) }
                reported = true
                continue
            }
            let id = String(fields[1])
            counts[id] = max(counts[id] ?? 0, count)
        }
        return mostChosen(counts)
    }

    /// `counts` cut to the `maxEntries` most chosen, ties to the smaller id.
    private static func mostChosen(_ counts: [String: Int]) -> [String: Int] {
        guard counts.count > maxEntries else { return counts }
        let kept = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(maxEntries)
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}
