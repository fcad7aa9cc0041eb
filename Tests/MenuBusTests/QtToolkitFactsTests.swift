import Foundation
import XCTest

/// What the Qt platform theme relies on that Qt does not promise (the QPA
/// theme factory, QLineEdit's menu named `qt_edit_menu`, QWidgetTextControl's
/// actions named `edit-copy` and `edit-undo`, QLineEdit's translated texts,
/// the menu polished while a context-menu event is delivered, Qt's loop being
/// GLib's), checked against the installed Qt 5 and Qt 6 by the program `make
/// shims` builds from the theme's own code (shims/qt/tests/qt-toolkit-facts.cpp):
/// when a Qt update changes one, this fails naming it, while the theme falls
/// back to leaving the app's menu as it is.
final class QtToolkitFactsTests: XCTestCase {
    private func facts(_ version: Int) throws -> URL {
        let program = Repository.root.appendingPathComponent(".build/shims/qt\(version)/tests/qt-toolkit-facts")
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            if try runTool("pkg-config", ["--exists", "Qt\(version)Widgets"], timeout: 30).status != 0 {
                throw XCTSkip("no Qt \(version) Widgets headers; run scripts/setup")
            }
            throw TestFailure("no \(program.path): run `make shims` to build it")
        }
        return program
    }

    private func run(_ program: URL, _ environment: [String: String] = [:]) throws -> ProcessResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-qt-facts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try runTool(program.path, [], environment: [
            "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": folder.path, "QT_QPA_PLATFORMTHEME": "",
            "QT_PLUGIN_PATH": "", "LANG": "C.UTF-8", "LANGUAGE": "",
        ].merging(environment) { $1 }, timeout: 60)
    }

    private func assertFactsHold(_ version: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try run(try facts(version))
        let failed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("FAILED") }
        XCTAssertEqual(failed, [], "Qt \(version): a detail the theme relies on changed", file: file, line: line)
        XCTAssertEqual(result.status, 0, "Qt \(version):\n\(result.stdout)\(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stdout.contains("done: 0 of "), "Qt \(version): the check did not finish:\n\(result.stdout)\(result.stderr)",
                      file: file, line: line)
    }

    func testQt5HasTheDetailsTheThemeReliesOn() throws {
        try assertFactsHold(5)
    }

    func testQt6HasTheDetailsTheThemeReliesOn() throws {
        try assertFactsHold(6)
    }

    /// With QT_NO_GLIB=1 Qt's loop never iterates GLib's, where the core's
    /// D-Bus callbacks run: the theme sees it, says so under MENUBUS_DEBUG,
    /// and only forwards to the wrapped theme.
    func testWithoutGLibsLoopTheThemeOnlyForwardsAndSaysWhy() throws {
        for version in [5, 6] {
            let program = try facts(version)
            let plugins = Repository.root.appendingPathComponent(".build/shims/qt\(version)")
            let result = try run(program, ["QT_NO_GLIB": "1", "MENUBUS_DEBUG": "1", "QT_QPA_PLATFORMTHEME": "menubus",
                                           "QT_PLUGIN_PATH": plugins.path])
            XCTAssertEqual(result.status, 0, "Qt \(version):\n\(result.stdout)\(result.stderr)")
            XCTAssertTrue(result.stdout.contains("ok: with QT_NO_GLIB the theme sees"), "Qt \(version): \(result.stdout)")
            XCTAssertTrue(result.stderr.contains("menubus-qt: wrapping"), "Qt \(version): the theme loaded and wraps:\n\(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is not GLib's") && result.stderr.contains("the theme only forwards"),
                          "Qt \(version): the theme says why it only forwards:\n\(result.stderr)")
        }
    }
}
