import Foundation
import XCTest

/// The menu at the caret from anywhere (`menubus-cli show-menu`, what a
/// desktop shortcut runs): the app whose field has the keyboard focus shows
/// its own edit menu there, with MenuBus's items, drawn by its shim; real
/// programs under Xvfb, read through AT-SPI.
final class ShowMenuTests: DesktopProgramTestCase {
    private static let sentence = "the quick brown fox"

    private func showMenu() throws -> ProcessResult {
        try bus.run("menubus-cli", ["show-menu"], timeout: 20)
    }

    /// Runs show-menu while `word` is selected in the focused field, waits
    /// for the menu the app opens (within 1 s of being asked), chooses Make
    /// Uppercase from it and reads the field back.
    private func checkShowMenu(_ driver: GtkAppDriver, widget: String, _ context: String) throws {
        try driver.focus(widget)
        if try !driver.text(widget).isEmpty { try driver.clear() }
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "\(context): the selection read through AT-SPI")
        // The focus reaches menubusd with the field's next (coalesced) update.
        var result = try showMenu()
        _ = try eventually(timeout: 5) {
            if result.status != 0 { result = try self.showMenu() }
            return result.status == 0
        }
        XCTAssertEqual(result.status, 0, "\(context): show-menu: \(result.stdout)\(result.stderr)")
        var menu = try driver.awaitMenu()
        XCTAssertLessThan(menu.milliseconds, 1000, "\(context): the menu showed within 1 s of show-menu's answer")
        _ = try eventually(timeout: 5) {
            menu = try driver.shownMenu()
            return menu.item("Make Uppercase") != nil
        }
        XCTAssertNotNil(menu.item("Make Uppercase"), "\(context): Make Uppercase in the menu show-menu opened: \(menu)")
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): nothing twice in \(menu)")
        guard menu.item("Make Uppercase") != nil else { return try driver.closeMenu() }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, widget, "the quick brown FOX"), "the quick brown FOX",
                       "\(context): Make Uppercase from the menu show-menu opened changed the word")
    }

    func testShowMenuOpensMousepadsEditorMenuAtTheCaret() throws {
        try requireDesktopTools([("/usr/bin/mousepad", "mousepad")])
        _ = try startMenubusd()
        let driver = try launchProgram("mousepad", module: true)
        try checkShowMenu(driver, widget: "editor", "mousepad's editor")
    }

    func testShowMenuOpensFeatherpadsEditorMenuAtTheCaret() throws {
        try requireDesktopTools([("/usr/bin/featherpad", "featherpad")])
        _ = try startMenubusd()
        let driver = try launchProgram("featherpad", module: false, extraEnvironment: [
            "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_QPA_PLATFORMTHEME": "menubus",
            "QT_PLUGIN_PATH": QtAppTests.pluginDirectory.path, "MENUBUS_DISABLE": "",
        ])
        try checkShowMenu(driver, widget: "editor", "featherpad's editor")
    }

    func testShowMenuOpensTheGtk4ExamplesMenuAtTheCaret() throws {
        try requireDesktopTools()
        _ = try startMenubusd()
        let driver = try launchProgram("gtk4-editor", module: false,
                                       extraEnvironment: ["MENUBUS_GTK4_EDITOR": Gtk4EditorTests.example.path])
        try checkShowMenu(driver, widget: "editor", "the GTK 4 example")
    }

    /// No field that takes part has the keyboard focus: a clear message, exit 1.
    func testShowMenuWithNoFocusedFieldSaysSoAndFails() throws {
        _ = try startMenubusd()
        let result = try showMenu()
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("keyboard focus"), "the message says why: \(result.stderr)")
        XCTAssertEqual(result.stdout, "")
    }
}
