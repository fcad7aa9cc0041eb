import Foundation
import XCTest

/// What the shims rely on that a toolkit does not promise, checked against
/// the toolkit installed, each by a small program `make shims` builds from
/// the shim's own code (shims/gtk3/facts): when a toolkit update changes
/// one, this fails with the fact that broke, while the shim falls back to
/// leaving the app's menu alone.
final class ToolkitFactsTests: BusTestCase {
    private func runFacts(_ relative: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try requireXvfb()
        let program = Repository.root.appendingPathComponent(relative)
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            throw TestFailure("no \(program.path): run `make shims` to build it")
        }
        let result = try bus.runProgram(Self.xvfb[0], Array(Self.xvfb.dropFirst()) + [program.path], timeout: 60)
        let failed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("FAILED") }
        XCTAssertEqual(result.status, 0, "\(relative):\n\(result.stdout)\(result.stderr)", file: file, line: line)
        XCTAssertEqual(failed, [], file: file, line: line)
        XCTAssertTrue(result.stdout.contains("\nok: 0 of the module's GTK facts failed"),
                      "\(relative) did not finish:\n\(result.stdout)\(result.stderr)", file: file, line: line)
    }

    /// GtkEntry's, GtkTextView's and a selectable GtkLabel's own Cut, Copy,
    /// Paste, Delete and Select All, recognised by the GTK 3 module's
    /// recogniser ("gtk-signal" data, GTK's translated titles).
    func testGtk3MarksItsOwnEditItemsAsTheModuleExpects() throws {
        try runFacts(".build/shims/gtk3/gtk3-facts")
    }
}
