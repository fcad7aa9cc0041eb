import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// The D-Bus layer in process: two connections on one loop and a private bus.
final class ConnectionTests: BusTestCase {
    private var loop: MessageLoop!

    override func setUp() {
        super.setUp()
        loop = MessageLoop()
    }

    private func pair() throws -> (server: Connection, client: Connection) {
        let address = try bus.address
        return (try Connection(address: address, loop: loop), try Connection(address: address, loop: loop))
    }

    private func echoInterface(onSilent: @escaping (PendingReply) -> Void = { _ in }) -> Interface {
        var echo = Interface("org.example.Echo")
        echo.method("Echo", in: [arg("text", String.self)], out: [arg("text", String.self)]) { call in
            [.string(try call.argument(0, as: String.self))]
        }
        echo.method("Silent") { call in
            onSilent(call.deferReply())
            return []
        }
        echo.method("Later", out: [arg("n", UInt32.self)]) { call in
            let reply = call.deferReply()
            call.connection?.loop.addTimer(after: 0.01) { reply.reply([.uint32(42)]) }
            return []
        }
        echo.method("Wrong", out: [arg("n", UInt32.self)]) { _ in [.string("not a u")] }
        echo.signal("Said", [arg("text", String.self)])
        return echo
    }

    func testAsyncCallCompletesWithTheReply() throws {
        let (server, client) = try pair()
        server.export("/echo", [echoInterface()])
        var result: Result<[DBusValue], BusError>?
        client.call(destination: server.uniqueName, path: "/echo", interface: "org.example.Echo", member: "Echo",
                    arguments: [.string("hi")], timeout: 5) { result = $0 }
        XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
        XCTAssertEqual(try result?.get(), [.string("hi")])
        XCTAssertEqual(client.pendingCallCount, 0)
    }

    /// One declaration serves the objects a subtree finds, each handler
    /// reading which from the path: any other path below is no object, the
    /// access check sees the path, introspection lists the live ones.
    func testASubtreeServesTheObjectsItFindsAndNoOthers() throws {
        let (server, client) = try pair()
        var live: Set<String> = ["1", "2"]
        var thing = Interface("org.example.Thing")
        thing.method("Name", out: [arg("name", String.self)]) { call in [.string(call.path.rawValue)] }
        thing.property("Path", String.self, at: { $0.rawValue })
        server.exportSubtree("/things", [thing],
                             find: { path in live.contains(String(path.rawValue.dropFirst("/things/".count))) },
                             children: { live.sorted().map { ObjectPath(stringLiteral: "/things/\($0)") } },
                             access: { path, _, _ in
                                 path.rawValue == "/things/2" ? BusError(.accessDenied, "not this one") : nil
                             })
        func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
            var result: Result<[DBusValue], BusError>?
            client.call(destination: server.uniqueName, path: ObjectPath(stringLiteral: path), interface: interface,
                        member: member, arguments: arguments, timeout: 5) { result = $0 }
            XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
            return try XCTUnwrap(result).get()
        }
        XCTAssertEqual(try call("/things/1", "org.example.Thing", "Name"), [.string("/things/1")])
        XCTAssertEqual(try call("/things/1", "org.freedesktop.DBus.Properties", "Get",
                                [.string("org.example.Thing"), .string("Path")]), [.variant(.string("/things/1"))])
        assertBusError(BusError(.accessDenied, "").name) { _ = try call("/things/2", "org.example.Thing", "Name") }
        for path in ["/things/3", "/things", "/things/1/x"] {
            assertBusError(BusError.Standard.unknownObject) { _ = try call(path, "org.example.Thing", "Name") }
        }
        let listed = try call("/things", "org.freedesktop.DBus.Introspectable", "Introspect").first?.stringValue ?? ""
        XCTAssertTrue(listed.contains("<node name=\"1\"/>") && listed.contains("<node name=\"2\"/>"), listed)
        live.remove("1")
        assertBusError(BusError.Standard.unknownObject) { _ = try call("/things/1", "org.example.Thing", "Name") }
        let after = try call("/things", "org.freedesktop.DBus.Introspectable", "Introspect").first?.stringValue ?? ""
        XCTAssertFalse(after.contains("<node name=\"1\"/>"), after)
    }

    func testAsyncCallTimesOutWhenThePeerNeverAnswers() throws {
        let (server, client) = try pair()
        var held: [PendingReply] = []
        server.export("/echo", [echoInterface(onSilent: { held.append($0) })])
        var result: Result<[DBusValue], BusError>?
        let started = MessageLoop.now()
        client.call(destination: server.uniqueName, path: "/echo", interface: "org.example.Echo", member: "Silent",
                    timeout: 0.2) { result = $0 }
        XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
        XCTAssertEqual(result.flatMap { if case .failure(let e) = $0 { e.name } else { nil } }, BusError.Standard.timeout)
        XCTAssertGreaterThanOrEqual(MessageLoop.now() - started, 150_000_000, "not before the timeout")
        XCTAssertEqual(held.count, 1)
        // A late answer after the timeout is dropped, not delivered twice.
        held[0].reply([])
        loop.run(until: { false }, timeout: 0.1)
        XCTAssertEqual(client.pendingCallCount, 0)
    }

    func testDeferredReplyArrivesLater() throws {
        let (server, client) = try pair()
        server.export("/echo", [echoInterface()])
        var result: Result<[DBusValue], BusError>?
        client.call(destination: server.uniqueName, path: "/echo", interface: "org.example.Echo", member: "Later",
                    timeout: 5) { result = $0 }
        XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
        XCTAssertEqual(try result?.get(), [.uint32(42)])
    }

    func testAReplyOfTheWrongTypeBecomesAnErrorNotAWrongAnswer() throws {
        let (server, client) = try pair()
        server.export("/echo", [echoInterface()])
        var result: Result<[DBusValue], BusError>?
        client.call(destination: server.uniqueName, path: "/echo", interface: "org.example.Echo", member: "Wrong",
                    timeout: 5) { result = $0 }
        XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
        guard case .failure(let error) = result else { return XCTFail("expected an error") }
        XCTAssertEqual(error.name, BusError.Standard.failed)
    }

    func testPeerLeavingIsReported() throws {
        let (server, client) = try pair()
        var gone: [String] = []
        server.nameLost = { name, _ in gone.append(name) }
        server.trackPeers()
        // Let AddMatch reach the bus before the peer leaves.
        _ = try server.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "GetId")
        let name = client.uniqueName
        client.close()
        XCTAssertTrue(loop.run(until: { gone.contains(name) }, timeout: 5))
    }

    func testSignalToOneDestinationReachesOnlyIt() throws {
        let (server, client) = try pair()
        let other = try Connection(address: try bus.address, loop: loop)
        server.export("/echo", [echoInterface()])
        var clientGot: [String] = [], otherGot: [String] = []
        client.subscribe(interface: "org.example.Echo", member: "Said") { message in
            clientGot.append((try? message.arguments().first?.stringValue) ?? nil ?? "")
        }
        other.subscribe(interface: "org.example.Echo", member: "Said") { message in
            otherGot.append((try? message.arguments().first?.stringValue) ?? nil ?? "")
        }
        for connection in [client, other] {
            _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                            interface: "org.freedesktop.DBus", member: "GetId")
        }
        loop.run(until: { false }, timeout: 0.05)
        server.emit("/echo", "org.example.Echo", "Said", [.string("to you")], destination: client.uniqueName)
        server.emit("/echo", "org.example.Echo", "Said", [.string("to all")])
        XCTAssertTrue(loop.run(until: { clientGot.count == 2 && otherGot.count == 1 }, timeout: 5))
        XCTAssertEqual(clientGot, ["to you", "to all"])
        XCTAssertEqual(otherGot, ["to all"])
    }

    /// Behind a message libdbus is still writing, signals wait in its
    /// queue, so the receiver sees them in the order they were sent. (The
    /// serial checks of the socket write that bypassed libdbus's queue went
    /// with it, issue 29: every message is libdbus's to number and write.)
    func testSignalsKeepTheirOrderBehindWhatLibdbusQueues() throws {
        let (server, client) = try pair()
        var echo = echoInterface()
        echo.signal("Data", [arg("data", [UInt8].self)])
        server.export("/echo", [echo])
        var got: [(text: String, serial: UInt32)] = []
        client.subscribe(interface: "org.example.Echo") { message in
            let first = try? message.arguments().first
            let text: String
            switch first {
            case .string(let said): text = said
            case .bytes(let data): text = "data \(data.count)"
            default: text = "?"
            }
            got.append((text, message.serial))
        }
        _ = try client.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "GetId")
        loop.run(until: { false }, timeout: 0.05)

        let large = 8 << 20
        server.emit("/echo", "org.example.Echo", "Said", [.string("before")])
        server.emit("/echo", "org.example.Echo", "Data", [.bytes(Array(repeating: 7, count: large))])
        XCTAssertTrue(server.hasPendingOutput, "the socket took 8 MiB at once: the test shows nothing")
        server.emit("/echo", "org.example.Echo", "Said", [.string("queued")])
        XCTAssertTrue(loop.run(until: { got.count == 3 }, timeout: 20))
        XCTAssertTrue(loop.run(until: { !server.hasPendingOutput }, timeout: 5))
        server.emit("/echo", "org.example.Echo", "Said", [.string("after")])
        XCTAssertTrue(loop.run(until: { got.count == 4 }, timeout: 5))

        XCTAssertEqual(got.map(\.text), ["before", "data \(large)", "queued", "after"])
        guard got.count == 4 else { return }
        XCTAssertEqual(got.map(\.serial), got.map(\.serial).sorted(), "numbered by libdbus in the order sent")
    }

    /// The bus's answer to GetConnectionCredentials, read by MessageReader:
    /// both connections are this process.
    func testCredentialsNameThePeersProcessAndUser() throws {
        let (server, client) = try pair()
        let credentials = try client.credentials(of: server.uniqueName)
        XCTAssertEqual(credentials.processId, UInt32(getpid()))
        XCTAssertEqual(credentials.userId, UInt32(getuid()))
        XCTAssertThrowsError(try client.credentials(of: ":1.999999"))
    }

    func testUndeclaredOrMistypedSignalsAreNotSent() throws {
        let (server, client) = try pair()
        server.export("/echo", [echoInterface()])
        var got = 0
        client.subscribe(interface: "org.example.Echo") { _ in got += 1 }
        _ = try client.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "GetId")
        server.emit("/echo", "org.example.Echo", "Said", [.uint32(1)])
        server.emit("/echo", "org.example.Echo", "Unknown", [])
        server.emit("/echo", "org.example.Echo", "Said", [.string("ok")])
        XCTAssertTrue(loop.run(until: { got == 1 }, timeout: 5))
        loop.run(until: { false }, timeout: 0.1)
        XCTAssertEqual(got, 1)
    }

    func testPropertiesChangedCarriesNewValues() throws {
        let (server, client) = try pair()
        var counter: UInt32 = 1
        var iface = Interface("org.example.Counter")
        iface.property("Count", UInt32.self, get: { counter }, set: { value, _ in counter = value })
        server.export("/counter", [iface])
        var changes: [[DBusValue]] = []
        client.subscribe(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged") { message in
            if let args = try? message.arguments() { changes.append(args) }
        }
        var done = false
        client.call(destination: server.uniqueName, path: "/counter", interface: "org.freedesktop.DBus.Properties",
                    member: "Set", arguments: [.string("org.example.Counter"), .string("Count"), .variant(.uint32(5))],
                    timeout: 5) { _ in done = true }
        XCTAssertTrue(loop.run(until: { done && !changes.isEmpty }, timeout: 5))
        XCTAssertEqual(counter, 5)
        XCTAssertEqual(changes.first?[1], .array("{sv}", [.dictEntry(.string("Count"), .variant(.uint32(5)))]))
        var wrongType: Result<[DBusValue], BusError>?
        client.call(destination: server.uniqueName, path: "/counter", interface: "org.freedesktop.DBus.Properties",
                    member: "Set", arguments: [.string("org.example.Counter"), .string("Count"), .variant(.string("x"))],
                    timeout: 5) { wrongType = $0 }
        XCTAssertTrue(loop.run(until: { wrongType != nil }, timeout: 5))
        guard case .failure(let error) = wrongType else { return XCTFail("a mistyped Set must fail") }
        XCTAssertEqual(error.name, BusError.Standard.invalidArgs)
        XCTAssertEqual(counter, 5)
    }

    func testTimersFireInDeadlineOrderAndCancelledOnesNever() throws {
        var fired: [Int] = []
        loop.addTimer(after: 0.03) { fired.append(3) }
        let cancelled = loop.addTimer(after: 0.01) { fired.append(99) }
        loop.addTimer(after: 0.02) { fired.append(2) }
        loop.addTimer(after: 0.0) { fired.append(1) }
        loop.cancel(cancelled)
        XCTAssertTrue(loop.run(until: { fired.count == 3 }, timeout: 5))
        XCTAssertEqual(fired, [1, 2, 3])
    }

    func testRepliesCountOnlyFromThePeerThatWasCalled() throws {
        let (server, client) = try pair()
        let forger = try Connection(address: try bus.address, loop: loop)
        var held: [PendingReply] = []
        server.export("/echo", [echoInterface(onSilent: { held.append($0) })])
        var result: Result<[DBusValue], BusError>?
        client.call(destination: server.uniqueName, path: "/echo", interface: "org.example.Echo", member: "Silent",
                    timeout: 5) { result = $0 }
        XCTAssertTrue(loop.run(until: { held.count == 1 }, timeout: 5))
        // Replies for every serial the call could have, from someone else.
        for serial in UInt32(1)...64 {
            let forged = try Message.methodReturn(replySerial: serial, destination: client.uniqueName)
            try forged.append([.string("forged")])
            forger.send(forged)
        }
        loop.run(until: { result != nil }, timeout: 0.3)
        XCTAssertNil(result, "a forged reply was taken for the real one")
        held[0].reply([])
        XCTAssertTrue(loop.run(until: { result != nil }, timeout: 5))
        XCTAssertEqual(try result?.get(), [], "the callee's own reply arrives")
    }
}
