internal import CDBus

/// The one place libdbus's boolean results are checked: FALSE from these
/// calls means libdbus ran out of memory, and is never ignored.
enum LibDBus {
    static func check(_ result: dbus_bool_t, _ call: StaticString) throws {
        guard result != 0 else {
            throw BusError(name: BusError.Standard.noMemory, message: "out of memory in \(call)")
        }
    }
}
