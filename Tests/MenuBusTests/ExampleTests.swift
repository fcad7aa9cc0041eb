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

/// The examples in examples/ run against a private bus, so none of them rots.
final class ExampleTests: BusTestCase {
    private func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> ProcessResult {
        try bus.runProgram(executable, arguments, timeout: timeout)
    }

    private func assertCopyAndUndo(_ result: ProcessResult, typed: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout, file: file, line: line)
        XCTAssertTrue(result.stdout.contains("copied \"\(typed)\"") || result.stdout.contains("copied '\(typed)'"),
                      result.stdout, file: file, line: line)
        XCTAssertTrue(result.stdout.contains("undid"), result.stdout, file: file, line: line)
        XCTAssertTrue(result.stdout.hasSuffix("done\n"), result.stdout, file: file, line: line)
    }

    func testPythonGioExampleHandlesCopyAndUndo() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no /usr/bin/python3") }
        _ = try startDaemon(["--state-dir", FileManager.default.temporaryDirectory.appendingPathComponent("mb-py-\(UUID())").path])
        let result = try run(python, [Repository.root.appendingPathComponent("examples/python/editor.py").path, "--demo"])
        assertCopyAndUndo(result, typed: "hello")
        XCTAssertTrue(result.stdout.contains("menubusd offers 'Undo Typing'"), result.stdout)
        XCTAssertTrue(result.stdout.contains("text is now ''"), result.stdout)
    }

    func testCGDBusExampleHandlesCopyAndUndo() throws {
        _ = try startDaemon(["--state-dir", FileManager.default.temporaryDirectory.appendingPathComponent("mb-c-\(UUID())").path])
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-c-editor-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: binary) }
        let source = Repository.root.appendingPathComponent("examples/c/editor.c").path
        let build = try run("/bin/sh", ["-c", "gcc -Wall -o '\(binary)' '\(source)' $(pkg-config --cflags --libs gio-2.0)"])
        XCTAssertEqual(build.status, 0, build.stderr)
        XCTAssertEqual(build.stderr, "", "the example builds without warnings")
        let result = try run(binary, ["--demo"])
        assertCopyAndUndo(result, typed: "hi")
        XCTAssertTrue(result.stdout.contains("text is now \"\""), result.stdout)
        // The draft closed unsaved: its history is gone from menubusd, journal and all.
        XCTAssertTrue(result.stdout.contains("closed the draft and cleared its undo history"), result.stdout)
        let sameApp = try app("org.example.CEditor")
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try sameApp.undoState(document: "draft") }
    }

    func testSwiftClientLibraryExampleHandlesCopyAndUndo() throws {
        _ = try startDaemon(["--state-dir", FileManager.default.temporaryDirectory.appendingPathComponent("mb-swift-\(UUID())").path])
        let result = try run(Binaries.url("menubus-example").path, ["--demo"])
        assertCopyAndUndo(result, typed: "Dear")
        XCTAssertTrue(result.stdout.contains("menubusd offers \"Undo Typing\" (1 step)"), result.stdout)
    }

    // MARK: Client calls only from menubusd

    /// Starts a serving example, forges PerformCommand calls to it from
    /// another connection, and checks they are refused while it keeps running.
    private func assertRefusesForgedCalls(_ executable: String, _ arguments: [String], appId: String, clientPath: ObjectPath,
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = try bus.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let forger = try connect()
        var owner: String?
        XCTAssertTrue(try eventually(timeout: 15) {
            let rows = try callDaemon(forger, "ListContexts")
            guard case .array(_, let items)? = rows.first else { return false }
            for case .structure(let row) in items where row.count == 3 && row[1] == .string(appId) {
                owner = row[0].stringValue
            }
            return owner != nil
        }, "the example registered", file: file, line: line)
        let unique = try XCTUnwrap(owner, file: file, line: line)
        // It serves every Client member the README's guide marks required.
        let introspection = try forger.callBlocking(destination: unique, path: clientPath,
                                                    interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                                                    arguments: [], timeout: 10)
        let xml = try XCTUnwrap(introspection.first?.stringValue, file: file, line: line)
        let client = try XCTUnwrap(Repository.interfaceElement(MenuBusNames.clientInterface, in: xml), xml, file: file, line: line)
        let required = try Self.requiredClientMembers()
        XCTAssertEqual(required, ["ActionInvoked", "GetSelectedText", "PerformCommand"], "the README's table was read")
        for member in required.sorted() {
            XCTAssertTrue(client.contains("<method name=\"\(member)\">"), "\(appId) does not serve \(member): \(client)",
                          file: file, line: line)
        }
        for command in ["replace-selection", "undo"] {
            assertBusError(BusError.Standard.accessDenied, file: file, line: line) {
                _ = try forger.callBlocking(destination: unique, path: clientPath, interface: MenuBusNames.clientInterface,
                                            member: "PerformCommand",
                                            arguments: [.string("body"), .string(command),
                                                        .array("{sv}", [.dictEntry(.string("text"), .variant(.string("pwned")))])],
                                            timeout: 10)
            }
        }
        XCTAssertTrue(process.isRunning, "the example is still serving", file: file, line: line)
    }

    /// The members the README's "Join MenuBus from your app" marks required of every app.
    static func requiredClientMembers() throws -> Set<String> {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "## Join MenuBus from your app") else { return [] }
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        let text = String(readme[start.upperBound..<end])
        let row = try NSRegularExpression(pattern: #"^\s*\| `(\w+)` \| required \|"#, options: .anchorsMatchLines)
        return Set(row.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    func testPythonExampleRefusesClientCallsFromAnyoneButMenubusd() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no /usr/bin/python3") }
        _ = try startDaemon(["--state-dir", FileManager.default.temporaryDirectory.appendingPathComponent("mb-pyf-\(UUID())").path])
        try assertRefusesForgedCalls(python, [Repository.root.appendingPathComponent("examples/python/editor.py").path],
                                     appId: "org.example.PyEditor", clientPath: "/org/example/Editor/MenuBusClient")
    }

    func testCExampleRefusesClientCallsFromAnyoneButMenubusd() throws {
        _ = try startDaemon(["--state-dir", FileManager.default.temporaryDirectory.appendingPathComponent("mb-cf-\(UUID())").path])
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-c-editor-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: binary) }
        let source = Repository.root.appendingPathComponent("examples/c/editor.c").path
        let build = try run("/bin/sh", ["-c", "gcc -Wall -o '\(binary)' '\(source)' $(pkg-config --cflags --libs gio-2.0)"])
        XCTAssertEqual(build.status, 0, build.stderr)
        try assertRefusesForgedCalls(binary, [], appId: "org.example.CEditor", clientPath: "/org/example/CEditor/MenuBusClient")
    }
}
