import Foundation
import XCTest

/// The house rules of issue 29 that hold now, as tests that fail when they
/// stop being true (the others are in OneTransportTests and
/// PresentationStateTests).
final class SourceLayoutTests: XCTestCase {
    /// A file a reader takes in at once: none in Sources over 500 lines.
    func testNoSourceFileIsOverFiveHundredLines() throws {
        let long = try OneTransportTests.sources().compactMap { file -> String? in
            let count = file.text.split(separator: "\n", omittingEmptySubsequences: false).count
            return count > 500 ? "\(file.path): \(count) lines" : nil
        }
        XCTAssertEqual(long, [])
    }

    /// The fuzzing harness stops its process on a broken invariant, as
    /// libFuzzer wants: only its executable and its regression test may
    /// link it, never the daemon, the command line or the client library.
    func testOnlyTheFuzzingHarnessLinksItsTraps() throws {
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Each line naming the module, but its own declaration: the target on it, or the line itself.
        let dependents = manifest.split(separator: "\n")
            .filter { $0.contains("\"MenuBusFuzzing\"") && !$0.contains("name: \"MenuBusFuzzing\"") }
            .map { line in line.firstRange(of: #/name: "([^"]+)"/#).map { String(line[$0]) } ?? String(line) }
        XCTAssertEqual(dependents.sorted(), [#"name: "MenuBusFuzzTests""#, #"name: "menubus-fuzz""#])
        let users = try OneTransportTests.sources().filter { $0.text.contains("import MenuBusFuzzing") }.map(\.path)
        XCTAssertTrue(users.allSatisfy { $0.hasPrefix("Sources/menubus-fuzz/") }, "\(users)")
    }

    /// The menu rules and the values they work on need no bus: MenuBusModel
    /// imports neither libdbus nor the layers built on it.
    func testTheModelLinksNoLibdbus() throws {
        let model = try OneTransportTests.sources().filter { $0.path.hasPrefix("Sources/MenuBusModel/") }
        XCTAssertFalse(model.isEmpty)
        XCTAssertEqual(OneTransportTests.lines(matching: #"import (CDBus|MenuBusDBus|MenuBusCodec)|\bdbus_"#, in: model), [])
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = manifest.split(separator: "\n").filter { $0.contains(#".target(name: "MenuBusModel""#) }
        XCTAssertEqual(target.count, 1)
        XCTAssertFalse(target.first?.contains("DBus") ?? true, "\(target)")
    }

    /// The daemon is components that own their state (contexts, providers,
    /// undo, presented menus); `MenuBusServer` keeps the connection, the
    /// loop, the lifecycle and the wiring, in at most three files.
    func testMenuBusServerIsExtendedFromAtMostThreeFiles() throws {
        let files = try OneTransportTests.sources()
            .filter { $0.text.contains("class MenuBusServer") || $0.text.contains("extension MenuBusServer") }
            .map(\.path)
        XCTAssertTrue(files.contains("Sources/MenuBusService/Service/MenuBusServer.swift"), "\(files)")
        XCTAssertLessThanOrEqual(files.count, 3, "\(files)")
    }
}
