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

/// A test case with one private bus for the whole suite (class), started on
/// first use and stopped when the suite ends.
class BusTestCase: XCTestCase {
    nonisolated(unsafe) private static var buses: [ObjectIdentifier: PrivateBus] = [:]

    var bus: PrivateBus {
        get throws {
            let key = ObjectIdentifier(type(of: self))
            if let bus = BusTestCase.buses[key] { return bus }
            let bus = try PrivateBus()
            BusTestCase.buses[key] = bus
            return bus
        }
    }

    /// Writing to a child that has exited raises SIGPIPE, which would end
    /// the whole test process; once ignored, the write fails instead.
    static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    override class func tearDown() {
        buses.removeValue(forKey: ObjectIdentifier(self))?.stop()
        super.tearDown()
    }

    /// A raw connection from this test process, with its own loop.
    func connect() throws -> Connection {
        try Connection(address: try bus.address, loop: MessageLoop())
    }

    /// A client library connection on the suite's bus.
    func client() throws -> MenuBusClient {
        let client = try MenuBusClient(address: try bus.address)
        client.callTimeout = 10
        return client
    }

    /// A client registered as `appId`.
    func app(_ appId: String = "org.example.Editor") throws -> MenuBusClient {
        let app = try client()
        try app.register(appId: appId)
        return app
    }

    /// Starts menubusd on the suite's bus and waits until it owns its name.
    /// A program outside the package on this test's bus, stopped when the test ends.
    func startProgram(_ path: String, _ arguments: [String]) throws -> RunningProcess {
        let running = try bus.startProgram(path, arguments)
        addTeardownBlock {
            if running.isRunning { running.process.terminate(); running.process.waitUntilExit() }
        }
        return running
    }

    func startDaemon(_ arguments: [String] = [], extraEnvironment: [String: String] = [:]) throws -> RunningProcess {
        // English unless a test asks for a language: the titles tests expect
        // do not depend on the machine's locale.
        let environment = ["LANGUAGE": "C"].merging(extraEnvironment) { $1 }
        let daemon = try bus.start("menubusd", arguments, extraEnvironment: environment)
        let probe = try connect()
        let owned = eventually(timeout: 10) { nameHasOwner(probe, MenuBusNames.busName) || !daemon.isRunning }
        guard owned, daemon.isRunning else {
            throw TestFailure("menubusd did not take its name; stderr: \(daemon.stderrText)")
        }
        addTeardownBlock {
            if daemon.isRunning {
                daemon.signal(SIGTERM)
                _ = try? daemon.wait(timeout: 5)
            }
        }
        return daemon
    }

    func nameHasOwner(_ connection: Connection, _ name: String) -> Bool {
        let reply = try? connection.callBlocking(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)], timeout: 5)
        return reply?.first == .boolean(true)
    }

    /// Calls menubusd's manager object (or another path/interface) and returns the reply.
    func callDaemon(_ connection: Connection, path: ObjectPath = MenuBusNames.managerPath,
                    interface: String = MenuBusNames.managerInterface, _ member: String,
                    _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callBlocking(destination: MenuBusNames.busName, path: path, interface: interface,
                                    member: member, arguments: arguments, timeout: 10)
    }

    /// Asserts that `body` throws a `BusError` named `name`, and returns it.
    @discardableResult
    func assertBusError(_ name: String, file: StaticString = #filePath, line: UInt = #line,
                        _ body: () throws -> Void) -> BusError? {
        do {
            try body()
            XCTFail("expected \(name), but the call succeeded", file: file, line: line)
        } catch let error as BusError {
            XCTAssertEqual(error.name, name, "message: \(error.message)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected \(name), got \(error)", file: file, line: line)
        }
        return nil
    }
}
