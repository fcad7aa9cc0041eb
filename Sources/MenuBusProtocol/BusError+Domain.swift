import MenuBusDBus

/// MenuBus's own errors, `org.menubus.MenuBus1.Error.*`, beside the
/// standard ones of the D-Bus specification that `BusError` knows.
extension BusError {
    /// Prefix of every MenuBus domain error name.
    public static let domainPrefix = "org.menubus.MenuBus1.Error."

    /// The domain errors of docs/API.md, each with its D-Bus name.
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
}
