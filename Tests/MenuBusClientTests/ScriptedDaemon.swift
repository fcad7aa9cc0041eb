import Foundation
@testable import MenuBusDBus
@testable import MenuBusProtocol

/// A stand-in for menubusd on a thread of its own (the client's calls block
/// their thread): it owns `org.menubus.MenuBus1` on a private bus, answers
/// the manager calls the tests make as they set, and notes each call.
final class ScriptedDaemon: @unchecked Sendable {
    private let lock = NSLock()
    private var loop: MessageLoop?
    private var connection: Connection?
    private let stopped = DispatchSemaphore(value: 0)
    private var noted: [String] = []
    private var menuReply: (UInt32, DBusValue) = (1, .array("(ssa{sv})", []))
    private var presented = 0
    private(set) var uniqueName = ""

    /// Takes the name on the bus at `address`, serving `Version` as
    /// `version`; with `owningName` false, a peer that only pretends.
    init(address: String, version: DBusValue = .uint32(1), owningName: Bool = true) throws {
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        let thread = Thread { [self] in
            let loop = MessageLoop()
            do {
                let connection = try Connection(address: address, loop: loop)
                connection.disconnected = { loop.stop() }
                connection.export(MenuBusNames.managerPath, [manager(version: version)])
                guard try !owningName || connection.requestName(MenuBusNames.busName) == .owned else {
                    throw BusError.failed("\(MenuBusNames.busName) is taken")
                }
                lock.withLock {
                    self.loop = loop
                    self.connection = connection
                    uniqueName = connection.uniqueName
                }
            } catch {
                failure = error
                ready.signal()
                stopped.signal()
                return
            }
            ready.signal()
            loop.run()
            lock.withLock { self.connection?.close() }
            stopped.signal()
        }
        thread.start()
        guard ready.wait(timeout: .now() + 10) == .success else { throw BusError.failed("the scripted daemon did not start") }
        if let failure { throw failure }
    }

    /// Leaves the bus, as a daemon that ends does. (Its thread holds it
    /// until then: a test stops each one it starts.)
    func stop() {
        guard let loop = lock.withLock({ () -> MessageLoop? in defer { self.loop = nil }; return self.loop }) else { return }
        loop.post { loop.stop() }
        _ = stopped.wait(timeout: .now() + 10)
    }

    /// The calls so far, as "Member argument…".
    var calls: [String] { lock.withLock { noted } }

    /// What `GetEditMenu` and `GetContextMenu` answer from now on.
    func answerMenus(revision: UInt32, _ items: DBusValue) {
        lock.withLock { menuReply = (revision, items) }
    }

    /// Calls `member` of the client interface at `client`'s path, from this
    /// daemon's connection; `done` gets the outcome on this daemon's thread.
    func callClient(_ client: String, member: String, _ arguments: [DBusValue],
                    done: @escaping @Sendable (Result<[DBusValue], BusError>) -> Void) {
        guard let loop = lock.withLock({ self.loop }) else { return done(.failure(BusError.failed("stopped"))) }
        loop.post { [self] in
            let connection = lock.withLock { self.connection }
            connection?.call(destination: client, path: "/org/menubus/Client", interface: MenuBusNames.clientInterface,
                             member: member, arguments: arguments, timeout: 10) { done($0) }
        }
    }

    private func note(_ call: String) {
        lock.withLock { noted.append(call) }
    }

    private func manager(version: DBusValue) -> Interface {
        typealias API = MenuBusAPI.Manager
        var manager = Interface(MenuBusNames.managerInterface)
        manager.property("Version", signature: version.signature) { version }
        manager.method(API.register) { [self] _, appId, path, _ in note("Register \(appId) \(path)") }
        manager.method(API.publishContext) { [self] _, id, _, items in
            note("PublishContext \(id) \(Self.ids(items))")
            return 1
        }
        manager.method(API.updateItems) { [self] _, id, items in
            note("UpdateItems \(id) \(Self.ids(items))")
            return 2
        }
        manager.method(API.removeContext) { [self] _, id in note("RemoveContext \(id)") }
        manager.method(API.updateSelection) { [self] _, id, selection in
            note("UpdateSelection \(id) \((try? Wire.decodeSelection(selection).text) ?? "?")")
        }
        manager.method(API.registerProvider) { [self] _, id, path, _ in note("RegisterProvider \(id) \(path)") }
        manager.method(API.getEditMenu) { [self] _, _, contextId, _ in
            note("GetEditMenu \(contextId)")
            return lock.withLock { menuReply }
        }
        manager.method(API.presentMenu) { [self] _, _, contextId, kind, _ in
            note("PresentMenu \(contextId) \(kind)")
            let number = lock.withLock { presented += 1; return presented }
            return ObjectPath(stringLiteral: "/org/menubus/MenuBus1/menu/\(number)")
        }
        return manager
    }

    /// The ids of `a(ssa{sv})` elements, joined by commas.
    private static func ids(_ items: DBusValue) -> String {
        guard case .array(_, let rows) = items else { return "?" }
        return rows.map { row in
            if case .structure(let fields) = row, let id = fields.first?.stringValue { return id }
            return "?"
        }.joined(separator: ",")
    }
}
