import MenuBusModel
import MenuBusProviders
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Bounds the service puts on callers, beyond those of the menu model (`Limits`).
package enum ServiceLimits {
    /// Values one call may decode into. The element limits let a call carry
    /// about 300,000 (1,000 elements of 64 properties, lists included); a
    /// call within the byte limit could otherwise hold some 4 million tiny
    /// ones (`av` of `v(y)`), 1.3 s of the loop and 220 MB decoded.
    static let maxCallValues = 1 << 20
    /// Live presentations one presenter connection may hold.
    static let maxPresentationsPerPresenter = 64
    /// Entries in `Register`'s options and `Activate`'s platform data.
    static let maxOptionEntries = 64
    /// Seconds a call from the daemon to an app may take.
    static let clientCallTimeout: Double = 5
    /// Seconds a provider's `Process` may take.
    static let providerCallTimeout: Double = 10
    /// Providers one connection may register.
    static let maxProvidersPerConnection = 16
    /// Providers registered at once, daemon-wide: their items are in every
    /// matching menu, so this bounds a menu's size too.
    package static let maxProviders = ProviderCatalog.maxDeclarations
    /// Undo documents daemon-wide (each app id has its own bound, but app
    /// ids are the callers' to choose).
    static let maxUndoDocuments = 2_048
}

/// Memory budgets, in the bytes a value takes on the wire and what its
/// elements and contexts hold beyond them (so about what it takes in
/// memory, measured in bench/load/budgets.sh --held). Each store counts what it
/// holds against the connection that caused it and against the daemon, and
/// refuses with `LimitExceeded` naming the budget before storing anything.
package struct Budgets: Sendable, Equatable {
    /// What one connection may make menubusd hold: its contexts, their cached
    /// deferred content, and the menus it presents (each counted with its
    /// exported forms).
    package var connectionBytes: Int
    /// What all connections together may make menubusd hold.
    package var daemonBytes: Int

    static let defaultConnectionBytes = 8 << 20
    static let defaultDaemonBytes = 128 << 20

    package init(connectionBytes: Int = Budgets.defaultConnectionBytes, daemonBytes: Int = Budgets.defaultDaemonBytes) {
        self.connectionBytes = connectionBytes
        self.daemonBytes = daemonBytes
    }

    /// What an element holds beyond its bytes on the wire: its storage
    /// object, its slot in the array, the heap headers of its longer
    /// strings. Counted so that the budgets bound resident memory, which
    /// for menus of many short items is twice the wire's size and more.
    static let elementBytes = 160
    /// What a context holds beyond its bytes on the wire: its entry, its
    /// information and selection decoded.
    static let contextBytes = 1024

    /// The budget bytes of `elements` elements that took `wireBytes` on the wire.
    static func heldBytes(wire wireBytes: Int, elements: Int) -> Int {
        wireBytes + elements * elementBytes
    }

    /// The elements of an `a(ssa{sv})` value.
    static func elementCount(_ value: DBusValue) -> Int {
        if case .array(_, let values) = value { values.count } else { 0 }
    }

    /// A presented menu holds its composed elements, its layout reply, and
    /// its dbusmenu and org.gtk.Menus forms: about this many times the
    /// context it shows.
    static let presentationFactor = 3

    /// The largest call any budget allows, with room for the arguments
    /// around the bulk: larger calls are refused before they are decoded.
    package var maxCallBytes: Int {
        max(connectionBytes, 2 * UndoLimits.defaultPayloadBytesPerStep) + (64 << 10)
    }
}

extension Int {
    /// "8.0 MiB", for budget messages.
    var mebibytes: String {
        let tenths = (self * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
