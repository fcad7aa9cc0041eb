import Foundation
import XCTest

/// Issue 42's rules for the test targets, read from the package graph:
/// each library target has a unit-test target that depends on it and on
/// nothing above it.
///
/// A library target is a `.target` in Sources/. The fixtures in Tests/ and
/// the benchmark workloads in bench/lib are support targets: they need no
/// test target of their own, and a unit-test target may use one whose own
/// closure stays within its library's. A unit-test target tests the target
/// its name says (`MenuBusCodecTests`: MenuBusCodec), or the one `testedBy`
/// names; MenuBusTests is the end-to-end suite (the daemon, the command
/// line, the consumers, the package), above every room.
struct TestTargetRules {
    static let endToEndSuite = "MenuBusTests"
    /// Unit-test targets whose name is not their library's.
    static let testedBy = ["MenuBusClientTests": "MenuBus", "MenuBusFuzzTests": "MenuBusFuzzing"]

    let graph: PackageGraph

    func isLibrary(_ name: String) -> Bool {
        guard let target = graph.targets[name] else { return false }
        return target.type == "library" && target.path.hasPrefix("Sources/")
    }

    func isSupport(_ name: String) -> Bool {
        guard let target = graph.targets[name] else { return false }
        return target.type == "library" && !target.path.hasPrefix("Sources/")
    }

    var unitTestTargets: [String] {
        graph.targets.values.filter { $0.type == "test" && $0.name != Self.endToEndSuite }.map(\.name).sorted()
    }

    /// The library a unit-test target tests, by its name.
    func testedLibrary(_ testTarget: String) -> String {
        Self.testedBy[testTarget] ?? String(testTarget.dropLast(testTarget.hasSuffix("Tests") ? 5 : 0))
    }

    /// What a unit-test target of `library` may depend on and import: the
    /// library, its closure, and support targets whose closure reaches no
    /// other target outside it (support targets aside).
    func allowed(for library: String) -> Set<String> {
        let room = graph.closure(library).union([library])
        let support = graph.targets.keys.filter { name in
            isSupport(name) && graph.closure(name).allSatisfy { room.contains($0) || isSupport($0) }
        }
        return room.union(support)
    }

    /// Each broken rule, naming its target: a library without a unit-test
    /// target, a unit-test target that tests no library target, or one that
    /// depends on a target outside its library's closure.
    func findings() -> [String] {
        var findings: [String] = []
        var tested: Set<String> = []
        for testTarget in unitTestTargets {
            let library = testedLibrary(testTarget)
            guard isLibrary(library) else {
                findings.append("\(testTarget): tests no library target ('\(library)')")
                continue
            }
            tested.insert(library)
            let allowed = allowed(for: library)
            for dependency in graph.targets[testTarget]?.dependencies ?? [] where !allowed.contains(dependency) {
                findings.append("\(testTarget): depends on \(dependency), outside \(library)'s closure")
            }
        }
        for library in graph.targets.keys.sorted() where isLibrary(library) && !tested.contains(library) {
            findings.append("\(library): no unit-test target")
        }
        return findings
    }

    /// The lines of a unit-test target's files that import a target of the
    /// package outside its library's closure (a module the build made for
    /// another target can be imported without being declared).
    func importFindings(root: URL) throws -> [String] {
        let modules = Dictionary(graph.targets.keys.map { ($0.replacingOccurrences(of: "-", with: "_"), $0) }) { a, _ in a }
        let importLine = try Regex(#"^\s*(?:@testable\s+|@_exported\s+)?(?:(?:internal|package|public|private)\s+)?import\s+(?:(?:struct|enum|class|protocol|func|var|typealias)\s+)?(\w+)"#)
        var findings: [String] = []
        for testTarget in unitTestTargets {
            guard let path = graph.targets[testTarget]?.path else { continue }
            let allowed = allowed(for: testedLibrary(testTarget))
            let folder = root.appendingPathComponent(path)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files {
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    guard let match = line.prefixMatch(of: importLine), let module = modules[String(match.output[1].substring ?? "")],
                          !allowed.contains(module) else { continue }
                    findings.append("\(path)/\(file.lastPathComponent): imports \(module)")
                }
            }
        }
        return findings.sorted()
    }
}

extension SourceLayoutTests {
    func testEveryLibraryTargetHasAUnitTestTargetThatDependsOnNothingAboveIt() throws {
        let rules = TestTargetRules(graph: try PackageGraph.load())
        XCTAssertEqual(rules.findings(), [])
        XCTAssertEqual(try rules.importFindings(root: Repository.root), [])
        // The rules see the graph they judge: the rooms as libraries, the
        // fixtures as support, every unit-test target.
        for library in ["MenuBusSupport", "MenuBusCodec", "MenuBusDBus", "MenuBusModel", "MenuBusProtocol", "MenuBus"] {
            XCTAssertTrue(rules.isLibrary(library), library)
        }
        XCTAssertTrue(rules.isSupport("MenuBusModelFixtures"))
        XCTAssertFalse(rules.isLibrary("MenuBusModelFixtures"))
        XCTAssertGreaterThan(rules.unitTestTargets.count, 10, "\(rules.unitTestTargets)")
        XCTAssertFalse(rules.unitTestTargets.contains(TestTargetRules.endToEndSuite))
    }

    /// Each rule fails, naming the target, on a graph that breaks it.
    func testTheTestTargetRulesNameWhatBreaksThem() throws {
        let graph = try PackageGraph.load()
        var targets = graph.targets
        let codecTests = try XCTUnwrap(targets["MenuBusCodecTests"])
        targets["MenuBusCodecTests"] = .init(name: codecTests.name, type: codecTests.type, path: codecTests.path,
                                             dependencies: codecTests.dependencies + ["MenuBusDBus", "MenuBusModelFixtures"])
        targets["MenuBusSupportTests"] = nil
        targets["MenuBusOrphanTests"] = .init(name: "MenuBusOrphanTests", type: "test", path: "Tests/MenuBusOrphanTests",
                                              dependencies: ["MenuBusModel"])
        let findings = TestTargetRules(graph: PackageGraph(Array(targets.values))).findings()
        XCTAssertEqual(findings.sorted(), [
            "MenuBusCodecTests: depends on MenuBusDBus, outside MenuBusCodec's closure",
            "MenuBusCodecTests: depends on MenuBusModelFixtures, outside MenuBusCodec's closure",
            "MenuBusOrphanTests: tests no library target ('MenuBusOrphan')",
            "MenuBusSupport: no unit-test target",
        ])
        // A test file importing a room above its library is named too.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-layout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Tests/MenuBusCodecTests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "import XCTest\n@testable import MenuBusCodec\n@testable import MenuBusProtocol\n"
            .write(to: folder.appendingPathComponent("AboveTests.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try TestTargetRules(graph: graph).importFindings(root: root),
                       ["Tests/MenuBusCodecTests/AboveTests.swift: imports MenuBusProtocol"])
    }
}
