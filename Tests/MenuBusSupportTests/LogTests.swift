import XCTest
@testable import MenuBusSupport

/// Warnings a peer can cause are rate-limited: the first, then a count a minute.
final class LogTests: XCTestCase {
    func testARepeatedWarningIsLoggedOnceThenAsACountPerMinute() {
        var lines: [String] = []
        var now: UInt64 = 1_000
        let clock = Log.clock
        Log.sink = { lines.append($0) }
        Log.clock = { now }
        Log.resetRateLimits()
        defer {
            Log.sink = nil
            Log.clock = clock
            Log.resetRateLimits()
        }
        for _ in 0..<10_000 { Log.rateLimitedWarning("deferred:org.example.Noisy", "org.example.Noisy did not provide 'x'") }
        XCTAssertEqual(lines, ["<4>org.example.Noisy did not provide 'x'\n"])
        Log.rateLimitedWarning("deferred:org.example.Other", "another app's warning")
        XCTAssertEqual(lines.count, 2, "keys are limited apart")
        now += Log.rateWindow
        Log.rateLimitedWarning("deferred:org.example.Noisy", "org.example.Noisy did not provide 'x'")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[2].contains("(10000 like it in the last minute)"), lines[2])
        for _ in 0..<5 { Log.rateLimitedWarning("deferred:org.example.Noisy", "again") }
        XCTAssertEqual(lines.count, 3, "a new minute began with that line")
    }
}
