import Foundation
import XCTest

/// MenuBus's shims inside real apps, against a hostile `org.menubus.MenuBus1`
/// (any process of the session may own the name while menubusd is not
/// running): `bench/hostile/run.sh` for 40 s an app, the shims built with
/// AddressSanitizer, the fake answering with wrong signatures, 10,000
/// elements, 64 KiB titles, invalid UTF-8, errors, silence, replies 10 s
/// late and dropped connections. The app must not crash, AddressSanitizer
/// must report nothing, the app must answer AT-SPI within 1 s after every
/// step, and the field's text must be what the chosen steps make it. The
/// 10-minute run and its figures are in BENCHMARKS.md.
final class HostileShimTests: XCTestCase {
    private static let seconds = 40

    /// The figures of the line run.sh prints for `app`.
    private struct Summary {
        let line: String
        let steps: Int
        let crashes: Int
        let asanReports: Int
        let hangs: Int
        let textMatched: Bool

        init?(_ output: String, app: String) {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("hostile \(app): ") }) else {
                return nil
            }
            self.line = String(line)
            func number(before word: String) -> Int? {
                let parts = line.split(separator: " ")
                guard let index = parts.firstIndex(where: { $0.hasPrefix(word) }), index > 0 else { return nil }
                return Int(parts[index - 1])
            }
            guard let steps = number(before: "steps"), let crashes = number(before: "crashes"),
                  let asan = number(before: "asan"), let hangs = number(before: "hangs") else { return nil }
            self.steps = steps
            self.crashes = crashes
            asanReports = asan
            self.hangs = hangs
            textMatched = line.hasSuffix("text matched")
        }
    }

    private func requireTools(_ app: String) throws {
        for (path, package) in GtkAppDriver.requirements + [("/usr/bin/\(app)", app), ("/usr/bin/gcc", "gcc")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw XCTSkip("no \(path): \(package) is not installed; run scripts/setup")
        }
        let check = try runTool("/usr/bin/python3", ["-c", "import gi; gi.require_version('Atspi', '2.0'); import pyatspi, Xlib"],
                                timeout: 30)
        if check.status != 0 {
            throw XCTSkip("/usr/bin/python3 cannot import pyatspi or Xlib (python3-pyatspi, python3-xlib); run scripts/setup")
        }
    }

    private func runHostile(_ app: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try requireTools(app)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-hostile-\(UUID().uuidString)")
        let result = try runTool("bench/hostile/run.sh", ["--seconds", "\(Self.seconds)", "--app", app, "--out", out.path],
                                 timeout: 900)
        let details = "run.sh status \(result.status); logs in \(out.path)\n\(result.stdout)\n\(result.stderr.suffix(6000))"
        guard let summary = Summary(result.stdout, app: app) else {
            XCTFail("run.sh printed no summary for \(app)\n\(details)", file: file, line: line)
            return
        }
        // A run that took no steps would prove nothing.
        XCTAssertGreaterThan(summary.steps, 10, "too few steps: \(summary.line)\n\(details)", file: file, line: line)
        XCTAssertEqual(summary.crashes, 0, "\(app) crashed: \(summary.line)\n\(details)", file: file, line: line)
        XCTAssertEqual(summary.asanReports, 0, "AddressSanitizer reported: \(summary.line)\n\(details)", file: file, line: line)
        XCTAssertEqual(summary.hangs, 0, "\(app) took over 1 s to answer: \(summary.line)\n\(details)", file: file, line: line)
        XCTAssertTrue(summary.textMatched, "the text left the model: \(summary.line)\n\(details)", file: file, line: line)
        XCTAssertEqual(result.status, 0, details, file: file, line: line)
        if result.status == 0 { try? FileManager.default.removeItem(at: out) }
    }

    func testMousepadWithTheGtk3ModuleSurvivesAHostileDaemon() throws {
        try runHostile("mousepad")
    }

    func testFeatherpadWithTheQt5ThemeSurvivesAHostileDaemon() throws {
        try runHostile("featherpad")
    }
}
