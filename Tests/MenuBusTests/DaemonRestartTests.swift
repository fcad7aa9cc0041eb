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

/// menubusd killed and started again while apps, a provider, a presenter
/// and a monitor are live: every client follows the new daemon.
final class DaemonRestartTests: BusTestCase {
    private let providerId = "org.menubus.Demo.Uppercase"

    private func contexts(_ probe: Connection) -> Set<String> {
        guard let reply = try? callDaemon(probe, "ListContexts"), case .array(_, let rows)? = reply.first else { return [] }
        return Set(rows.compactMap { row -> String? in
            guard case .structure(let fields) = row, fields.count == 3,
                  let app = fields[1].stringValue, let context = fields[2].stringValue else { return nil }
            return app + "/" + context
        })
    }

    private func providerOffered(_ probe: Connection) -> Bool {
        guard let reply = try? callDaemon(probe, "GetEditMenu", [.string("org.example.Restart"), .string("field"), .array("{sv}", [])]),
              reply.count == 2, case .array(_, let elements) = reply[1] else { return false }
        return elements.contains { element in
            if case .structure(let fields) = element, fields.first?.stringValue == "menubus:provider:\(providerId)" { return true }
            return false
        }
    }

    func testEveryClientComesBackWithinOneSecondOfARestart() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-restart-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: state) }
        let first = try startDaemon(["--state-dir", state])

        // An app in this process: a context and a selection, and a callback.
        let app = try client()
        var restarts = 0
        app.onDaemonRestart = { restarts += 1 }
        try app.register(appId: "org.example.Restart")
        try app.publishContext("field", ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true))
        try app.updateSelection("field", Selection(kind: .range, length: 5, text: "hello"))

        // The examples, the command line's app, provider, presenter and monitor.
        let swiftExample = try bus.start("menubus-example", [])
        var expected: Set<String> = ["org.example.Restart/field", "org.example.SwiftEditor/body", "org.example.Published/published"]
        _ = swiftExample
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
            _ = try startProgram("/usr/bin/python3", [Repository.root.appendingPathComponent("examples/python/editor.py").path])
            expected.insert("org.example.PyEditor/body")
        }
        let cEditor = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-c-restart-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cEditor) }
        let source = Repository.root.appendingPathComponent("examples/c/editor.c").path
        let gcc = try startProgram("/bin/sh", ["-c", "gcc -Wall -o '\(cEditor)' '\(source)' $(pkg-config --cflags --libs gio-2.0)"])
        XCTAssertEqual(try gcc.wait(timeout: 120).status, 0)
        _ = try startProgram(cEditor, [])
        expected.insert("org.example.CEditor/body")
        let publish = try bus.start("menubus-cli", ["publish", Repository.root.appendingPathComponent("Tests/MenuBusTests/Fixtures/clean-menu.json").path,
                                                    "--app", "org.example.Published", "--context", "published"])
        let provider = try bus.start("menubus-cli", ["provider"])
        let monitor = try bus.start("menubus-cli", ["monitor"])

        let probe = try connect()
        func pumpUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition() { return true }
                app.run(until: { false }, timeout: 0.005)
            }
            return condition()
        }
        XCTAssertTrue(pumpUntil(timeout: 20) { contexts(probe) == expected && providerOffered(probe) },
                      "before: \(contexts(probe)) of \(expected)")
        let present = try bus.start("menubus-cli", ["present", "org.example.Restart", "field", "--edit", "--follow"])
        XCTAssertTrue(pumpUntil(timeout: 10) { present.stdoutText.contains("Presented") && monitor.stderrText.contains("monitoring") },
                      present.stderrText)

        // Kill it (no chance to say goodbye) and start another.
        first.signal(SIGKILL)
        _ = try first.wait(timeout: 10)
        XCTAssertTrue(pumpUntil(timeout: 5) { !app.isDaemonRunning }, "the app heard the daemon go")
        XCTAssertTrue(pumpUntil(timeout: 10) { present.stdoutText.contains("Closed") }, "present reports the menu closed: \(present.stdoutText)")
        let second = try startDaemon(["--state-dir", state])
        let owned = Date()
        let back = pumpUntil(timeout: 10) { contexts(probe) == expected && providerOffered(probe) }
        let elapsed = Date().timeIntervalSince(owned)
        XCTAssertTrue(back, "after: \(contexts(probe)) of \(expected); provider offered: \(providerOffered(probe))")
        XCTAssertLessThan(elapsed, 1.0, "every context and the provider are back within 1 s of the name being owned")
        XCTAssertEqual(restarts, 1, "the app was told once")

        // The presenter presented again; the monitor hears the new daemon.
        XCTAssertTrue(pumpUntil(timeout: 10) { present.stdoutText.components(separatedBy: "Presented").count == 3 },
                      "present --follow presented again: \(present.stdoutText) \(present.stderrText)")
        XCTAssertTrue(present.isRunning)
        let heardBefore = monitor.stdoutText.components(separatedBy: "LayoutChanged").count
        try app.updateSelection("field", Selection(kind: .all, length: 5, text: "hello"))
        XCTAssertTrue(pumpUntil(timeout: 10) { monitor.stdoutText.components(separatedBy: "LayoutChanged").count > heardBefore },
                      "monitor follows the new owner: \(monitor.stdoutText) \(monitor.stderrText)")
        XCTAssertTrue(publish.stdoutText.contains("published published again"), publish.stdoutText)
        XCTAssertTrue(provider.stdoutText.contains("registered again"), provider.stdoutText)
        XCTAssertTrue(second.isRunning)
    }

    func testPresentWithoutFollowEndsWhenTheDaemonGoes() throws {
        let daemon = try startDaemon()
        let app = try self.app("org.example.Gone")
        try app.publishContext("c", ContextInfo(kind: .item), items: [MenuElement(id: "a", title: "A")])
        let present = try bus.start("menubus-cli", ["present", "org.example.Gone", "c"])
        XCTAssertTrue(eventually(timeout: 10) { present.stdoutText.contains("Presented") })
        daemon.signal(SIGKILL)
        let result = try present.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Closed"), "a dead menu is reported closed, not shown forever: \(result.stdout)")
    }

    func testCallbacksFromTheNewDaemonAreAccepted() throws {
        // The old client refused every callback from a daemon it had not
        // resolved first; now it follows the name's owner.
        let first = try startDaemon()
        let app = try self.app("org.example.Callbacks")
        var actions: [String] = []
        app.onAction = { actions.append($0.itemId) }
        try app.publishContext("c", ContextInfo(kind: .item), items: [MenuElement(id: "go", title: "Go")])
        first.signal(SIGKILL)
        _ = try first.wait(timeout: 10)
        _ = try startDaemon()
        let presenter = try client()
        XCTAssertTrue(app.run(until: { app.isDaemonRunning && ((try? presenter.contextMenu(owner: "org.example.Callbacks", contextId: "c")) != nil) }, timeout: 10))
        let menu = try presenter.present(owner: "org.example.Callbacks", contextId: "c", kind: .context)
        try presenter.activate(menu, itemId: "go")
        XCTAssertTrue(app.run(until: { actions == ["go"] }, timeout: 10), "the new daemon's ActionInvoked reached the app")
    }
}
