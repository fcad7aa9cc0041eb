/// An error that travels over D-Bus: a well-known error name and a message.
///
/// Protocol faults use `org.freedesktop.DBus.Error.*`; domain faults use
/// `org.menubus.MenuBus1.Error.*`.
public struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.freedesktop.DBus.Error.InvalidArgs`.
    public let name: String
    /// A sentence for a person; never empty.
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message.isEmpty ? name : message
    }

    public var description: String { "\(name): \(message)" }
}

extension BusError {
    /// Standard error names of the D-Bus specification.
    public enum Standard {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        /// A reply or signal whose signature is not its declaration's.
        public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
    }

    package static func invalidArgs(_ message: String) -> BusError {
        BusError(name: Standard.invalidArgs, message: message)
    }

    package static func failed(_ message: String) -> BusError {
        BusError(name: Standard.failed, message: message)
    }

    /// What this layer answers when a call or a reply is larger than its
    /// budgets allow: MenuBus's `LimitExceeded` domain error
    /// (`BusError.Domain.limitExceeded` names the same error).
    package static let limitExceededName = "org.menubus.MenuBus1.Error.LimitExceeded"

    package static func limitExceeded(_ message: String) -> BusError {
        BusError(name: limitExceededName, message: message)
    }
}
