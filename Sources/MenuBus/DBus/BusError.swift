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
    }

    /// Prefix of every MenuBus domain error name.
    public static let domainPrefix = "org.menubus.MenuBus1.Error."

    /// The domain errors of API.md, each with its D-Bus name.
    public enum Domain: String, CaseIterable, Sendable {
        case notRegistered = "NotRegistered"
        case noSuchContext = "NoSuchContext"
        case noSuchDocument = "NoSuchDocument"
        case noSuchItem = "NoSuchItem"
        case accessDenied = "AccessDenied"
        case limitExceeded = "LimitExceeded"
        case clientFailed = "ClientFailed"
        case timeout = "Timeout"
        case nothingToUndo = "NothingToUndo"
        case nothingToRedo = "NothingToRedo"
        /// The menu would be empty, or its context has `enabled` false.
        case nothingToShow = "NothingToShow"
        /// Undo, Redo or MarkClean while an undo group is open; the message names it.
        case undoGroupOpen = "UndoGroupOpen"
        /// EndUndoGroup with no group open.
        case noUndoGroup = "NoUndoGroup"
        /// The undo journal could not be written; the message names the document and the cause.
        case storageFailed = "StorageFailed"

        /// The full D-Bus error name.
        public var errorName: String { BusError.domainPrefix + rawValue }
    }

    /// A MenuBus domain error.
    public init(_ domain: Domain, _ message: String) {
        self.init(name: domain.errorName, message: message)
    }

    /// The domain error this is, if it is one.
    public var domain: Domain? {
        guard name.hasPrefix(BusError.domainPrefix) else { return nil }
        return Domain(rawValue: String(name.dropFirst(BusError.domainPrefix.count)))
    }

    static func invalidArgs(_ message: String) -> BusError {
        BusError(name: Standard.invalidArgs, message: message)
    }

    static func failed(_ message: String) -> BusError {
        BusError(name: Standard.failed, message: message)
    }

    static func limitExceeded(_ message: String) -> BusError {
        BusError(.limitExceeded, message)
    }
}
