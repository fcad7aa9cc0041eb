import MenuBusModel
import MenuBusDBus

extension ModelError {
    /// The error to answer a D-Bus call with: `InvalidArgs` for a broken
    /// rule, `org.menubus.MenuBus1.Error.LimitExceeded` for a bound; the
    /// message starts with the field (`items[3].id: …`).
    package var busError: BusError {
        switch kind {
        case .invalidArgument: BusError.invalidArgs(description)
        case .limitExceeded: BusError.limitExceeded(description)
        }
    }
}
