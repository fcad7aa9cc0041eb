import Foundation
import MenuBusBusFixtures
import XCTest
@testable import MenuBus
@testable import MenuBusDBus
@testable import MenuBusProtocol

/// The client's own logic against a scripted menubusd on a private bus:
/// what it makes of the daemon's answers, whom it takes callbacks from,
/// how its async handlers answer, and what it says again to a new daemon.
final class ClientAgainstScriptedDaemonTests: XCTestCase {
    private var bus: BusDaemon!

    override func setUpWithError() throws {
        bus = try BusDaemon()
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    /// A scripted daemon on the test's bus, stopped when the test ends.
    private func scriptedDaemon(version: DBusValue = .uint32(1), owningName: Bool = true) throws -> ScriptedDaemon {
        let daemon = try ScriptedDaemon(address: bus.address, version: version, owningName: owningName)
        addTeardownBlock { daemon.stop() }
        return daemon
    }

    private func client() throws -> MenuBusClient {
        let client = try MenuBusClient(address: bus.address)
        client.callTimeout = 10
        return client
    }

    /// A reply the scripted daemon got from the client, kept across threads.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Result<[DBusValue], BusError>?
        var result: Result<[DBusValue], BusError>? { lock.withLock { stored } }
        func set(_ result: Result<[DBusValue], BusError>) { lock.withLock { stored = result } }
    }

    /// The daemon calls `member` of `app`; the app's loop runs until the answer is back.
    private func daemonCalls(_ app: MenuBusClient, from daemon: ScriptedDaemon, _ member: String,
                             _ arguments: [DBusValue]) -> Result<[DBusValue], BusError>? {
        let outcome = Outcome()
        daemon.callClient(app.uniqueName, member: member, arguments) { outcome.set($0) }
        // In short turns: the answer lands on the daemon's thread, which
        // does not wake the app's loop.
        let deadline = Date().addingTimeInterval(10)
        while outcome.result == nil, Date() < deadline {
            app.run(until: { outcome.result != nil }, timeout: 0.01)
        }
        return outcome.result
    }

    private func elements(_ ids: String...) -> DBusValue {
        .array("(ssa{sv})", ids.map { id in
            .structure([.string(id), .string(""), .array("{sv}", [.dictEntry(.string("title"), .variant(.string(id.capitalized)))])])
        })
    }

    func testTheVersionIsTheDaemonsAndOfAnyOtherTypeAFailureNamingIt() throws {
        let daemon = try scriptedDaemon(version: .uint32(7))
        XCTAssertEqual(try client().apiVersion(), 7)
        daemon.stop()
        _ = try scriptedDaemon(version: .string("7"))
        XCTAssertThrowsError(try client().apiVersion()) { error in
            XCTAssertEqual(error as? BusError, BusError(name: BusError.Standard.failed, message: "Version has type 's'"))
        }
    }

    /// menubusd sends the same bytes while a menu is equal: the client reads
    /// them once and keeps the last few menus, newest first.
    func testAComposedMenuIsReadOnceWhileItsBytesStayTheSame() throws {
        let daemon = try scriptedDaemon()
        let presenter = try client()
        daemon.answerMenus(revision: 3, elements("copy", "paste"))
        let first = try presenter.editMenu(contextId: "body")
        XCTAssertEqual(first.revision, 3)
        XCTAssertEqual(first.elements.map(\.id), ["copy", "paste"])
        XCTAssertEqual(first.element("paste")?.title, "Paste")
        XCTAssertEqual(try presenter.editMenu(contextId: "body"), first)
        XCTAssertEqual(presenter.recentMenus.map(\.menu), [first], "the same bytes are not kept twice")

        daemon.answerMenus(revision: 4, elements("cut"))
        let second = try presenter.editMenu(contextId: "body")
        XCTAssertEqual(second.elements.map(\.id), ["cut"])
        XCTAssertEqual(presenter.recentMenus.map(\.menu), [second, first])
        daemon.answerMenus(revision: 3, elements("copy", "paste"))
        XCTAssertEqual(try presenter.editMenu(contextId: "body"), first)
        XCTAssertEqual(presenter.recentMenus.map(\.menu), [first, second], "a menu read again moves to the front")
        for revision in UInt32(5)...UInt32(9) {
            daemon.answerMenus(revision: revision, elements("cut"))
            _ = try presenter.editMenu(contextId: "body")
        }
        XCTAssertEqual(presenter.recentMenus.map(\.menu.revision), [9, 8, 7, 6], "at most \(MenuBusClient.maxRememberedMenus)")
        XCTAssertEqual(daemon.calls.filter { $0 == "GetEditMenu body" }.count, 9, "every call reaches the daemon")
    }

    /// Elements that break the model's rules are an error, whoever sent them.
    func testAMenuThatBreaksTheRulesIsAnInvalidArgsError() throws {
        let daemon = try scriptedDaemon()
        let presenter = try client()
        daemon.answerMenus(revision: 1, elements("copy", "copy"))
        XCTAssertThrowsError(try presenter.editMenu(contextId: "body")) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.Standard.invalidArgs)
            XCTAssertTrue((error as? BusError)?.message.hasPrefix("items") == true, "\(error)")
        }
        XCTAssertTrue(presenter.recentMenus.isEmpty, "a refused menu is not kept")
    }

    /// Callbacks come from menubusd only: the owner of its name, asked when
    /// the app registered.
    func testCallbacksFromAnyoneButTheDaemonAreRefused() throws {
        let daemon = try scriptedDaemon()
        let app = try client()
        try app.register(appId: "org.example.Editor")
        XCTAssertEqual(daemon.calls, ["Register org.example.Editor /org/menubus/Client"])
        var invocations: [ActionInvocation] = []
        app.onAction = { invocations.append($0) }

        let stranger = try scriptedDaemon(owningName: false)
        let refused = daemonCalls(app, from: stranger, "ActionInvoked", [.string("body"), .string("archive"), .array("{sv}", [])])
        XCTAssertEqual(refused?.error?.name, "org.menubus.MenuBus1.Error.AccessDenied")
        XCTAssertTrue(invocations.isEmpty)

        let answer = daemonCalls(app, from: daemon, "ActionInvoked",
                                 [.string("body"), .string("archive"), .array("{sv}", [.dictEntry(.string("timestamp"), .variant(.uint32(5)))])])
        XCTAssertEqual(try answer?.get(), [])
        XCTAssertEqual(invocations.map(\.itemId), ["archive"])
        XCTAssertEqual(invocations.first?.contextId, "body")
        XCTAssertEqual(invocations.first?.platformData["timestamp"], .uint32(5))
    }

    private struct NotABusError: Error, CustomStringConvertible {
        let description = "the disk is full"
    }

    /// An async handler runs in a task of its own; the daemon hears it
    /// ended, its `BusError` as sent, any other error as `Failed`.
    func testAsyncHandlersAnswerTheDaemonWithTheirOutcome() throws {
        let daemon = try scriptedDaemon()
        let app = try client()
        try app.register(appId: "org.example.Editor")
        app.onActionAsync { invocation in
            switch invocation.itemId {
            case "archive": return
            case "delete": throw BusError(name: "org.example.Error.ReadOnly", message: "cannot delete")
            default: throw NotABusError()
            }
        }
        app.provideElementsAsync { _, elementId in
            guard elementId == "recent" else { throw BusError(name: "org.example.Error.Gone", message: elementId) }
            return [MenuElement(id: "recent-1", title: "Notes.txt")]
        }
        func action(_ item: String) -> Result<[DBusValue], BusError>? {
            daemonCalls(app, from: daemon, "ActionInvoked", [.string("body"), .string(item), .array("{sv}", [])])
        }
        XCTAssertEqual(try action("archive")?.get(), [])
        XCTAssertEqual(action("delete")?.error,
                       BusError(name: "org.example.Error.ReadOnly", message: "cannot delete"))
        XCTAssertEqual(action("print")?.error,
                       BusError(name: BusError.Standard.failed, message: "the disk is full"))

        let provided = try daemonCalls(app, from: daemon, "ProvideElements", [.string("body"), .string("recent")])?.get()
        XCTAssertEqual(try provided.map { try Wire.decodeElements($0.first ?? .array("(ssa{sv})", [])) }?.map(\.id), ["recent-1"])
        let gone = daemonCalls(app, from: daemon, "ProvideElements", [.string("body"), .string("older")])
        XCTAssertEqual(gone?.error,
                       BusError(name: "org.example.Error.Gone", message: "older"))
    }

    /// When menubusd comes back, the client registers again, publishes its
    /// contexts with their last items and selections and offers its
    /// providers, in the order it first made them; menus it had presented
    /// are closed.
    func testANewDaemonHearsWhatTheOldOneWasTold() throws {
        let old = try scriptedDaemon()
        let app = try client()
        try app.register(appId: "org.example.Editor")
        try app.publishContext("body", ContextInfo(kind: .text, editable: true))
        try app.publishContext("title", ContextInfo(kind: .text, editable: true))
        try app.publishContext("search", ContextInfo(kind: .text, editable: true))
        try app.updateItems("body", [MenuElement(id: "archive", title: "Archive")])
        try app.updateSelection("body", Selection(kind: .range, length: 5, text: "hello"))
        try app.removeContext("title")
        try app.registerProvider(ProviderInfo(id: "org.example.Upper", title: "Upper", returnsText: true)) { text, _ in text }
        var closed: [String] = []
        try app.observeMenus({ _, _ in }, closed: { closed.append($0.path.rawValue) })
        let menu = try app.present(contextId: "body", kind: .edit)
        var lost = 0, restarted = 0
        app.onDaemonLost = { lost += 1 }
        app.onDaemonRestart = { restarted += 1 }

        old.stop()
        XCTAssertTrue(app.run(until: { lost == 1 }, timeout: 10), "the client heard menubusd leave")
        XCTAssertEqual(closed, [menu.path.rawValue])
        XCTAssertFalse(app.isDaemonRunning)
        let new = try scriptedDaemon()
        XCTAssertTrue(app.run(until: { restarted == 1 }, timeout: 10), "the client heard menubusd come back")
        XCTAssertEqual(new.calls, [
            "Register org.example.Editor /org/menubus/Client",
            "PublishContext body archive",
            "UpdateSelection body hello",
            "PublishContext search ",
            "RegisterProvider org.example.Upper /org/menubus/Provider",
        ])
        XCTAssertTrue(app.isDaemonRunning)
        XCTAssertEqual(lost, 1)
        XCTAssertEqual(closed.count, 1)
    }
}

private extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
