#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The life of a session service: handing the name over to a `--replace`,
/// and leaving when an activated daemon has nothing to do.
extension MenuBusServer {
    /// Nothing depends on this daemon: no app, presented menu or provider.
    /// Undo documents do not count; they live in the journals.
    var isIdle: Bool {
        contexts.byName.isEmpty && menus.presentations.isEmpty && providers.byId.isEmpty
    }

    /// The bus took a name from us: `org.menubus.MenuBus1` going to a
    /// `--replace` ends this daemon cleanly.
    func lostName(_ name: String) {
        guard name == MenuBusNames.busName, ownsName else { return }
        ownsName = false
        Log.info("another menubusd took \(name); syncing the undo journals and leaving")
        undo.syncNow()
        stopReason = .replaced
        loop.stop()
    }

    /// Waits (bounded) until `previous` has left the bus, without
    /// dispatching: calls that arrive meanwhile queue until the journals the
    /// previous daemon synced on its way out are loaded.
    func awaitDeparture(of previous: String, timeout: Double = 10) {
        let deadline = MessageLoop.now() + MessageLoop.nanoseconds(timeout)
        while MessageLoop.now() < deadline {
            let reply = try? connection.callBlocking(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner", arguments: [.string(previous)], timeout: 5)
            if reply?.first == .boolean(false) { return }
            usleep(5_000)
        }
        Log.warning("the replaced menubusd (\(previous)) is still on the bus after \(Int(timeout)) s; loading its journals anyway")
    }

    /// With `idleTimeout` set, checks a few times per timeout whether the
    /// daemon is idle and stops `run` once it stayed idle for that long.
    func startIdleWatch() {
        guard let timeout = configuration.idleTimeout, timeout > 0 else { return }
        idleSince = isIdle ? MessageLoop.now() : nil
        let period = min(max(timeout / 4, 0.05), 5)
        func check() {
            guard stopReason == nil else { return }
            let now = MessageLoop.now()
            if isIdle {
                let since = idleSince ?? now
                idleSince = since
                if now - since >= MessageLoop.nanoseconds(timeout) {
                    stopReason = .idle
                    loop.stop()
                    return
                }
            } else {
                idleSince = nil
            }
            _ = loop.addTimer(after: period, check)
        }
        _ = loop.addTimer(after: period, check)
    }
}
