#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusSupport

/// stdout and stderr without Foundation's buffering, and colour rules.
enum Output {
    static func out(_ text: String) { write(fd: 1, text) }
    static func err(_ text: String) { write(fd: 2, text) }

    /// `--color=WHEN`.
    enum When: String { case auto, always, never }

    /// Set from `--color` before anything is printed.
    nonisolated(unsafe) static var colour: When = .auto

    /// `auto`: only on a terminal, never when NO_COLOR is set (no-color.org)
    /// or TERM is dumb.
    static var useColour: Bool {
        switch colour {
        case .always: return true
        case .never: return false
        case .auto:
            if let value = getenv("NO_COLOR"), value.pointee != 0 { return false }
            if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
            return isatty(1) != 0
        }
    }

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35"
    }

    static func styled(_ text: String, _ style: Style) -> String {
        useColour ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    private static func write(fd: Int32, _ text: String) { Files.write(text, to: fd) }
}
