import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusProtocol
@testable import MenuBusModel

/// Every command's `--json` against docs/cli-json.schema.json: each command
/// runs against the real menubusd on a private bus, and what it printed is
/// validated by scripts/check-cli-json (python3-jsonschema), each line of
/// the JSON Lines commands on its own.
final class CLIJSONSchemaTests: BusTestCase {
    private var config: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        // providers.conf and environment.d snippets go to a folder of this test.
        config = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-cli-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: config)
        try super.tearDownWithError()
    }

    private var environment: [String: String] { ["NO_COLOR": "1", "XDG_CONFIG_HOME": config.path] }

    private func cli(_ arguments: [String]) throws -> ProcessResult {
        try bus.run("menubus-cli", arguments, extraEnvironment: environment)
    }

    private func background(_ arguments: [String], until marker: String) throws -> RunningProcess {
        let process = try bus.start("menubus-cli", arguments, extraEnvironment: environment)
        addTeardownBlock { if process.isRunning { process.signal(SIGTERM); _ = try? process.wait(timeout: 5) } }
        XCTAssertTrue(eventually(timeout: 10) { process.stdoutText.contains(marker) || !process.isRunning },
                      "\(arguments): \(process.stdoutText) \(process.stderrText)")
        return process
    }

    private func fixture(_ name: String) -> String {
        Repository.root.appendingPathComponent("Tests/MenuBusTests/Fixtures/\(name)").path
    }

    /// Validates `output` as the schema's definition `definition`.
    private func assertValid(_ definition: String, _ output: String, file: StaticString = #filePath,
                             line: UInt = #line) throws {
        let result = try check(definition, output)
        XCTAssertEqual(result.status, 0, "\(definition): \(result.stderr)\n\(output)", file: file, line: line)
    }

    private func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func testEveryCommandsJSONFollowsTheSchema() throws {
        _ = try startDaemon()
        let monitor = try bus.start("menubus-cli", ["monitor", "--json"], extraEnvironment: environment)
        addTeardownBlock { if monitor.isRunning { monitor.signal(SIGTERM); _ = try? monitor.wait(timeout: 5) } }
        XCTAssertTrue(eventually(timeout: 10) { monitor.stderrText.contains("monitoring") }, monitor.stderrText)

        let publish = try background(["publish", fixture("round-trip-menu.json"), "--fill", "linked=" + fixture("linked-fill.json"),
                                      "--json"], until: "\"Published\"")
        // A context with a preview, and a button with its primary action: the keys menu and present add for them.
        let photo = config.appendingPathComponent("photo.json"), button = config.appendingPathComponent("button.json")
        try #"{"app": "org.example.Photos", "context-id": "photo", "context": {"kind": "image", "has-content": true, "preview": {"title": "Beach", "subtitle": "2 MB", "icon": "image-x-generic"}}, "items": [{"id": "rotate", "title": "Rotate"}]}"#
            .write(to: photo, atomically: true, encoding: .utf8)
        try #"{"app": "org.example.Browser", "context-id": "back", "context": {"kind": "button", "primary-action": "back"}, "items": [{"id": "back", "title": "Back"}, {"id": "home", "title": "Home"}]}"#
            .write(to: button, atomically: true, encoding: .utf8)
        _ = try background(["publish", photo.path, "--json"], until: "\"Published\"")
        _ = try background(["publish", button.path, "--json"], until: "\"Published\"")
        let provider = try background(["provider", "--for", "60"], until: "registered")
        let editor = try app("org.example.Editor")
        try editor.registerUndo(document: "doc", actionName: "Typing", undo: [1], redo: [2])

        let shown = try editor.present(owner: "org.example.Photos", contextId: "photo", kind: .context)
        let shownJSON = try cli(["menu", shown.path.rawValue, "--json"])
        XCTAssertEqual(shownJSON.status, 0, shownJSON.stderr)
        try assertValid("menu-presented", shownJSON.stdout)
        try editor.dismiss(shown)

        let status = try cli(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        try assertValid("status", status.stdout)
        for (definition, arguments) in [("contexts", ["contexts"]),
                                        ("menu", ["menu", "org.example.Notes", "note-7"]),
                                        ("menu", ["menu", "org.example.Notes", "note-7", "--edit"]),
                                        ("menu", ["menu", "org.example.Photos", "photo"]),
                                        ("menu", ["menu", "org.example.Browser", "back"]),
                                        ("present", ["present", "org.example.Photos", "photo", "--changes", "0"]),
                                        ("present", ["present", "org.example.Photos", "photo", "--compact", "--changes", "0"]),
                                        ("undo-state", ["undo-state", "org.example.Editor", "doc"]),
                                        ("providers", ["providers"]),
                                        ("providers-check", ["providers", "--check"]),
                                        ("activate", ["activate", "org.example.Notes", "note-7", "pin"]),
                                        ("activate", ["activate", "org.example.Notes", "note-7", "menubus:copy", "--edit"]),
                                        ("providers-change", ["providers", "--disable", "org.menubus.Demo.Uppercase"]),
                                        ("providers-change", ["providers", "--enable", "org.menubus.Demo.Uppercase"]),
                                        ("integrate", ["integrate", "--status"]),
                                        ("integrate", ["integrate", "gtk", "--enable"]),
                                        ("integrate", ["integrate", "--disable"]),
                                        ("lint", ["lint", fixture("clean-menu.json")])] {
            let result = try cli(arguments + ["--json"])
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            try assertValid(definition, result.stdout)
        }
        let findings = try cli(["lint", fixture("bad-menu.json"), "--json"])
        XCTAssertEqual(findings.status, 3, findings.stderr)
        try assertValid("lint", findings.stdout)

        // present: Presented, then Closed when the app leaves with its context.
        let present = try background(["present", "org.example.Notes", "note-7", "--json"], until: "\"Presented\"")
        XCTAssertTrue(eventually(timeout: 10) { publish.stdoutText.contains("\"PerformCommand\"") }, publish.stdoutText)
        publish.signal(SIGTERM)
        let presented = try present.wait(timeout: 10)
        XCTAssertEqual(try lines(presented.stdout).map { $0["event"] as? String }.first, "Presented")
        XCTAssertEqual(try lines(presented.stdout).last?["event"] as? String, "Closed", presented.stdout)
        try assertValid("present", presented.stdout)
        let published = try publish.wait(timeout: 10)
        XCTAssertEqual(try lines(published.stdout).compactMap { $0["event"] as? String },
                       ["Published", "ActionInvoked", "PerformCommand"], published.stdout)
        try assertValid("publish", published.stdout)

        provider.signal(SIGTERM)
        let monitored = monitor.stdoutText
        monitor.signal(SIGTERM)
        let complete = String(monitored[..<(monitored.lastIndex(of: "\n") ?? monitored.startIndex)])
        try assertValid("monitor", complete)
        // Serials pair each answer with its call: a return's reply-serial is
        // the serial of a call its receiver sent.
        let messages = try lines(complete)
        let calls = Set(messages.filter { $0["kind"] as? String == "method_call" }.compactMap { message -> String? in
            guard let sender = message["sender"] as? String, let serial = message["serial"] as? Int else { return nil }
            return "\(sender) \(serial)"
        })
        let returns = messages.filter { $0["kind"] as? String == "method_return" && $0["sender"] as? String != "org.freedesktop.DBus" }
        XCTAssertFalse(returns.isEmpty, complete)
        for answer in returns {
            let key = "\(answer["destination"] as? String ?? "") \(answer["reply-serial"] as? Int ?? -1)"
            XCTAssertTrue(calls.contains(key), "no call for the return \(answer)")
        }
    }

    /// The checker refuses what the schema does not allow: an unknown key,
    /// a missing one, a line of a stream that is not an event.
    func testTheCheckerRefusesOutputOutsideTheSchema() throws {
        let stats = #"{"version": "1", "pid": 1, "uptime-seconds": 1, "apps": 0, "contexts": 0, "documents": 0, "presentations": 0, "providers": 0, "held-bytes": 0, "undo-memory-bytes": 0, "undo-disk-bytes": 0, "rss-bytes": 1}"#
        XCTAssertEqual(try check("status", #"{"api-version": 1, "stats": \#(stats)}"#).status, 0)
        let unknown = try check("status", #"{"api-version": 1, "stats": \#(stats), "extra": true}"#)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("extra"), unknown.stderr)
        let missing = try check("contexts", #"[{"app": "org.example.A", "context": "x", "owner": ":1.2"}]"#)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("context-id"), missing.stderr)
        let stream = try check("present", "{\"event\": \"Closed\", \"path\": \"/org/menubus/MenuBus1/menu/1\"}\n{\"closed\": \"/x\"}\n")
        XCTAssertEqual(stream.status, 1)
        XCTAssertTrue(stream.stderr.contains("present line 2"), stream.stderr)
        XCTAssertEqual(try check("no-such-command", "{}").status, 2)
    }

    private func check(_ definition: String, _ output: String) throws -> ProcessResult {
        let path = config.appendingPathComponent("check-\(UUID().uuidString).json")
        try output.write(to: path, atomically: true, encoding: .utf8)
        return try runTool("/usr/bin/python3", ["scripts/check-cli-json", definition, path.path], timeout: 60)
    }
}
