import Foundation
import XCTest
@testable import MenuBusService
@testable import MenuBusSupport

/// The per-user count of provider choices: its file, its budget, and a
/// damaged file.
final class ProviderUsageStoreTests: XCTestCase {
    private var directory: String!
    /// Scheduled writes, run by the test when it wants them.
    private var pending: [() -> Void] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("usage-\(UUID().uuidString)/state").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: Files.parent(of: directory))
    }

    private func store() -> ProviderUsage {
        ProviderUsage(stateDirectory: directory) { [unowned self] _, work in pending.append(work) }
    }

    private func runPending() {
        let work = pending
        pending = []
        work.forEach { $0() }
    }

    private var fileText: String? { try? String(contentsOfFile: directory + "/provider-usage", encoding: .utf8) }

    func testChoicesAreWrittenOnceAfterABurstAndReadBack() {
        let usage = store()
        usage.record("org.example.B")
        usage.record("org.example.A")
        usage.record("org.example.B")
        XCTAssertEqual(pending.count, 1, "one write for a burst of choices")
        XCTAssertNil(fileText, "nothing written before the delay")
        runPending()
        XCTAssertEqual(fileText, "1\torg.example.A\n2\torg.example.B\n")
        XCTAssertEqual(store().counts, ["org.example.A": 1, "org.example.B": 2], "read back as after a restart")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        XCTAssertEqual(names, ["provider-usage"], "no temporary file left beside it")
    }

    func testFlushWritesAtShutdownAndOnlyWhenChanged() {
        let usage = store()
        usage.flush()
        XCTAssertNil(fileText, "nothing to write")
        usage.record("org.example.A")
        usage.flush()
        XCTAssertEqual(fileText, "1\torg.example.A\n")
    }

    func testEntriesAreBoundedAndTheLeastChosenGoes() {
        let usage = store()
        for index in 0..<ProviderUsage.maxEntries { usage.record("org.example.P\(index)") }
        usage.record("org.example.P7")
        usage.record("org.example.New")
        XCTAssertEqual(usage.counts.count, ProviderUsage.maxEntries)
        XCTAssertEqual(usage.counts["org.example.New"], 1)
        XCTAssertEqual(usage.counts["org.example.P7"], 2, "a more chosen one stays")
    }

    func testCountsHalveAtTheirBound() {
        let usage = store()
        usage.record("org.example.A")
        for _ in 0..<ProviderUsage.maxCount { usage.record("org.example.B") }
        XCTAssertEqual(usage.counts["org.example.B"], ProviderUsage.maxCount / 2)
        XCTAssertNil(usage.counts["org.example.A"], "one choice halves to none")
    }

    func testADamagedFileKeepsItsGoodLines() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "2\torg.example.A\nnot a line\n\t\n-1\torg.example.B\n5\tbad id\n3\torg.example.C\n"
            .write(toFile: directory + "/provider-usage", atomically: true, encoding: .utf8)
        var skipped: [Int] = []
        let counts = ProviderUsage.parse(try String(contentsOfFile: directory + "/provider-usage", encoding: .utf8)) {
            skipped.append($0)
        }
        XCTAssertEqual(counts, ["org.example.A": 2, "org.example.C": 3])
        XCTAssertEqual(skipped, [2], "the first bad line is named, once")
        XCTAssertEqual(store().counts, counts)
    }

    func testAFileThatCannotBeReadStartsAfresh() throws {
        try FileManager.default.createDirectory(atPath: directory + "/provider-usage", withIntermediateDirectories: true)
        XCTAssertEqual(store().counts, [:], "a folder in its place")
        try FileManager.default.removeItem(atPath: directory + "/provider-usage")
        try String(repeating: "1\torg.example.A\n", count: ProviderUsage.maxFileBytes / 10)
            .write(toFile: directory + "/provider-usage", atomically: true, encoding: .utf8)
        XCTAssertEqual(store().counts, [:], "a file over its budget")
    }

    func testAFileOfTooManyEntriesKeepsTheMostChosen() {
        let text = (0..<(ProviderUsage.maxEntries + 10)).map { "\($0 + 1)\torg.example.P\($0)\n" }.joined()
        let counts = ProviderUsage.parse(text)
        XCTAssertEqual(counts.count, ProviderUsage.maxEntries)
        XCTAssertNil(counts["org.example.P0"])
        XCTAssertNotNil(counts["org.example.P\(ProviderUsage.maxEntries + 9)"])
    }
}
