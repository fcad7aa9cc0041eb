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
        let result = try runTool("python3", [script] + arguments)
        return (result.status, result.stdout + result.stderr)
    }

    func testTheReadmeListsThePublicSymbolsAndTheRoomsHaveNone() throws {
        let check = try run(["--check"])
        XCTAssertEqual(check.status, 0, check.output)
        let listing = try run([])
        XCTAssertEqual(listing.status, 0, listing.output)
        XCTAssertTrue(listing.output.contains("- `MenuBusClient`: "), listing.output)
        for name in ["MenuBusServer", "MenuComposer", "CompositionBenchmark", "UndoBenchmark", "DBusMenuLayout",
                     "GMenuLayout", "UndoStore", "Connection", "MessageLoop"] {
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

    /// The rooms as Package.swift declares them (`swift package describe`):
    /// the model and the undo store, and their tests, reach no libdbus; only
    /// MenuBusDBus imports CDBus; the client library links no daemon room.
    func testOnlyTheDBusRoomReachesLibdbusAndTheClientLinksNoDaemonRoom() throws {
        let graph = try PackageGraph.load()
        let dependencies = graph.targets.mapValues(\.dependencies)
        let closure = graph.closure
        for room in ["MenuBusModel", "MenuBusUndo", "MenuBusModelTests", "MenuBusUndoTests"] {
            XCTAssertNotNil(dependencies[room], room)
            XCTAssertTrue(closure(room).isDisjoint(with: ["CDBus", "MenuBusDBus"]), "\(room) reaches \(closure(room))")
        }
        XCTAssertEqual(dependencies.filter { $0.value.contains("CDBus") }.map(\.key), ["MenuBusDBus"])
        XCTAssertTrue(closure("MenuBus").isDisjoint(with: ["MenuBusService", "MenuBusUndo", "MenuBusProviders",
                                                           "MenuBusBenchmarks"]), "\(closure("MenuBus"))")
        let sources = Self.repository.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        XCTAssertGreaterThan(files.count, 100)
        for file in files where !file.path.contains("/Sources/MenuBusDBus/") {
            let text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertNil(text.range(of: #"(?m)^(internal |@_implementationOnly )?import CDBus"#, options: .regularExpression),
                         "\(file.path) imports CDBus")
        }
    }

    /// menubusd is built without Foundation (with its ICU data it doubled
    /// the daemon's resident memory at start): its ELF file needs no
    /// Foundation library. The client tools may use it.
    func testTheDaemonLinksNoFoundation() throws {
        let result = try runTool("readelf", ["-d", Binaries.url("menubusd").path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertTrue(needed.contains { $0.contains("libswiftCore") }, "readelf lists the libraries: \(needed)")
        XCTAssertFalse(needed.contains { $0.contains("Foundation") }, "\(needed)")
    }
}
