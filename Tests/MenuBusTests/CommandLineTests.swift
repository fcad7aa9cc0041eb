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

/// menubus-cli as a process against a private bus and the real menubusd.
final class CommandLineTests: BusTestCase {
    private let noColour = ["NO_COLOR": "1"]

    private func cli(_ arguments: [String], timeout: Double = 20) throws -> ProcessResult {
        try bus.run("menubus-cli", arguments, timeout: timeout, extraEnvironment: noColour)
    }

    private func fixture(_ name: String) -> String {
        Repository.root.appendingPathComponent("Tests/MenuBusTests/Fixtures/\(name)").path
    }

    private func golden(_ name: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("Tests/MenuBusTests/Golden/\(name)"), encoding: .utf8)
    }

    /// Starts a long-running subcommand and waits for `marker` on its stdout.
    private func background(_ arguments: [String], waitingFor marker: String) throws -> RunningProcess {
        let process = try bus.start("menubus-cli", arguments, extraEnvironment: noColour)
        addTeardownBlock {
            if process.isRunning { process.signal(SIGTERM); _ = try? process.wait(timeout: 5) }
        }
        guard eventually(timeout: 10, { process.stdoutText.contains(marker) || !process.isRunning }), process.isRunning else {
            throw TestFailure("menubus-cli \(arguments.joined(separator: " ")) did not print '\(marker)': \(process.stdoutText) \(process.stderrText)")
        }
        return process
    }

    // MARK: Usage

    func testHelpListsEveryCommandAndEachCommandHasItsOwnHelp() throws {
        let help = try cli(["--help"])
        XCTAssertEqual(help.status, 0)
        for command in ["status", "contexts", "menu", "present", "activate", "monitor", "lint", "publish", "provider", "integrate", "demo",
                        "completions"] {
            XCTAssertTrue(help.stdout.contains("  \(command) "), command)
            let own = try cli([command, "--help"])
            XCTAssertEqual(own.status, 0, command)
            XCTAssertTrue(own.stdout.hasPrefix("Usage: menubus-cli \(command)"), own.stdout)
        }
        XCTAssertTrue(help.stdout.contains("Exit status: 0 ok, 1 failure"))
    }

    /// `help COMMAND` opens with one synopsis, wrapped within 80 columns:
    /// each option once (the written usage line is not left behind the
    /// generated one), another form of the command on a line of its own.
    func testHelpSynopsisNamesEachOptionOnceWithinEightyColumns() throws {
        for command in ["status", "contexts", "menu", "present", "activate", "monitor", "lint", "publish", "undo-state", "provider",
                        "providers", "integrate", "demo", "completions"] {
            let help = try cli(["help", command])
            XCTAssertEqual(help.status, 0, command)
            let synopsis = help.stdout.components(separatedBy: "\n\n")[0].split(separator: "\n")
                .filter { !$0.contains("menubus-cli ") || $0.hasPrefix("Usage: ") }.joined(separator: "\n")
            XCTAssertTrue(synopsis.hasPrefix("Usage: menubus-cli \(command)"), synopsis)
            for line in synopsis.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(command): \(line)")
            }
            let options = synopsis.matches(of: /\[(--[a-z-]+)/).map { String($0.output.1) }
            XCTAssertEqual(options.count, Set(options).count, "\(command) repeats an option: \(synopsis)")
        }
    }

    /// The README's command table has a row for each command of --help, in its order.
    func testReadmeCommandTableFollowsTheHelp() throws {
        let help = try cli(["--help"]).stdout
        let commands = help.components(separatedBy: "Commands:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let table = readme.components(separatedBy: "| command | does |\n| --- | --- |\n")[1].components(separatedBy: "\n\n")[0]
        let rows = table.split(separator: "\n").compactMap { $0.dropFirst(3).split(separator: " ").first }
            .map { String($0.prefix { $0 != "`" }) }
        XCTAssertEqual(rows, commands, "README.md's command table is stale")
        XCTAssertGreaterThan(commands.count, 10)
    }

    func testUsageErrorsExitTwoAndNameTheWord() throws {
        let cases: [([String], String)] = [
            (["frobnicate"], "'frobnicate'"), (["--frob", "status"], "'--frob'"), (["status", "--verbose"], "'--verbose'"),
            (["menu"], "missing APP"), (["menu", "org.example.App"], "missing CONTEXT"), (["lint"], "missing FILE"),
            (["monitor", "--count", "zero"], "--count"), (["completions", "fish"], "'fish'"), ([], "Usage"),
        ]
        for (arguments, mention) in cases {
            let result = try cli(arguments)
            XCTAssertEqual(result.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains(mention), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "")
        }
    }

    func testConventions() throws {
        // help COMMAND, and an unknown one is a usage error.
        let help = try cli(["help", "menu"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("Usage: menubus-cli menu"), help.stdout)
        let nosuch = try cli(["help", "nosuch"])
        XCTAssertEqual(nosuch.status, 2)
        XCTAssertEqual(nosuch.stdout, "")
        XCTAssertTrue(nosuch.stderr.contains("no command 'nosuch'"), nosuch.stderr)
        // '--' ends options: what follows is an operand even when it looks like one.
        let operand = try cli(["lint", "--", "--json"])
        XCTAssertEqual(operand.status, 1)
        XCTAssertTrue(operand.stderr.contains("cannot read --json: No such file or directory"), operand.stderr)
        // A file that cannot be read says why, as cat(1) would.
        let folder = try cli(["lint", NSTemporaryDirectory()])
        XCTAssertEqual(folder.status, 1)
        XCTAssertTrue(folder.stderr.contains(": Is a directory"), folder.stderr)
        XCTAssertEqual(try cli(["lint", "--", fixture("clean-menu.json")]).status, 0)
        // Global options anywhere.
        XCTAssertEqual(try cli(["lint", fixture("clean-menu.json"), "--color=never"]).status, 0)
        let json = try cli(["lint", fixture("bad-menu.json"), "--json"])
        XCTAssertEqual(json.status, 3)
        XCTAssertTrue(json.stdout.hasPrefix("[{\"severity\""), json.stdout)
        // --color=always colours even a pipe; never and NO_COLOR do not; a bad value is usage.
        let always = try bus.run("menubus-cli", ["lint", fixture("bad-menu.json"), "--color=always"], extraEnvironment: [:])
        XCTAssertTrue(always.stdout.contains("\u{1B}["), always.stdout)
        let never = try bus.run("menubus-cli", ["--color=never", "lint", fixture("bad-menu.json")], extraEnvironment: [:])
        XCTAssertFalse(never.stdout.contains("\u{1B}["))
        XCTAssertEqual(try cli(["--color=sometimes", "status"]).status, 2)
        // Every schema error, and JSON syntax errors by line and column.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-schema-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try #"[{"id": "a", "state": "x", "bogus": 1}, {"title": "B"}]"#.write(to: file, atomically: true, encoding: .utf8)
        let schema = try cli(["lint", file.path])
        XCTAssertEqual(schema.status, 1)
        for field in ["items[0].bogus: unknown key", "items[0].state: 'x' is not", "items[1].id: required"] {
            XCTAssertTrue(schema.stderr.contains(field), schema.stderr)
        }
        try "[{\"id\": \"a\",\n  \"title\": }]".write(to: file, atomically: true, encoding: .utf8)
        let syntax = try cli(["lint", file.path])
        XCTAssertEqual(syntax.status, 1)
        XCTAssertTrue(syntax.stderr.contains("line 2, column 12: expected a value"), syntax.stderr)
    }

    /// On a real terminal (script(1) gives one), colour 'auto' is on, but
    /// not with TERM=dumb or NO_COLOR.
    func testColourAutoOnATerminalHonoursTermDumbAndNoColor() throws {
        func onTerminal(_ environment: [String: String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qc", "'\(Binaries.url("menubus-cli").path)' lint '\(fixture("bad-menu.json"))'", "/dev/null"]
            var env = ProcessInfo.processInfo.environment
            env["NO_COLOR"] = nil
            process.environment = env.merging(environment) { $1 }
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        XCTAssertTrue(try onTerminal(["TERM": "xterm"]).contains("\u{1B}[33mwarning"))
        XCTAssertFalse(try onTerminal(["TERM": "dumb"]).contains("\u{1B}["))
        XCTAssertFalse(try onTerminal(["TERM": "xterm", "NO_COLOR": "1"]).contains("\u{1B}["))
    }

    func testGlobalOptionsAfterTheCommandAndNoDoubledQuotes() throws {
        _ = try startDaemon()
        let address = try bus.address
        let status = try bus.run("menubus-cli", ["status", "--address", address],
                                 extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "NO_COLOR": "1"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let undo = try cli(["undo-state", "org.example.Editor", "doc1"])
        XCTAssertEqual(undo.status, 1)
        XCTAssertTrue(undo.stderr.contains("'doc1'"), undo.stderr)
        XCTAssertFalse(undo.stderr.contains("''"), undo.stderr)
    }

    func testProviderAndDemoRunSideBySide() throws {
        _ = try startDaemon()
        _ = try background(["provider", "--for", "30"], waitingFor: "registered")
        let demo = try cli(["demo"], timeout: 30)
        XCTAssertEqual(demo.status, 0, demo.stderr)
        XCTAssertFalse(demo.stderr.contains("AccessDenied"), demo.stderr)
    }

    func testNoDaemonIsReportedQuicklyWithHowToStartIt() throws {
        let started = Date()
        let result = try cli(["status"], timeout: 10)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("menubusd is not running on this bus"), result.stderr)
        XCTAssertTrue(result.stderr.contains("start it with"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 9, "never a hang")
    }

    /// --version, status and undo-state only look: on a bus that would
    /// start menubusd by D-Bus activation (here a service file whose Exec
    /// leaves a mark), they say it is not running instead of starting it.
    func testLookingNeverStartsTheDaemonByActivation() throws {
        let services = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-activation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: services) }
        let mark = services.appendingPathComponent("started")
        try "[D-BUS Service]\nName=\(MenuBusNames.busName)\nExec=/usr/bin/touch \(mark.path)\n"
            .write(to: services.appendingPathComponent("\(MenuBusNames.busName).service"), atomically: true, encoding: .utf8)
        let activating = try PrivateBus(configExtra: "<servicedir>\(services.path)</servicedir>")
        defer { activating.stop() }
        let version = try activating.run("menubus-cli", ["--version"], extraEnvironment: noColour)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, "menubus-cli \(MenuBusNames.softwareVersion)\nmenubusd: not running on this bus\n")
        for arguments in [["status"], ["status", "--json"], ["undo-state", "org.example.Editor", "doc1"]] {
            let result = try activating.run("menubus-cli", arguments, extraEnvironment: noColour)
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("menubusd is not running on this bus"), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark.path), "looking started menubusd by activation")
        // The bus does activate: a command that needs the daemon starts it.
        _ = try activating.run("menubus-cli", ["contexts"], extraEnvironment: noColour)
        XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: mark.path) }, "the service file was not used")
    }

    func testNoBusAtAllIsReported() throws {
        let result = try cli(["--address", "unix:path=/nonexistent/bus", "status"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("cannot connect to the bus"), result.stderr)
    }

    // MARK: Against the daemon

    func testStatusPrintsVersionAndCounters() throws {
        let daemon = try startDaemon()
        let text = try cli(["status"])
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.stdout.hasPrefix("menubusd \(MenuBusNames.softwareVersion), API version 1, pid \(daemon.pid), up "),
                      text.stdout)
        XCTAssertNotNil(text.stdout.range(of: #"memory +[0-9]+\.[0-9] MiB resident"#, options: .regularExpression), text.stdout)
        XCTAssertFalse(text.stdout.contains("rss-bytes"), "human units, not raw bytes")
        XCTAssertTrue(text.stdout.contains("\n  held          0 B\n"), text.stdout)
        let version = try cli(["--version"])
        XCTAssertEqual(version.stdout, "menubus-cli \(MenuBusNames.softwareVersion)\nmenubusd \(MenuBusNames.softwareVersion) (API version 1)\n")
        let json = try cli(["--json", "status"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["api-version"] as? Int, 1)
        let stats = object?["stats"] as? [String: Any]
        XCTAssertEqual(stats?["apps"] as? Int, 0)
        XCTAssertGreaterThan(stats?["rss-bytes"] as? Int ?? 0, 0)
    }

    /// undo-state --json prints every key GetUndoState answers, an open
    /// group's and the step names too, under the daemon's names.
    func testUndoStateJSONCarriesEveryKeyTheDaemonSends() throws {
        _ = try startDaemon()
        let editor = try app("org.example.Editor")
        try editor.registerUndo(document: "doc-json", actionName: "Typing", undo: [1], redo: [2])
        try editor.beginUndoGroup(document: "doc-json", actionName: "Paste")
        let result = try cli(["undo-state", "org.example.Editor", "doc-json", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        for key in ["can-undo", "can-redo", "undo-title", "redo-title", "undo-count", "redo-count", "clean", "dropped",
                    "group-depth", "group-name", "undo-name", "redo-name"] {
            XCTAssertNotNil(object?[key], "\(key) missing: \(result.stdout)")
        }
        XCTAssertEqual(object?["undo-count"] as? Int, 1)
        XCTAssertEqual(object?["group-depth"] as? Int, 1)
        XCTAssertEqual(object?["group-name"] as? String, "Paste")
    }

    func testPublishedFileShowsInContextsAndMenuMatchesTheGoldenFile() throws {
        _ = try startDaemon()
        _ = try background(["publish", fixture("photo-menu.json")], waitingFor: "published")
        let contexts = try cli(["contexts"])
        XCTAssertTrue(contexts.stdout.contains("org.example.Photos"), contexts.stdout)
        XCTAssertTrue(contexts.stdout.contains("photo-42"))
        let contextsJSON = try JSONSerialization.jsonObject(with: Data(try cli(["contexts", "--json"]).stdout.utf8)) as? [[String: Any]]
        // "context-id", as menu --json and publish files name it.
        XCTAssertEqual(contextsJSON?.first?["context-id"] as? String, "photo-42")
        XCTAssertEqual(contextsJSON?.first.map { Set($0.keys) }, ["app", "context-id", "owner"])
        let menu = try cli(["menu", "org.example.Photos", "photo-42"])
        XCTAssertEqual(menu.status, 0, menu.stderr)
        XCTAssertEqual(menu.stdout, try golden("photo-menu.txt"))
    }

    func testJSONMenusRoundTripThroughPublishAndMenu() throws {
        _ = try startDaemon()
        let file = fixture("clean-menu.json")
        _ = try background(["publish", file, "--app", "org.example.Files", "--context", "row"], waitingFor: "published")
        let result = try cli(["menu", "org.example.Files", "row", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let original = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [[String: Any]])
        let items = try XCTUnwrap(printed["items"] as? [[String: Any]])
        // An item context has nothing to copy: the composed menu is the app's items, in their order.
        XCTAssertEqual(items as NSArray, original as NSArray)
        XCTAssertEqual(printed["kind"] as? String, "context")
    }

    /// `lint` of what `menu --json` printed judges the composed menu as
    /// composed: MenuBus's own `menubus:` ids (Copy on a photo) are no
    /// fault there, while an app's items may not use them; `Lint` over D-Bus
    /// takes `composed-context` the same way.
    func testLintJudgesAServedMenuAsComposed() throws {
        _ = try startDaemon()
        _ = try background(["publish", fixture("photo-menu.json")], waitingFor: "published")
        let served = try cli(["menu", "org.example.Photos", "photo-42", "--json"])
        XCTAssertEqual(served.status, 0, served.stderr)
        XCTAssertTrue(served.stdout.contains("menubus:copy"), served.stdout)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-served-\(UUID().uuidString).json")
        try served.stdout.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let linted = try cli(["lint", file.path, "--json"])
        let findings = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(linted.stdout.utf8)) as? [[String: Any]], linted.stdout)
        XCTAssertFalse(findings.contains { $0["severity"] as? String == "error" }, "\(findings)")

        let client = try client()
        let menu = try client.contextMenu(owner: "org.example.Photos", contextId: "photo-42")
        let connection = try connect()
        func errors(_ kind: String) throws -> Int {
            let reply = try callDaemon(connection, "Lint", [.string(kind), Wire.encode(menu.elements)])
            guard case .array(_, let rows) = reply.first else { return -1 }
            return rows.filter { row in
                if case .structure(let fields) = row, fields.first == .string("error") { return true }
                return false
            }.count
        }
        XCTAssertEqual(try errors("composed-context"), 0)
        XCTAssertGreaterThan(try errors("context"), 0, "as an app's items, menubus: ids are reserved")
    }

    /// `menu --json` → `publish` → `menu --json`: the same bytes, with the
    /// context, the selection and the deferred elements.
    func testMenuJSONRoundTripsByteForByte() throws {
        let daemon = try startDaemon()
        let file = fixture("round-trip-menu.json")
        let fill = "linked=" + fixture("linked-fill.json")
        let first = try background(["publish", file, "--fill", fill], waitingFor: "published")
        let printed = try cli(["menu", "org.example.Notes", "note-7", "--json"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        let items = try XCTUnwrap(object["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["id"] as? String }, ["tools", "recent-notes", "linked", "discard"])
        XCTAssertEqual(items[1]["type"] as? String, "deferred")
        XCTAssertEqual((object["selection"] as? [String: Any])?["text"] as? String, "milk\n")
        XCTAssertEqual((object["context"] as? [String: Any])?["title"] as? String, "Shopping \"list\"")
        // The deferred elements are answered: what publish was given shows in a presented menu.
        let presenter = try MenuBusClient(address: try bus.address)
        let menu = try presenter.present(owner: "org.example.Notes", contextId: "note-7", kind: .context)
        XCTAssertTrue(eventually(timeout: 10) {
            let layout = try? presenter.layout(of: menu)
            return layout?.element("note-2") != nil && layout?.element("link-b") != nil
        }, "\(String(describing: try? presenter.layout(of: menu).elements.map(\.id)))")
        try presenter.dismiss(menu)
        first.signal(SIGTERM)
        _ = try first.wait(timeout: 10)

        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-round-\(UUID().uuidString).json")
        try printed.stdout.write(to: saved, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: saved) }
        let lint = try cli(["lint", saved.path])
        XCTAssertEqual(lint.status, 3, "menu --json carries no content for deferred elements: \(lint.stdout)")
        XCTAssertTrue(lint.stdout.contains("warning recent-notes:"), lint.stdout)
        XCTAssertEqual(try cli(["lint", saved.path, "--fill", "recent-notes=" + fixture("linked-fill.json"), "--fill", fill]).status, 0)
        _ = try background(["publish", saved.path, "--fill", fill], waitingFor: "published")
        let again = try cli(["menu", "org.example.Notes", "note-7", "--json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        // Byte for byte but the revision: revisions come from one daemon-wide
        // counter and only grow, so a republished context has a newer one.
        func withoutRevision(_ text: String) -> String {
            text.replacing(/"revision": [0-9]+,/, with: "\"revision\": N,")
        }
        XCTAssertTrue(again.stdout.contains("\"revision\": "), again.stdout)
        XCTAssertEqual(withoutRevision(again.stdout), withoutRevision(printed.stdout))
        let edit = try cli(["menu", "org.example.Notes", "note-7", "--json", "--edit"])
        XCTAssertTrue(edit.stdout.contains("\"kind\": \"edit\""), edit.stdout)
        XCTAssertTrue(edit.stdout.contains("menubus:copy"), "a range selection brings Copy: \(edit.stdout)")
        XCTAssertFalse(daemon.stderrText.contains("NoSuchItem"), daemon.stderrText)
    }

    func testPublishRefusesAFillForNoDeferredElement() throws {
        _ = try startDaemon()
        let result = try cli(["publish", fixture("round-trip-menu.json"), "--fill", "tools=" + fixture("linked-fill.json")])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("no deferred element 'tools'"), result.stderr)
    }

    func testLintReadsStandardInput() throws {
        let child = Process()
        child.executableURL = Binaries.url("menubus-cli")
        child.arguments = ["lint", "-"]
        child.environment = ProcessInfo.processInfo.environment.merging(noColour) { $1 }
        child.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: fixture("bad-menu.json")))
        let out = Pipe()
        child.standardOutput = out
        try child.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 3)
        XCTAssertEqual(text, try golden("bad-menu-lint.txt"))
    }

    func testLintCleanAndBadFiles() throws {
        let clean = try cli(["lint", fixture("clean-menu.json")])
        XCTAssertEqual(clean.status, 0)
        XCTAssertTrue(clean.stdout.hasSuffix(": clean\n"))
        let bad = try cli(["lint", fixture("bad-menu.json")])
        XCTAssertEqual(bad.status, 3, "findings")
        XCTAssertEqual(bad.stdout, try golden("bad-menu-lint.txt"))
        let json = try cli(["lint", "--json", fixture("bad-menu.json")])
        let findings = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(findings?.count, bad.stdout.split(separator: "\n").count)
        let missing = try cli(["lint", "/nonexistent/menu.json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("cannot read"))
    }

    func testLintNamesTheFieldOfAMalformedFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-bad-\(UUID().uuidString).json")
        try #"[{"id": "a", "title": "A", "children": [{"id": "b", "state": "sideways", "title": "B"}]}]"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try cli(["lint", file.path])
        XCTAssertEqual(result.status, 1, "an unreadable menu is a failure, not a finding")
        XCTAssertTrue(result.stderr.contains("items[0].children[0].state"), result.stderr)
    }

    func testPresentPrintsTheMenuAndItsChangesAndActivateChoosesFromIt() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Editor")
        try app.publishContext("field", ContextInfo(kind: .text, editable: true, hasContent: true))
        try app.updateSelection("field", Selection(kind: .caret))
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let present = try background(["present", "org.example.Editor", "field", "--edit", "--changes", "1"], waitingFor: "Presented")
        XCTAssertFalse(present.stdoutText.contains("[menubus:copy]"))
        try app.updateSelection("field", Selection(kind: .range, length: 3))
        let result = try present.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("LayoutChanged /org/menubus/MenuBus1/menu/"), result.stdout)
        XCTAssertTrue(result.stdout.contains("[menubus:copy]"))
        // The command line presents the menu it chooses from.
        let activate = try cli(["activate", "org.example.Editor", "field", "menubus:copy", "--edit"])
        XCTAssertEqual(activate.status, 0, activate.stderr)
        XCTAssertTrue(app.run(until: { !commands.isEmpty }, timeout: 5))
        XCTAssertEqual(commands.first?.command, .copy)
        let missing = try cli(["activate", "org.example.Editor", "field", "menubus:no-such-item", "--edit"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no-such-item"), missing.stderr)
    }

    func testMonitorSeesCallsRepliesAndUnicastSignalsInGVariantNotation() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Editor")
        try app.publishContext("field", ContextInfo(kind: .text, editable: true, hasContent: true, document: "notes"))
        let monitor = try bus.start("menubus-cli", ["monitor"], extraEnvironment: noColour)
        addTeardownBlock { if monitor.isRunning { monitor.signal(SIGTERM); _ = try? monitor.wait(timeout: 5) } }
        XCTAssertTrue(eventually { monitor.stderrText.contains("monitoring menubusd (BecomeMonitor)") }, monitor.stderrText)
        let menu = try app.present(contextId: "field", kind: .edit)
        try app.dismiss(menu)
        // UndoStateChanged goes to the app alone: only a monitor sees it.
        try app.registerUndo(document: "notes", actionName: "Typing", undo: [1], redo: [2])
        XCTAssertTrue(eventually(timeout: 10) {
            let text = monitor.stdoutText
            return text.contains("Closed signal \(menu.path.rawValue)") && text.contains("UndoStateChanged signal")
                && text.contains("PresentMenu call /org/menubus/MenuBus1") && text.contains("return to #")
        }, monitor.stdoutText)
        // Arguments in GVariant text notation, as gdbus monitor prints them.
        for form in ["('org.example.Editor', 'notes', {'can-undo': <true>, ", "'undo-count': <uint32 1>",
                     "(objectpath '\(menu.path.rawValue)',)", "('notes', 'Typing', [byte 0x01], [byte 0x02], @a{sv} {})"] {
            XCTAssertTrue(monitor.stdoutText.contains(form), "\(form) in \(monitor.stdoutText)")
        }
    }

    /// monitor --json through a JSON Lines parser while the demo runs: one
    /// shape, and every signal menubusd sends, as dbus-monitor sees them.
    func testMonitorJSONLinesCarryEverySignalOfTheDemo() throws {
        _ = try startDaemon()
        let address = try bus.address
        let monitor = try bus.start("menubus-cli", ["monitor", "--json"], extraEnvironment: noColour)
        addTeardownBlock { if monitor.isRunning { monitor.signal(SIGTERM); _ = try? monitor.wait(timeout: 5) } }
        let reference = Process()
        reference.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        reference.arguments = ["--address", address, "--monitor", "type='signal',sender='org.menubus.MenuBus1'"]
        let referenceOut = Pipe()
        reference.standardOutput = referenceOut
        reference.standardError = FileHandle.nullDevice
        let collected = RunningProcess(process: reference, stdout: referenceOut, stderr: Pipe())
        try reference.run()
        addTeardownBlock { if reference.isRunning { reference.terminate(); reference.waitUntilExit() } }
        XCTAssertTrue(eventually { monitor.stderrText.contains("monitoring") && collected.stdoutText.contains("NameLost") })
        let demo = try cli(["demo"], timeout: 30)
        XCTAssertEqual(demo.status, 0, demo.stderr)

        // dbus-monitor's signals from menubusd: "signal time=… path=P; interface=I; member=M".
        func referenceSignals() -> [String] {
            collected.stdoutText.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("signal "), let path = line.range(of: #"path=[^;]*"#, options: .regularExpression),
                      let interface = line.range(of: #"interface=[^;]*"#, options: .regularExpression),
                      let member = line.range(of: #"member=\S*"#, options: .regularExpression) else { return nil }
                return "\(line[path].dropFirst(5)) \(line[interface].dropFirst(10)).\(line[member].dropFirst(7))"
            }.filter { !$0.hasPrefix("/org/freedesktop/DBus ") }
        }
        func monitoredLines() throws -> [[String: Any]] {
            let text = monitor.stdoutText
            let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
            return try complete.split(separator: "\n").map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                return try XCTUnwrap(object as? [String: Any], "one object a line: \(line)")
            }
        }
        func monitoredSignals() throws -> [String] {
            try monitoredLines().filter { $0["kind"] as? String == "signal" }.map {
                "\($0["path"] as? String ?? "") \($0["interface"] as? String ?? "").\($0["member"] as? String ?? "")"
            }
        }
        XCTAssertTrue(try eventually(timeout: 10) { try !referenceSignals().isEmpty && monitoredSignals().count >= referenceSignals().count })
        let expected = referenceSignals()
        XCTAssertTrue(expected.contains { $0.hasSuffix(".LayoutChanged") } && expected.contains { $0.hasSuffix(".Closed") },
                      collected.stdoutText)
        XCTAssertEqual(try monitoredSignals(), expected)
        let lines = try monitoredLines()
        for line in lines {
            XCTAssertEqual(Set(line.keys), ["time", "kind", "serial", "reply-serial", "sender", "destination", "path", "interface",
                                            "member", "arguments"])
            XCTAssertTrue(["method_call", "method_return", "error", "signal"].contains(line["kind"] as? String ?? ""))
            XCTAssertNotNil(line["arguments"] as? [Any])
            XCTAssertNotNil(line["time"] as? Double)
        }
        // Arguments are decoded, not debug strings: a LayoutChanged carries (revision, items) as JSON.
        let layout = try XCTUnwrap(lines.first { $0["member"] as? String == "LayoutChanged" && $0["kind"] as? String == "signal" })
        let arguments = try XCTUnwrap(layout["arguments"] as? [Any])
        XCTAssertNotNil(arguments.first as? Int)
        let items = try XCTUnwrap(arguments.last as? [[Any]])
        XCTAssertTrue(items.contains { $0.first as? String == "menubus:copy" }, "\(items)")
        XCTAssertTrue(lines.contains { $0["member"] as? String == "PerformCommand" }, "menubusd's calls to the app too")
    }

    /// present --json is JSON Lines, and never reports a LayoutChanged that
    /// repeats the layout it presented (deferred content arriving as the
    /// menu opens made that race likely).
    /// Ctrl-C ends present with 130, the shell's status for SIGINT, with
    /// --follow and without, after taking its menu away.
    func testPresentEndsWith130OnCtrlCWithAndWithoutFollow() throws {
        _ = try startDaemon()
        _ = try background(["publish", fixture("photo-menu.json")], waitingFor: "published")
        for follow in [[], ["--follow"]] {
            let present = try background(["present", "org.example.Photos", "photo-42"] + follow, waitingFor: "Presented")
            present.signal(SIGINT)
            let result = try present.wait(timeout: 10)
            XCTAssertEqual(result.status, 130, "present \(follow): \(result.stderr)")
            XCTAssertEqual(result.stderr, "")
        }
    }

    func testPresentJSONReportsOnlyRealChanges() throws {
        _ = try startDaemon()
        _ = try background(["publish", fixture("round-trip-menu.json"), "--fill", "linked=" + fixture("linked-fill.json")],
                           waitingFor: "published")
        for _ in 0..<5 {
            let present = try bus.start("menubus-cli", ["present", "org.example.Notes", "note-7", "--json", "--changes", "1"],
                                        extraEnvironment: noColour)
            // Either the menu fills in (one real change, and present exits) or it was full at once.
            XCTAssertTrue(eventually(timeout: 10) { !present.isRunning || present.stdoutText.contains("\"note-2\"") })
            _ = eventually(timeout: 2) { !present.isRunning }
            if present.isRunning { present.signal(SIGTERM) }
            let result = try present.wait(timeout: 5)
            let lines = try result.stdout.split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
            }
            XCTAssertEqual(lines.first?["event"] as? String, "Presented", result.stdout)
            let shown = lines.first?["items"] as? NSArray
            for change in lines.dropFirst() where change["event"] as? String == "LayoutChanged" {
                XCTAssertNotEqual(change["items"] as? NSArray, shown, "a LayoutChanged identical to the presented layout")
            }
        }
    }

    func testProviderCommandOffersMakeUppercase() throws {
        _ = try startDaemon()
        _ = try background(["provider", "--for", "30"], waitingFor: "registered")
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Editor")
        try app.publishContext("field", ContextInfo(kind: .text, editable: true, hasContent: true))
        try app.updateSelection("field", Selection(kind: .range, length: 2, text: "ok"))
        let item = try app.editMenu(contextId: "field").element("menubus:provider:org.menubus.Demo.Uppercase")
        XCTAssertEqual(item?.title, "Make Uppercase")
    }

    func testDemoRunsTheWholeFlow() throws {
        _ = try startDaemon()
        let result = try cli(["demo"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("PerformCommand replace-selection with \"HELLO FROM MENUBUS\""), result.stdout)
        XCTAssertTrue(result.stdout.contains("the app got PerformCommand copy"))
    }

    func testCompletionScriptsAreValid() throws {
        let bash = try cli(["completions", "bash"])
        XCTAssertEqual(bash.status, 0)
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-completion-\(UUID().uuidString).bash")
        try bash.stdout.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-c", "source '\(script.path)' && complete -p menubus-cli"]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0)
        XCTAssertTrue(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("_menubus_cli"))
        let zsh = try cli(["completions", "zsh"])
        XCTAssertTrue(zsh.stdout.hasPrefix("#compdef menubus-cli"))
    }
}
