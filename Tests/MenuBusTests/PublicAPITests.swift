import Foundation
import XCTest

/// The client library's public surface is what the README lists, and the
/// daemon's rooms have none (scripts/api-symbols reads the symbol graphs of
/// the modules this test run was built from).
final class PublicAPITests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private var script: String { Self.repository.appendingPathComponent("scripts/api-symbols").path }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testTheReadmeListsThePublicSymbolsAndTheRoomsHaveNone() throws {
        let check = try run(["--check"])
        XCTAssertEqual(check.status, 0, check.output)
        let listing = try run([])
        XCTAssertEqual(listing.status, 0, listing.output)
        XCTAssertTrue(listing.output.contains("- `MenuBusClient`: "), listing.output)
        for name in ["MenuBusServer", "MenuComposer", "CompositionBenchmark", "UndoBenchmark", "DBusMenuLayout",
                     "GtkMenusExport", "UndoStore", "Connection", "MessageLoop"] {
            XCTAssertFalse(listing.output.contains("`\(name)`"), "\(name) is public in MenuBus")
        }
    }

    func testAReadmeMissingASymbolFailsTheCheck() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let stale = readme.replacingOccurrences(of: "`undoState(document:)`, ", with: "")
        XCTAssertNotEqual(stale, readme, "the README lists undoState(document:)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-readme-\(getpid()).md")
        try stale.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try run(["--check", "--readme", file.path])
        XCTAssertEqual(check.status, 1, check.output)
        XCTAssertTrue(check.output.contains("differs from the symbol graph"), check.output)
    }
}
