/// A fault in a menu, context, selection or provider description: which
/// field, what is wrong, and whether it broke a rule or a bound.
///
/// The wire layer turns `.invalidArgument` into
/// `org.freedesktop.DBus.Error.InvalidArgs` and `.limitExceeded` into
/// `org.menubus.MenuBus1.Error.LimitExceeded`.
package struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: Hashable, Sendable {
        /// A value that breaks a rule of docs/API.md (bad id, unknown parent...).
        case invalidArgument
        /// A value over one of `Limits`.
        case limitExceeded
    }

    package let kind: Kind
    /// Where the fault is, as a path a developer can follow:
    /// `items[3].id`, `items[2].properties.title`, `context.content-types[0]`.
    package let field: String
    /// A sentence about what is wrong.
    package let message: String

    package var description: String { "\(field): \(message)" }

    package static func invalid(_ field: String, _ message: String) -> ModelError {
        ModelError(kind: .invalidArgument, field: field, message: message)
    }

    package static func limit(_ field: String, _ message: String) -> ModelError {
        ModelError(kind: .limitExceeded, field: field, message: message)
    }

    /// A value shown in a message: quoted, and abbreviated when long so an
    /// error never echoes kilobytes back.
    package static func quoted(_ value: String) -> String {
        guard value.utf8.count > 64 else { return "'\(value)'" }
        return "'\(value.prefix(48))…' (\(value.utf8.count) bytes)"
    }
}
