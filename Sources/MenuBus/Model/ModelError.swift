/// A fault in a menu, context, selection or provider description: which
/// field, what is wrong, and whether it broke a rule or a bound.
///
/// The wire layer turns `.invalidArgument` into
/// `org.freedesktop.DBus.Error.InvalidArgs` and `.limitExceeded` into
/// `org.menubus.MenuBus1.Error.LimitExceeded`.
struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// A value that breaks a rule of API.md (bad id, unknown parent...).
        case invalidArgument
        /// A value over one of `Limits`.
        case limitExceeded
    }

    let kind: Kind
    /// Where the fault is, as a path a developer can follow:
    /// `items[3].id`, `items[2].properties.title`, `context.content-types[0]`.
    let field: String
    /// A sentence about what is wrong.
    let message: String

    var description: String { "\(field): \(message)" }

    static func invalid(_ field: String, _ message: String) -> ModelError {
        ModelError(kind: .invalidArgument, field: field, message: message)
    }

    static func limit(_ field: String, _ message: String) -> ModelError {
        ModelError(kind: .limitExceeded, field: field, message: message)
    }

    /// A value shown in a message: quoted, and abbreviated when long so an
    /// error never echoes kilobytes back.
    static func quoted(_ value: String) -> String {
        guard value.utf8.count > 64 else { return "'\(value)'" }
        return "'\(value.prefix(48))…' (\(value.utf8.count) bytes)"
    }
}
