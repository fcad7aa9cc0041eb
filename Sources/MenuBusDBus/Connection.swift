#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport
internal import CDBus

/// A private connection to a message bus, owned by one `MessageLoop`.
///
/// It routes incoming method calls to exported objects, replies to pending
/// asynchronous calls, signals to subscriptions, and reports peers leaving.
package final class Connection {
    /// How `requestName` ended.
    package enum NameRequestResult: Equatable {
        case owned
        case alreadyOwner
        case taken
    }

    struct Subscription {
        package let interface: String?
        package let member: String?
        package let path: ObjectPath?
        package let sender: String?
        package let handler: (Message) -> Void
    }

    package typealias Completion = (Result<[DBusValue], BusError>) -> Void

    package private(set) var raw: OpaquePointer?
    package let loop: MessageLoop
    package let uniqueName: String
    var objects: [ObjectPath: ExportedObject] = [:]
    /// Objects served by prefix (`exportSubtree`).
    var subtrees: [ExportedSubtree] = []
    private var pending: [UInt32: (completion: Completion, timer: MessageLoop.TimerID, replier: String?)] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    private var nextSubscription = 1
    private var dispatching = false
    private var dispatchRetryScheduled = false
    /// Set once the bus made this connection a monitor (`BecomeMonitor`) or
    /// it eavesdrops: every message goes here, none is dispatched or answered.
    package var monitor: ((Message) -> Void)? {
        didSet {
            // libdbus answers org.freedesktop.DBus.Peer calls itself, whoever
            // they are for; a monitor that answered one would be thrown off.
            if let raw { dbus_connection_set_route_peer_messages(raw, monitor == nil ? 0 : 1) }
        }
    }
    /// Called with (name, old owner, new owner) for every `NameOwnerChanged` that drops an owner.
    package var nameLost: ((String, String) -> Void)?
    /// Called once when the bus connection is gone.
    package var disconnected: (() -> Void)?
    package private(set) var isConnected = true
    /// Calls whose body is larger than this are refused before they are
    /// decoded (`LimitExceeded`); nil takes anything D-Bus carries.
    package var maxCallBytes: Int?
    /// Told the size of each call of `largeCallBytes` or more once its
    /// handler returned (with `maxCallBytes` set): its decoded arguments
    /// are being freed, a moment to hand memory back to the system.
    package var largeCallHandled: ((Int) -> Void)?
    /// Calls that would decode into more values than this are refused
    /// (`LimitExceeded`) once the reader counts past it; nil takes any number.
    package var maxCallValues: Int?
    static let largeCallBytes = 1 << 20

    /// Bounds what libdbus queues from the bus before this process reads it:
    /// past `bytes`, it stops reading the socket until the queue drains (the
    /// bus holds the rest), so incoming data cannot grow without bound.
    /// (A maximum message size is not set: libdbus drops the whole bus
    /// connection on a message over it, which any peer could then cause.)
    package func limitIncomingQueue(bytes: Int) {
        guard let raw else { return }
        dbus_connection_set_max_received_size(raw, Int(clamping: bytes))
    }

    /// Connects to `address`, or to the session bus named by
    /// `DBUS_SESSION_BUS_ADDRESS` (then `$XDG_RUNTIME_DIR/bus`), and says Hello.
    package init(address: String? = nil, loop: MessageLoop) throws {
        guard let address = address ?? Connection.sessionBusAddress() else {
            throw BusError(name: BusError.Standard.disconnected,
                           message: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")
        }
        var error = DBusError()
        dbus_error_init(&error)
        guard let raw = dbus_connection_open_private(address, &error) else {
            throw Connection.take(&error, fallback: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0 else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw Connection.take(&error, fallback: "the bus at \(address) refused Hello")
        }
        self.raw = raw
        self.loop = loop
        self.uniqueName = dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
        let context = Unmanaged.passUnretained(self).toOpaque()
        do {
            try LibDBus.check(dbus_connection_add_filter(raw, { _, message, context in
                guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
                return connection.handle(Message(borrowing: message))
                    ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }, context, nil), "dbus_connection_add_filter")
        } catch {
            // Without the filter nothing would ever be handled.
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            self.raw = nil
            throw error
        }
        loop.attach(self)
    }

    deinit {
        close()
    }

    /// Closes the connection; pending calls complete with `Disconnected`.
    package func close() {
        guard let raw else { return }
        self.raw = nil
        isConnected = false
        loop.detach(self)
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        failAllPending(BusError(name: BusError.Standard.disconnected, message: "connection closed"))
    }

    static func sessionBusAddress() -> String? {
        // An activated daemon is told its bus as DBUS_STARTER_ADDRESS.
        for variable in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS"] {
            if let address = getenv(variable).map({ String(cString: $0) }), !address.isEmpty {
                return address
            }
        }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty,
           access(runtime + "/bus", F_OK) == 0 {
            return "unix:path=" + runtime + "/bus"
        }
        return nil
    }

    static func take(_ error: inout DBusError, fallback: String) -> BusError {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return BusError.failed(fallback) }
        let name = error.name.map { String(cString: $0) } ?? BusError.Standard.failed
        let message = error.message.map { String(cString: $0) } ?? fallback
        return BusError(name: name, message: message)
    }

    static let closedError = BusError(name: BusError.Standard.disconnected, message: "the connection is closed")

    // MARK: Loop plumbing

    package var socket: Int32? {
        guard let raw else { return nil }
        var fd: Int32 = -1
        return dbus_connection_get_socket(raw, &fd) != 0 ? fd : nil
    }

    var hasQueuedInput: Bool {
        guard let raw else { return false }
        return dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS
    }

    var hasPendingOutput: Bool {
        guard let raw else { return false }
        return dbus_connection_has_messages_to_send(raw) != 0
    }

    /// Reads and writes what the socket allows. libdbus reads at most about
    /// 4 KiB a call, so a large message would otherwise take one loop round
    /// (timers, every socket's poll, dispatch) per 4 KiB, and a small call
    /// queued behind it by the bus would wait for all of them. While no
    /// message is complete and the socket still has input, this goes on
    /// reading here, up to `drainReads` calls before the loop has its turn.
    func readWrite() {
        guard let raw else { return }
        var reads = 0
        repeat {
            if dbus_connection_read_write(raw, 0) == 0 {
                dispatchAll()
                connectionLost()
                return
            }
            reads += 1
        } while reads < Connection.drainReads && !hasQueuedInput && socketHasInput
    }

    /// About 1 MiB of input, after which timers and the other sockets get
    /// their turn before this one is read on.
    static let drainReads = 256

    private var socketHasInput: Bool {
        guard let fd = socket else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    func dispatchAll() {
        guard !dispatching else { return }
        dispatching = true
        defer { dispatching = false }
        while let raw {
            let status = dbus_connection_dispatch(raw)
            if status == DBUS_DISPATCH_DATA_REMAINS { continue }
            if status == DBUS_DISPATCH_NEED_MEMORY, !dispatchRetryScheduled {
                // libdbus keeps the message; try again shortly rather than
                // leave it queued until more input happens to arrive.
                dispatchRetryScheduled = true
                loop.addTimer(after: 0.01) { [weak self] in
                    self?.dispatchRetryScheduled = false
                    self?.dispatchAll()
                }
            }
            break
        }
    }

    /// Writes everything queued, blocking; for short-lived tools before exit.
    package func flush() {
        guard let raw else { return }
        dbus_connection_flush(raw)
    }

    private func connectionLost() {
        guard isConnected else { return }
        isConnected = false
        failAllPending(BusError(name: BusError.Standard.disconnected, message: "the bus connection was lost"))
        disconnected?()
    }

    private func failAllPending(_ error: BusError) {
        let calls = pending
        pending.removeAll()
        for (_, entry) in calls {
            loop.cancel(entry.timer)
            entry.completion(.failure(error))
        }
    }

    // MARK: Sending

    /// Sends `message` as is; false when the connection is gone.
    @discardableResult
    package func send(_ message: Message) -> Bool {
        guard let raw else { return false }
        do {
            try LibDBus.check(dbus_connection_send(raw, message.raw, nil), "dbus_connection_send")
            return true
        } catch {
            Log.rateLimitedWarning("send", "a message was not sent: \(error)")
            return false
        }
    }

    /// Sends the message of `header` and `values`, marshalled in Swift and
    /// taken in by libdbus's loader (`Message.marshalled`), through
    /// libdbus's queue: the bus socket is libdbus's alone.
    func sendMarshalled(_ header: MessageMarshaller.Header, _ values: [DBusValue]) throws {
        send(try Message.marshalled(header, values))
    }

    /// Calls a method on another connection without waiting: `completion`
    /// runs on this loop with the reply, the peer's error, or `Timeout`
    /// after `timeout` seconds.
    package func call(
        destination: String, path: ObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Double, completion: @escaping Completion
    ) {
        let message: Message
        do {
            message = try Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                             arguments: arguments)
        } catch let error as BusError {
            completion(.failure(error))
            return
        } catch {
            completion(.failure(BusError.failed("\(error)")))
            return
        }
        guard let raw else {
            completion(.failure(Connection.closedError))
            return
        }
        var serial: UInt32 = 0
        do {
            try LibDBus.check(dbus_connection_send(raw, message.raw, &serial), "dbus_connection_send")
        } catch let error as BusError {
            completion(.failure(error))
            return
        } catch {
            completion(.failure(BusError.failed("\(error)")))
            return
        }
        let timer = loop.addTimer(after: timeout) { [weak self] in
            guard let self, let entry = self.pending.removeValue(forKey: serial) else { return }
            entry.completion(.failure(BusError(name: BusError.Standard.timeout,
                                               message: "\(destination) did not answer \(member) within \(timeout) s")))
        }
        // A reply counts only from the peer called: the bus itself, or the
        // unique name given (a well-known name's owner is not known here).
        let replier: String? = destination.hasPrefix(":") || destination == "org.freedesktop.DBus" ? destination : nil
        pending[serial] = (completion, timer, replier)
    }

    var pendingCallCount: Int { pending.count }

    /// Calls a method with no reply asked for: fire and forget, nothing
    /// pending, nothing to time out. Failures to build or queue are logged.
    package func notify(destination: String, path: ObjectPath, interface: String, member: String, arguments: [DBusValue]) {
        do {
            let message = try Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                                 arguments: arguments, noReply: true)
            if !send(message) { Log.warning("cannot queue \(member) to \(destination)") }
        } catch {
            Log.warning("cannot build \(member) to \(destination): \(error)")
        }
    }

    /// Calls a method and blocks this thread until the reply (for command-line
    /// tools and tests; the daemon never uses it on a client).
    package func callBlocking(
        destination: String, path: ObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Double = 25
    ) throws -> [DBusValue] {
        try callBlockingReply(destination: destination, path: path, interface: interface, member: member,
                              arguments: arguments, timeout: timeout).arguments()
    }

    /// `callBlocking`, answering the reply message itself (not yet read).
    package func callBlockingReply(
        destination: String, path: ObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Double = 25
    ) throws -> Message {
        let message = try Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                             arguments: arguments)
        guard let raw else { throw Connection.closedError }
        var error = DBusError()
        dbus_error_init(&error)
        let milliseconds = Int32(clamping: MessageLoop.nanoseconds(timeout) / 1_000_000)
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, milliseconds, &error) else {
            throw Connection.take(&error, fallback: "\(member) failed")
        }
        return Message(owning: reply)
    }

    /// Emits a signal, to everyone or to one `destination`.
    package func emitSignal(path: ObjectPath, interface: String, member: String,
                    arguments: [DBusValue], destination: String? = nil) throws {
        try sendMarshalled(.init(kind: .signal, path: path.rawValue, interface: interface, member: member,
                                 destination: destination), arguments)
    }

    // MARK: Signals in

    /// Routes matching signals to `handler` and asks the bus for them.
    @discardableResult
    package func subscribe(interface: String? = nil, member: String? = nil, path: ObjectPath? = nil,
                   sender: String? = nil, busSender: String? = nil, argument0: String? = nil,
                   handler: @escaping (Message) -> Void) -> Int {
        let id = nextSubscription
        nextSubscription += 1
        subscriptions[id] = Subscription(interface: interface, member: member, path: path, sender: sender, handler: handler)
        var rule = "type='signal'"
        if let busSender = busSender ?? sender { rule += ",sender='\(busSender)'" }
        if let interface { rule += ",interface='\(interface)'" }
        if let member { rule += ",member='\(member)'" }
        if let path { rule += ",path='\(path.rawValue)'" }
        if let argument0 { rule += ",arg0='\(argument0)'" }
        addMatch(rule)
        return id
    }

    package func unsubscribe(_ id: Int) {
        subscriptions[id] = nil
    }

    /// Adds a match rule without waiting for the bus's answer.
    func addMatch(_ rule: String) {
        call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
             interface: "org.freedesktop.DBus", member: "AddMatch",
             arguments: [.string(rule)], timeout: 25) { result in
            if case .failure(let error) = result, error.name != BusError.Standard.disconnected {
                Log.warning("AddMatch \(rule) failed: \(error.message)")
            }
        }
    }

    /// Starts reporting peers (and well-known names) that leave the bus to `nameLost`.
    package func trackPeers() {
        subscribe(interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                  path: "/org/freedesktop/DBus", sender: "org.freedesktop.DBus") { [weak self] message in
            guard let self, let args = try? message.arguments(), args.count == 3,
                  case .string(let name) = args[0], case .string(let old) = args[1],
                  case .string(let new) = args[2], !old.isEmpty, new.isEmpty else { return }
            self.nameLost?(name, old)
        }
    }

    // MARK: Incoming

    /// The filter: replies, signals, method calls. Returns true when handled.
    private func handle(_ message: Message) -> Bool {
        if let monitor {
            // A monitor only listens: nothing is dispatched, nothing answered.
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                connectionLost()
            } else {
                monitor(message)
            }
            return true
        }
        switch message.kind {
        case .methodReturn, .error:
            // Matched by serial and sender: another peer that guesses the
            // serial cannot answer in the callee's place.
            guard let waiting = pending[message.replySerial],
                  waiting.replier == nil || waiting.replier == message.sender else { return false }
            guard let entry = pending.removeValue(forKey: message.replySerial) else { return false }
            loop.cancel(entry.timer)
            if let error = message.asError {
                entry.completion(.failure(error))
            } else {
                do {
                    entry.completion(.success(try message.arguments()))
                } catch let error as BusError {
                    entry.completion(.failure(error))
                } catch {
                    entry.completion(.failure(BusError.failed("\(error)")))
                }
            }
            return true
        case .signal:
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                connectionLost()
                return true
            }
            var handled = false
            for subscription in subscriptions.values where subscription.matches(message) {
                subscription.handler(message)
                handled = true
            }
            return handled
        case .methodCall:
            dispatchMethodCall(message)
            return true
        case nil:
            return false
        }
    }
}

extension Connection.Subscription {
    package func matches(_ message: Message) -> Bool {
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path.rawValue { return false }
        if let sender, message.sender != sender {
            // The bus itself sends as "org.freedesktop.DBus"; others send
            // under their unique name, which the caller passes here.
            return false
        }
        return true
    }
}
