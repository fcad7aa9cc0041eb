#if canImport(Glibc)
import Glibc
#endif

/// Log lines on stderr, with the sd-daemon(3) level prefixes journald reads
/// when stderr is the journal (`JOURNAL_STREAM` names it), plain on a
/// terminal or a pipe. Never log a payload or a selection's text.
package enum Log {
    package enum Level: Int {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        /// What a plain line starts with: warnings and errors say so.
        var plainPrefix: String {
            switch self {
            case .error: "error: "
            case .warning: "warning: "
            default: ""
            }
        }
    }

    nonisolated(unsafe) static var threshold: Level = .info

    /// Turns debug lines on or off (menubusd's `--verbose`).
    package static func setVerbose(_ verbose: Bool) {
        threshold = verbose ? .debug : .info
    }

    /// Whether lines carry `<N>` prefixes: decided once, from the environment
    /// the process started with.
    static let prefixesLevels: Bool = stderrIsJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) })

    /// True when `journalStream` ("DEVICE:INODE", as systemd sets
    /// `JOURNAL_STREAM`) names the file open on fd 2. A child that inherits
    /// the variable but has its stderr redirected elsewhere logs plain text.
    static func stderrIsJournal(_ journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    package static func error(_ text: @autoclosure () -> String) { write(.error, text()) }
    package static func warning(_ text: @autoclosure () -> String) { write(.warning, text()) }
    static func notice(_ text: @autoclosure () -> String) { write(.notice, text()) }
    package static func info(_ text: @autoclosure () -> String) { write(.info, text()) }
    package static func debug(_ text: @autoclosure () -> String) {
        guard threshold.rawValue >= Level.debug.rawValue else { return }
        write(.debug, text())
    }

    // MARK: Once per cause

    /// Logs `text` the first time `key` is seen (a storage fault per
    /// document and cause), never again while the key is remembered.
    package static func once(_ key: String, _ level: Level = .error, _ text: @autoclosure () -> String) {
        guard !seen.contains(key) else { return }
        if seen.count >= maxRateKeys { seen.removeAll() }
        seen.insert(key)
        write(level, text())
    }

    nonisolated(unsafe) private static var seen: Set<String> = []

    // MARK: Rate-limited warnings

    /// Warnings a peer can cause at will: the first of each key is logged,
    /// then at most one line a minute with how many were held back.
    package static func rateLimitedWarning(_ key: String, _ text: @autoclosure () -> String) {
        guard threshold.rawValue >= Level.warning.rawValue else { return }
        let now = clock()
        if var window = windows[key] {
            window.suppressed += 1
            if now &- window.start >= rateWindow {
                write(.warning, text() + " (\(window.suppressed) like it in the last minute)")
                window = RateWindow(start: now, suppressed: 0)
            }
            windows[key] = window
            return
        }
        if windows.count >= maxRateKeys, let oldest = windows.min(by: { $0.value.start < $1.value.start })?.key {
            windows[oldest] = nil
        }
        windows[key] = RateWindow(start: now, suppressed: 0)
        write(.warning, text())
    }

    private struct RateWindow {
        var start: UInt64
        var suppressed: Int
    }

    nonisolated(unsafe) private static var windows: [String: RateWindow] = [:]
    /// One minute, in nanoseconds.
    static let rateWindow: UInt64 = 60_000_000_000
    /// Keys remembered at once; the oldest goes first.
    static let maxRateKeys = 1_024
    /// The monotonic clock in nanoseconds; tests replace it.
    package nonisolated(unsafe) static var clock: () -> UInt64 = {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
    /// Where lines go instead of stderr, for tests.
    package nonisolated(unsafe) static var sink: ((String) -> Void)?

    static func resetRateLimits() {
        windows = [:]
        seen = []
    }

    private static func write(_ level: Level, _ text: String) {
        guard level.rawValue <= threshold.rawValue else { return }
        let body = text.replacing("\n", with: " ") + "\n"
        // A test's sink always sees the level; stderr has it as journald's
        // `<N>` prefix, or on a terminal or pipe as a word for what needs
        // attention.
        if let sink { sink("<\(level.rawValue)>" + body); return }
        Files.write((prefixesLevels ? "<\(level.rawValue)>" : level.plainPrefix) + body, to: 2)
    }
}
