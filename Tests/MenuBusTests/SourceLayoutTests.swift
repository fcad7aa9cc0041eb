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

    /// Every type is extended from at most three files besides the one that
    /// declares it, whichever room they are in, so a reader finds a type's
    /// code in a few named places: a protocol's handlers live with its
    /// export type, not as more extensions of `PresentedMenus`.
    func testEveryTypeIsExtendedFromAtMostThreeFiles() throws {
        let sources = try OneTransportTests.sources()
        let modifiers = #"^(?:(?:public|package|internal|private|fileprivate|final|indirect|open)\s+)*"#
        let declaration = try Regex(modifiers + #"(?:class|struct|enum|actor|protocol)\s+([A-Za-z_]\w*)"#)
        let extensionLine = try Regex(modifiers + #"extension\s+([A-Za-z_][\w.]*)"#)
        var declaring: [String: Set<String>] = [:], extending: [String: Set<String>] = [:]
        for file in sources {
            for line in file.text.split(separator: "\n") {
                if let match = line.prefixMatch(of: declaration), let name = match.output[1].substring {
                    declaring[String(name), default: []].insert(file.path)
                } else if let match = line.prefixMatch(of: extensionLine), let name = match.output[1].substring {
                    extending[String(name), default: []].insert(file.path)
                }
            }
        }
        var counts: [String: [String]] = [:]
        for (name, files) in extending {
            guard let own = declaring[name] else { continue }   // the standard library's and libdbus's types
            counts[name] = files.subtracting(own).sorted()
        }
        XCTAssertEqual(counts.filter { $0.value.count > 3 }.mapValues(\.count), [:], "\(counts.filter { $0.value.count > 3 })")
        // The scan sees what it counts: the types the rule was written for.
        XCTAssertEqual(counts["PresentedMenus"]?.count, 2, "\(counts["PresentedMenus"] ?? [])")
        XCTAssertEqual(counts["MenuBusClient"]?.count, 3, "\(counts["MenuBusClient"] ?? [])")
        XCTAssertGreaterThan(counts.count, 20)
    }

    /// bench/README.md names every program under bench/ in its room's row:
    /// each script and C or C++ source by its file name, each Swift
    /// executable by its folder (a program beside the rooms, anywhere).
    func testTheBenchReadmeNamesEveryProgram() throws {
        let bench = Repository.root.appendingPathComponent("bench")
        let readme = try String(contentsOf: bench.appendingPathComponent("README.md"), encoding: .utf8)
        // "| `roundtrips/` | …": each room's row.
        var rows: [String: Substring] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let room = line.dropFirst(3).prefix { $0 != "`" }
            if room.hasSuffix("/") { rows[String(room.dropLast())] = line }
        }
        let files = FileManager.default.enumerator(at: bench, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var unnamed: [String] = [], programs = 0
        for file in files {
            let name: String
            if ["sh", "py", "c", "cpp"].contains(file.pathExtension) {
                name = file.lastPathComponent
            } else if file.lastPathComponent == "main.swift" {
                name = file.deletingLastPathComponent().lastPathComponent + "/"
            } else {
                continue
            }
            programs += 1
            let path = file.path.dropFirst(bench.path.count + 1)
            let room = path.contains("/") ? String(path.prefix { $0 != "/" }) : nil
            let text = room.map { rows[$0] ?? "" } ?? Substring(readme)
            if !text.contains("`\(name)`") { unnamed.append(String(path)) }
        }
        XCTAssertGreaterThan(programs, 30)
        XCTAssertGreaterThan(rows.count, 6, "\(rows.keys)")
        XCTAssertEqual(unnamed.sorted(), [], "programs bench/README.md does not name in their room's row")
    }
}
