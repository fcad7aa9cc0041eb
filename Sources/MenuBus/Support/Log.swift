#if canImport(Glibc)
import Glibc
#endif

/// Log lines on stderr with the sd-daemon(3) level prefixes journald reads.
/// Never log a payload or a selection's text.
enum Log {
    enum Level: Int {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    nonisolated(unsafe) static var threshold: Level = .info

    static func error(_ text: @autoclosure () -> String) { write(.error, text()) }
    static func warning(_ text: @autoclosure () -> String) { write(.warning, text()) }
    static func notice(_ text: @autoclosure () -> String) { write(.notice, text()) }
    static func info(_ text: @autoclosure () -> String) { write(.info, text()) }
    static func debug(_ text: @autoclosure () -> String) {
        guard threshold.rawValue >= Level.debug.rawValue else { return }
        write(.debug, text())
    }

    private static func write(_ level: Level, _ text: String) {
        guard level.rawValue <= threshold.rawValue else { return }
        let line = "<\(level.rawValue)>" + text.replacing("\n", with: " ") + "\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
