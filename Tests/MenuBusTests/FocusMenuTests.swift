import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel

/// The menu at the caret from anywhere: apps say which field has the
/// keyboard focus (the selection key `focused`), and `ShowMenuForFocus`
/// (`menubus-cli show-menu`) asks the one that said so last to show its
/// menu (`Client.ShowEditMenu`). Real menubusd, real menubus-cli, apps
/// through the client library.
final class FocusMenuTests: BusTestCase {
    private let field = ContextInfo(kind: .text, editable: true, hasContent: true)

    /// A text field's selection, with the focus or without.
    private func selection(focused: Bool, text: String = "hello") -> Selection {
        var selection = Selection(kind: .range, length: UInt32(text.count), text: text)
        selection.focused = focused
        return selection
    }

    /// `appId` with the context `contextId`, its focus as given, recording
    /// each `ShowEditMenu` it gets (context id and platform data).
    private func editor(_ appId: String, _ contextId: String = "doc", focused: Bool,
                        shown: @escaping (String, [String: DBusValue]) -> Void) throws -> MenuBusClient {
        let app = try app(appId)
        app.onShowEditMenu = { contextId, platformData in shown(contextId, platformData) }
        try app.publishContext(contextId, field)
        try app.updateSelection(contextId, selection(focused: focused))
        return app
    }

    /// `menubus-cli show-menu` while `apps` answer menubusd's calls, to its end.
    private func showMenu(_ arguments: [String] = [], pumping apps: [MenuBusClient]) throws -> ProcessResult {
        let process = try bus.start("menubus-cli", ["show-menu"] + arguments, extraEnvironment: ["NO_COLOR": "1"])
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline {
            for app in apps { app.run(until: { !process.isRunning }, timeout: 0.02) }
        }
        return try process.wait(timeout: 5)
    }

    /// `ShowMenuForFocus` from a raw connection of this test, called
    /// asynchronously while `apps` answer menubusd's calls: its reply's values.
    private func showMenuForFocus(pumping apps: [MenuBusClient]) throws -> Result<[DBusValue], BusError> {
        let loop = MessageLoop()
        let caller = try Connection(address: try bus.address, loop: loop)
        var result: Result<[DBusValue], BusError>?
        caller.call(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                    interface: MenuBusNames.managerInterface, member: "ShowMenuForFocus",
                    arguments: [.array("{sv}", [])], timeout: 15) { result = $0 }
        let deadline = Date().addingTimeInterval(20)
        while result == nil && Date() < deadline {
            loop.run(until: { result != nil }, timeout: 0.02)
            for app in apps { app.run(until: { result != nil }, timeout: 0.02) }
        }
        return try XCTUnwrap(result, "ShowMenuForFocus got no answer")
    }

    func testTheFocusedAppShowsItsMenuAndTheCallerLearnsWhichApp() throws {
        _ = try startDaemon()
        var asked: [(String, [String: DBusValue])] = []
        let editor = try editor("org.example.Editor", focused: true) { asked.append(($0, $1)) }
        let result = try showMenu(["--timestamp", "4242"], pumping: [editor])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "org.example.Editor showed its menu for doc\n")
        XCTAssertEqual(asked.map(\.0), ["doc"])
        XCTAssertEqual(asked.first?.1, ["timestamp": .uint32(4242)], "the event's time reaches the app")

        let json = try showMenu(["--json"], pumping: [editor])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stdout, "{\"app\": \"org.example.Editor\", \"context-id\": \"doc\"}\n")
        XCTAssertEqual(asked.count, 2)
        XCTAssertEqual(asked.last?.1, [:], "no timestamp given, none passed on")
        let printed = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-show-menu-\(UUID().uuidString).json")
        try json.stdout.write(to: printed, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: printed) }
        let check = try runTool(Repository.root.appendingPathComponent("scripts/check-cli-json").path, ["show-menu", printed.path])
        XCTAssertEqual(check.status, 0, check.stderr)

        // The caller gets the app and context ids and nothing of the selection.
        let reply = try showMenuForFocus(pumping: [editor])
        XCTAssertEqual(try reply.get(), [.string("org.example.Editor"), .string("doc")])
        XCTAssertEqual(asked.count, 3)
    }

    func testWithNoFocusedFieldShowMenuSaysSoAndExitsOne() throws {
        _ = try startDaemon()
        let nobody = try showMenu(pumping: [])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertTrue(nobody.stderr.contains("no text field of an app that takes part in MenuBus has the keyboard focus"),
                      nobody.stderr)
        XCTAssertEqual(nobody.stdout, "")

        // A field that had the focus and lost it (its window's included) is not asked.
        var asked: [String] = []
        let editor = try editor("org.example.Editor", focused: true) { contextId, _ in asked.append(contextId) }
        try editor.updateSelection("doc", selection(focused: false))
        let lost = try showMenu(pumping: [editor])
        XCTAssertEqual(lost.status, 1)
        XCTAssertTrue(lost.stderr.contains("keyboard focus"), lost.stderr)
        XCTAssertEqual(asked, [])
        // A selection without the key says false: the default.
        try editor.updateSelection("doc", selection(focused: true))
        try editor.updateSelection("doc", Selection(kind: .caret))
        XCTAssertEqual(try showMenu(pumping: [editor]).status, 1)
        XCTAssertEqual(asked, [])
        let library = try client()
        assertBusError(BusError.Domain.noSuchContext.errorName) { _ = try library.showMenuForFocus() }
    }

    func testTheFieldThatSaidItWasFocusedLastIsAsked() throws {
        _ = try startDaemon()
        var asked: [String] = []
        let first = try editor("org.example.First", "one", focused: true) { contextId, _ in asked.append("first " + contextId) }
        let second = try editor("org.example.Second", "two", focused: true) { contextId, _ in asked.append("second " + contextId) }
        let apps = [first, second]
        var result = try showMenu(pumping: apps)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "org.example.Second showed its menu for two\n")
        XCTAssertEqual(asked, ["second two"])

        // The first app's field says it again: it is the focused one now.
        try first.updateSelection("one", selection(focused: true, text: "again"))
        result = try showMenu(pumping: apps)
        XCTAssertEqual(result.stdout, "org.example.First showed its menu for one\n", result.stderr)
        // It loses the focus: the second, which never said false, is asked.
        try first.updateSelection("one", selection(focused: false))
        result = try showMenu(pumping: apps)
        XCTAssertEqual(result.stdout, "org.example.Second showed its menu for two\n", result.stderr)
        XCTAssertEqual(asked, ["second two", "first one", "second two"])

        // The focus goes with its context, and with its connection.
        try first.updateSelection("one", selection(focused: true))
        try first.removeContext("one")
        XCTAssertEqual(try showMenu(pumping: apps).stdout, "org.example.Second showed its menu for two\n")
        try first.publishContext("one", field)
        XCTAssertEqual(try showMenu(pumping: apps).stdout, "org.example.Second showed its menu for two\n",
                       "a context published again has no focus until it says so")
        try first.updateSelection("one", selection(focused: true))
        second.close()
        try first.updateSelection("one", selection(focused: false))
        let library = try client()
        XCTAssertTrue(eventually(timeout: 10) {
            do { _ = try library.showMenuForFocus(); return false } catch let error as BusError {
                return error.domain == .noSuchContext
            } catch { return false }
        }, "the second app left; no field has the focus")
        XCTAssertEqual(asked, ["second two", "first one", "second two", "second two", "second two"])
    }

    func testAnAppThatCannotShowItsMenuFailsTheCaller() throws {
        _ = try startDaemon()
        // No onShowEditMenu: the member is not served.
        let plain = try app("org.example.Plain")
        try plain.publishContext("doc", field)
        try plain.updateSelection("doc", selection(focused: true))
        let unserved = try showMenu(pumping: [plain])
        XCTAssertEqual(unserved.status, 1)
        XCTAssertTrue(unserved.stderr.contains("org.example.Plain could not show its menu: it does not serve ShowEditMenu"),
                      unserved.stderr)

        // A handler that throws: ClientFailed, without the app's own message.
        plain.onShowEditMenu = { _, _ in throw BusError.failed("the secret selected text") }
        guard case .failure(let failure) = try showMenuForFocus(pumping: [plain]) else {
            return XCTFail("the call succeeded")
        }
        XCTAssertEqual(failure.domain, .clientFailed, failure.message)
        XCTAssertFalse(failure.message.contains("secret"), failure.message)

        // An app that never answers: ClientFailed once menubusd's wait for it is over.
        plain.onShowEditMenu = { _, _ in }
        let started = Date()
        let late = try bus.run("menubus-cli", ["show-menu"], timeout: 20)
        XCTAssertEqual(late.status, 1)
        XCTAssertTrue(late.stderr.contains("did not answer in time"), late.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }

    /// `publish` reads `focused` from a menu file's selection, prints the
    /// ShowEditMenu it gets, and `menu --json` prints the key back.
    func testAPublishedFileWithFocusedServesShowMenu() throws {
        _ = try startDaemon()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-focused-\(UUID().uuidString).json")
        try #"{"app": "org.example.Notes", "context-id": "note-7", "context": {"kind": "text", "editable": true}, "selection": {"kind": "caret", "focused": true}, "items": [{"id": "pin", "title": "Pin"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let publish = try bus.start("menubus-cli", ["publish", file.path, "--json"], extraEnvironment: ["NO_COLOR": "1"])
        addTeardownBlock { if publish.isRunning { publish.signal(SIGTERM); _ = try? publish.wait(timeout: 5) } }
        XCTAssertTrue(eventually(timeout: 10) { publish.stdoutText.contains("\"Published\"") }, publish.stderrText)
        let menu = try bus.run("menubus-cli", ["menu", "org.example.Notes", "note-7", "--json"])
        XCTAssertTrue(menu.stdout.contains("\"selection\": {\"kind\": \"caret\", \"focused\": true}"), menu.stdout)
        let shown = try bus.run("menubus-cli", ["show-menu", "--timestamp", "7"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertEqual(shown.stdout, "org.example.Notes showed its menu for note-7\n")
        XCTAssertTrue(eventually(timeout: 10) { publish.stdoutText.contains("\"ShowEditMenu\"") }, publish.stdoutText)
        XCTAssertTrue(publish.stdoutText.contains(
            "{\"event\": \"ShowEditMenu\", \"context-id\": \"note-7\", \"platform-data\": {\"timestamp\": 7}}\n"), publish.stdoutText)
    }

    func testFocusedOfAWrongTypeAndBadOptionsAreRefused() throws {
        _ = try startDaemon()
        let raw = try connect()
        _ = try callDaemon(raw, "Register", [.string("org.example.Raw"), .objectPath("/org/menubus/Client"), .array("{sv}", [])])
        _ = try callDaemon(raw, "PublishContext", [.string("doc"), .array("{sv}", []), .array("(ssa{sv})", [])])
        let wrong = assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(raw, "UpdateSelection", [.string("doc"), .array("{sv}", [
                .dictEntry(.string("focused"), .variant(.string("yes")))])])
        }
        XCTAssertTrue(wrong?.message.contains("selection.focused") == true, wrong?.message ?? "")
        _ = try callDaemon(raw, "UpdateSelection", [.string("doc"), .array("{sv}", [
            .dictEntry(.string("focused"), .variant(.boolean(true)))])])
        let timestamp = assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(raw, "ShowMenuForFocus", [.array("{sv}", [.dictEntry(.string("timestamp"), .variant(.string("now")))])])
        }
        XCTAssertTrue(timestamp?.message.contains("options.timestamp") == true, timestamp?.message ?? "")
        let many = (0...64).map { DBusValue.dictEntry(.string("key\($0)"), .variant(.uint32(0))) }
        assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try callDaemon(raw, "ShowMenuForFocus", [.array("{sv}", many)])
        }
        let usage = try bus.run("menubus-cli", ["show-menu", "--timestamp", "soon"])
        XCTAssertEqual(usage.status, 2, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("--timestamp needs a whole number"), usage.stderr)
    }

    /// A sandboxed caller may not pop a menu up in another app: AccessDenied,
    /// and the focused app is not asked. Simulated as TrustModelTests do
    /// (Tests/sandbox/run-sandboxed, as root).
    func testASandboxedCallerIsDeniedAndNoAppIsAsked() throws {
        guard getuid() == 0 else { throw XCTSkip("simulating a sandbox needs root (unshare --mount)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { throw XCTSkip("no unshare") }
        _ = try startDaemon()
        var asked: [String] = []
        let editor = try editor("org.example.Editor", focused: true) { contextId, _ in asked.append(contextId) }
        let process = Process()
        process.executableURL = Repository.root.appendingPathComponent("Tests/sandbox/run-sandboxed")
        process.arguments = ["org.example.Sandboxed", Binaries.url("menubus-cli").path, "show-menu"]
        process.environment = try bus.environment.merging(["NO_COLOR": "1"]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        let deadline = Date().addingTimeInterval(20)
        while running.isRunning && Date() < deadline { editor.run(until: { !running.isRunning }, timeout: 0.02) }
        let result = try running.wait(timeout: 5)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("only an unsandboxed program may show the focused app's menu"), result.stderr)
        XCTAssertTrue(result.stderr.contains("flatpak sandbox as 'org.example.Sandboxed'"), result.stderr)
        XCTAssertFalse(editor.run(until: { !asked.isEmpty }, timeout: 0.3), "no app was asked")
        // The same call from outside the sandbox reaches it.
        XCTAssertEqual(try showMenu(pumping: [editor]).status, 0)
        XCTAssertEqual(asked, ["doc"])
    }
}
