import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Command, action and provider handlers of the Swift client that answer
/// later (a reply object or an async handler), against the real daemon:
/// the app's connection goes on answering other calls while an answer is
/// pending, menubusd goes on answering everyone, and the late answer is
/// what menubusd hears.
final class LaterAnswerTests: BusTestCase {
    /// Pumps every client (`dispatch` on their descriptors, as an app's own loop would) until `done`.
    private func pump(_ clients: [MenuBusClient], until done: () throws -> Bool, timeout: Double) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try done() { return true }
            var fds = clients.flatMap(\.fileDescriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 10)
            for client in clients { client.dispatch() }
        }
        return try done()
    }

    private func textApp(_ appId: String) throws -> MenuBusClient {
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: appId)
        try app.publishContext("field", ContextInfo(kind: .text, editable: true, hasContent: true))
        try app.updateSelection("field", Selection(kind: .range, length: 5, text: "hello"))
        return app
    }

    func testCommandsAnsweredLaterLetTheAppTakeMoreCallsMeanwhile() throws {
        let daemon = try startDaemon()
        let app = try textApp("org.example.LaterCommands")
        var pending: [(CommandInvocation, CallReply)] = []
        app.onCommandLater = { pending.append(($0, $1)) }
        let presenter = try MenuBusClient(address: try bus.address)
        let first = try presenter.present(owner: "org.example.LaterCommands", contextId: "field", kind: .edit)
        try presenter.activate(first, itemId: "menubus:copy")
        // The first command is unanswered; a second choice still reaches the app.
        XCTAssertTrue(pump([app], until: { pending.count == 1 }, timeout: 5))
        let second = try presenter.present(owner: "org.example.LaterCommands", contextId: "field", kind: .edit)
        try presenter.activate(second, itemId: "menubus:select-all")
        XCTAssertTrue(pump([app], until: { pending.count == 2 }, timeout: 5), "the second command arrived while the first was pending")
        XCTAssertEqual(pending.map(\.0.name), ["copy", "select-all"])
        // menubusd answers others while both wait on the app.
        XCTAssertNotNil(try presenter.editMenu(owner: "org.example.LaterCommands", contextId: "field").element("menubus:copy"))
        // Answers from another thread: the first done, the second failed, which menubusd logs.
        let replies = pending.map(\.1)
        DispatchQueue.global().async {
            replies[0].done()
            replies[1].fail(BusError(name: "org.example.Error.Busy", message: "not now"))
        }
        XCTAssertTrue(pump([app], until: { daemon.stderrText.contains("PerformCommand failed: org.example.Error.Busy") },
                           timeout: 5), daemon.stderrText)
        XCTAssertEqual(daemon.stderrText.components(separatedBy: "PerformCommand failed").count, 2,
                       "only the failed command is logged: \(daemon.stderrText)")
    }

    func testAsyncCommandAndActionHandlersAnswerWhenTheyEnd() throws {
        let daemon = try startDaemon()
        let app = try textApp("org.example.AsyncCommands")
        try app.updateItems("field", [MenuElement(id: "archive", title: "Archive")])
        let log = EventLog()
        app.onCommandAsync { invocation in
            log.add("command \(invocation.name) started")
            try await Task.sleep(nanoseconds: 200_000_000)
            log.add("command \(invocation.name) ended")
        }
        app.onActionAsync { invocation in
            log.add("action \(invocation.itemId)")
            throw BusError(name: "org.example.Error.ReadOnly", message: "cannot archive")
        }
        let presenter = try MenuBusClient(address: try bus.address)
        try presenter.activate(try presenter.present(owner: "org.example.AsyncCommands", contextId: "field", kind: .edit),
                               itemId: "menubus:copy")
        XCTAssertTrue(pump([app], until: { log.events.contains("command copy started") }, timeout: 5))
        // While the command's task sleeps, an action is delivered and answered.
        try presenter.activate(try presenter.present(owner: "org.example.AsyncCommands", contextId: "field", kind: .context),
                               itemId: "archive")
        XCTAssertTrue(pump([app], until: { daemon.stderrText.contains("ActionInvoked failed: org.example.Error.ReadOnly") },
                           timeout: 5), daemon.stderrText)
        XCTAssertTrue(pump([app], until: { log.events.contains("command copy ended") }, timeout: 5))
        XCTAssertEqual(log.events, ["command copy started", "action archive", "command copy ended"])
        XCTAssertFalse(daemon.stderrText.contains("PerformCommand failed"), daemon.stderrText)
    }

    func testProviderAnswersProcessLaterWhileTakingAnotherProcess() throws {
        _ = try startDaemon()
        let app = try textApp("org.example.LaterProvider")
        var replacements: [String] = []
        app.onCommand = { if $0.name == "replace-selection", let text = $0.arguments["text"]?.stringValue { replacements.append(text) } }
        let provider = try MenuBusClient(address: try bus.address)
        let log = EventLog()
        try provider.registerProviderAsync(ProviderInfo(id: "org.example.SlowUpper", title: "Slow Uppercase",
                                                               returnsText: true)) { text, context in
            let appId = context["app-id"]?.unwrapped.stringValue ?? "?"
            log.add("process \(appId) started")
            try await Task.sleep(nanoseconds: 200_000_000)
            log.add("process \(appId) ended")
            return text.uppercased()
        }
        let other = try textApp("org.example.LaterProvider2")
        try other.updateSelection("field", Selection(kind: .range, length: 5, text: "world"))
        var otherReplacements: [String] = []
        other.onCommand = { if let text = $0.arguments["text"]?.stringValue { otherReplacements.append(text) } }

        let presenter = try MenuBusClient(address: try bus.address)
        let itemId = "menubus:provider:org.example.SlowUpper"
        try presenter.activate(try presenter.present(owner: "org.example.LaterProvider", contextId: "field", kind: .edit),
                               itemId: itemId)
        XCTAssertTrue(pump([app, provider, other], until: { log.events.count == 1 }, timeout: 5))
        try presenter.activate(try presenter.present(owner: "org.example.LaterProvider2", contextId: "field", kind: .edit),
                               itemId: itemId)
        XCTAssertTrue(pump([app, provider, other], until: { replacements == ["HELLO"] && otherReplacements == ["WORLD"] },
                           timeout: 10), "\(replacements) \(otherReplacements) \(log.events)")
        XCTAssertEqual(Array(log.events.prefix(2)), ["process org.example.LaterProvider started",
                                                     "process org.example.LaterProvider2 started"],
                       "the second Process began before the first was answered")
    }

    /// The user moves on while a provider works (the caret elsewhere, another
    /// word): its answer would replace what is selected now, so it is
    /// dropped; one whose selection stood still still goes in.
    func testAProviderAnswerIsDroppedWhenTheSelectionChangedMeanwhile() throws {
        let daemon = try startDaemon()
        let app = try textApp("org.example.MovedOn")
        var replacements: [String] = []
        app.onCommand = { if $0.name == "replace-selection", let text = $0.arguments["text"]?.stringValue { replacements.append(text) } }
        let provider = try MenuBusClient(address: try bus.address)
        var pending: [(String, ProviderReply)] = []
        try provider.registerProvider(ProviderInfo(id: "org.example.SlowUpper", title: "Slow Uppercase", returnsText: true)) {
            text, _, reply in pending.append((text, reply))
        }
        let presenter = try MenuBusClient(address: try bus.address)
        let itemId = "menubus:provider:org.example.SlowUpper"
        try presenter.activate(try presenter.present(owner: "org.example.MovedOn", contextId: "field", kind: .edit),
                               itemId: itemId)
        XCTAssertTrue(pump([app, provider], until: { pending.count == 1 }, timeout: 5))
        try app.updateSelection("field", Selection(kind: .caret, length: 0))
        pending[0].1.reply(pending[0].0.uppercased())
        XCTAssertTrue(pump([app, provider], until: { daemon.stderrText.contains("its answer is dropped") }, timeout: 5),
                      daemon.stderrText)
        XCTAssertFalse(daemon.stderrText.contains("hello"), "no selected text in the log")
        // The same with the selection standing still: the answer goes in.
        try app.updateSelection("field", Selection(kind: .range, length: 5, text: "hello"))
        try presenter.activate(try presenter.present(owner: "org.example.MovedOn", contextId: "field", kind: .edit),
                               itemId: itemId)
        XCTAssertTrue(pump([app, provider], until: { pending.count == 2 }, timeout: 5))
        pending[1].1.reply(pending[1].0.uppercased())
        XCTAssertTrue(pump([app, provider], until: { replacements == ["HELLO"] }, timeout: 5), "\(replacements)")
    }

    func testProviderReplyFromAnotherThreadAndItsFailureReachThePresenter() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.ReadOnly")
        try app.publishContext("page", ContextInfo(kind: .text, hasContent: true))
        try app.updateSelection("page", Selection(kind: .range, length: 4, text: "hola"))
        let provider = try MenuBusClient(address: try bus.address)
        try provider.registerProvider(ProviderInfo(id: "org.example.Later", title: "Later", returnsText: true)) {
            text, _, reply in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                if text == "hola" { reply.reply("hello") } else { reply.fail(BusError(name: "org.example.Error.Unknown", message: text)) }
            }
        }
        let presenter = try MenuBusClient(address: try bus.address)
        var results: [ProviderResult] = []
        try presenter.observeProviderResults { results.append($0) }
        try presenter.activate(try presenter.present(owner: "org.example.ReadOnly", contextId: "page", kind: .edit),
                               itemId: "menubus:provider:org.example.Later")
        XCTAssertTrue(pump([app, provider, presenter], until: { results.count == 1 }, timeout: 5))
        XCTAssertEqual(results.first?.text, "hello")
        try app.updateSelection("page", Selection(kind: .range, length: 3, text: "xyz"))
        try presenter.activate(try presenter.present(owner: "org.example.ReadOnly", contextId: "page", kind: .edit),
                               itemId: "menubus:provider:org.example.Later")
        XCTAssertTrue(pump([app, provider, presenter], until: { results.count == 2 }, timeout: 5))
        XCTAssertEqual(results.last?.text, "")
        XCTAssertTrue(results.last?.error?.contains("org.example.Error.Unknown") ?? false, results.last?.error ?? "no error")
    }
}

/// Events recorded from tasks and read by the test.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ event: String) { lock.lock(); list.append(event); lock.unlock() }
    var events: [String] { lock.lock(); defer { lock.unlock() }; return list }
}
