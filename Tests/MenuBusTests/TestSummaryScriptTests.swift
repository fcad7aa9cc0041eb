import Foundation
import XCTest

/// scripts/test ends with one line for the whole run, which
/// scripts/test-summary makes from XCTest's output: fed each form of
/// XCTest's summary, it counts every suite, skips included.
final class TestSummaryScriptTests: XCTestCase {
    private func summarize(_ output: String) throws -> ProcessResult {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("test-output-\(UUID().uuidString).txt")
        try output.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try runTool("scripts/test-summary", [file.path], timeout: 30)
    }

    private func assertSummary(_ output: String, is expected: String, status: Int32,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try summarize(output)
        XCTAssertEqual(result.stdout, expected, result.stderr, file: file, line: line)
        XCTAssertEqual(result.status, status, file: file, line: line)
    }

    /// Lines as swift-corelibs-xctest prints them for one test that ends `verb`.
    private func testCase(_ name: String, _ verb: String) -> String {
        "Test Case '\(name)' started at 2026-01-01 10:00:00.000\nTest Case '\(name)' \(verb) (0.001 seconds)\n"
    }

    private func suite(_ name: String, _ verb: String, _ executed: String) -> String {
        "Test Suite '\(name)' \(verb) at 2026-01-01 10:00:01.000\n\t Executed \(executed) (0 unexpected) in 0.1 (0.1) seconds\n"
    }

    func testSkipsInTheOverallLineAreCountedAndTheLastSuiteIsNotTheTotal() throws {
        // The last suite has no skips and 16 tests; the run has 564 with 5 skipped.
        let output = testCase("A.testSkipped", "skipped") + suite("A", "passed", "9 tests, with 5 tests skipped and 0 failures")
            + testCase("B.testLast", "passed") + suite("B", "passed", "16 tests, with 0 failures")
            + suite("debug.xctest", "passed", "564 tests, with 5 tests skipped and 0 failures")
            + suite("All tests", "passed", "564 tests, with 5 tests skipped and 0 failures")
        try assertSummary(output, is: "tests: 559 passed, 0 failed, 5 skipped\n", status: 0)
    }

    func testARunWithoutSkipsReportsNoneSkipped() throws {
        let output = testCase("A.testOne", "passed") + suite("All tests", "passed", "1 test, with 0 failures")
        try assertSummary(output, is: "tests: 1 passed, 0 failed, 0 skipped\n", status: 0)
    }

    func testAFilteredRunIsCountedFromItsSelectedTestsSuite() throws {
        let output = testCase("A.testOne", "passed") + testCase("A.testTwo", "skipped")
            + suite("A", "passed", "2 tests, with 1 test skipped and 0 failures")
            + suite("Selected tests", "passed", "2 tests, with 1 test skipped and 0 failures")
        try assertSummary(output, is: "tests: 1 passed, 0 failed, 1 skipped\n", status: 0)
    }

    func testFailedTestsAreCountedOnceHoweverManyAssertionsFailed() throws {
        // XCTest's "failures" are assertions: one test failing twice is one failed test.
        let output = testCase("A.testFailsTwice", "failed") + testCase("A.testPasses", "passed")
            + testCase("A.testSkips", "skipped")
            + suite("All tests", "failed", "3 tests, with 1 test skipped and 2 failures")
        try assertSummary(output, is: "tests: 1 passed, 1 failed, 1 skipped\n", status: 1)
    }

    func testARunThatDiedCountsWhatItReportedAndOneFailureForTheDeath() throws {
        let output = testCase("A.testPasses", "passed") + testCase("A.testSkips", "skipped")
            + "Test Case 'A.testCrashes' started at 2026-01-01 10:00:00.000\n"
        let result = try summarize(output)
        XCTAssertTrue(result.stdout.hasPrefix("tests: 1 passed, 1 failed, 1 skipped"), result.stdout)
        XCTAssertEqual(result.status, 1)
    }
}
