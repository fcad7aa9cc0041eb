/// One thing `Lint` found in a menu: how serious, which element, and a
/// sentence saying what is wrong and what to do instead.
public struct LintFinding: Hashable, Sendable {
    /// How serious a finding is.
    public enum Severity: String, CaseIterable, Hashable, Sendable {
        /// The menu is refused as it is (a broken rule of the API).
        case error
        /// Against the design rules; the menu works but reads badly.
        case warning
        /// A hint from a heuristic; may be fine.
        case info
    }

    /// Error, warning or info.
    public var severity: Severity
    /// The element the finding is about; `""` for the whole menu.
    public var elementId: String
    /// A sentence a developer can act on.
    public var message: String

    /// A finding.
    public init(severity: Severity, elementId: String, message: String) {
        self.severity = severity
        self.elementId = elementId
        self.message = message
    }
}
