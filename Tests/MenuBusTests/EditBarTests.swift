import Foundation
import XCTest

/// The edit bar, opt-in ([Edit Bar] of menubus/integration.conf): a word
/// selected with the pointer in mousepad's editor (a GtkSourceView) gets a
/// compact bar over it, drawn by the GTK 3 module as a popover, with the
/// edit commands that apply and the providers' items, then "›". It takes
/// no keyboard focus. Real mousepad under Xvfb, read and clicked through
/// AT-SPI (a tool bar named "Edit Bar" and its push buttons).
final class EditBarTests: DesktopProgramTestCase {
    private static let sentence = "the quick brown fox"

    /// `app` (mousepad unless named) with the module, the sentence typed
    /// into its editor; with `bar`, a config folder of its own whose
    /// integration.conf turns the bar on (the suite's stays without it).
    private func launch(bar: Bool, app: String = "mousepad") throws -> GtkAppDriver {
        try requireDesktopTools([("/usr/bin/\(app)", app)])
        _ = try startMenubusd()
        var environment: [String: String] = ["MENUBUS_DISABLE": ""]
        if bar {
            let config = try Self.root.appendingPathComponent("config-\(UUID().uuidString)")
            let folder = config.appendingPathComponent("menubus")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "[Edit Bar]\nEnabled=true\n".write(to: folder.appendingPathComponent("integration.conf"),
                                                  atomically: true, encoding: .utf8)
            environment["GTK_APP_CONFIG_HOME"] = config.path
        }
        let driver = try launchProgram(app, module: true, extraEnvironment: environment)
        try driver.focus("editor")
        if try !driver.text("editor").isEmpty { try driver.clear() }
        try driver.type(Self.sentence)
        return driver
    }

    /// A double-click on the first word of `widget`: it is `word` once
    /// selected (read back through AT-SPI).
    private func doubleClickFirstWord(_ driver: GtkAppDriver, _ word: String = "the", in widget: String = "editor",
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        try driver.doubleClick()
        var selection = ""
        _ = try eventually(timeout: 5) {
            selection = try driver.selection(widget)
            return selection == word
        }
        XCTAssertEqual(selection, word, "the double-click selected the first word of the \(widget)", file: file, line: line)
    }

    /// `app` with the bar on and the sentence typed, its first word
    /// double-clicked, and the bar shown over it (awaitBar).
    private func launchWithTheBarShown(app: String = "mousepad") throws -> GtkAppDriver {
        let driver = try launch(bar: true, app: app)
        try doubleClickFirstWord(driver)
        _ = try awaitBar(driver)
        return driver
    }

    /// The editor's text becomes `expected`.
    private func assertEditorText(_ driver: GtkAppDriver, _ expected: String, _ message: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try waitForText(driver, "editor", expected), expected, message, file: file, line: line)
    }

    /// The bar once it shows, within 1 s of the selection, with Copy and
    /// Make Uppercase (the provider the suite's user chooses most) and "›".
    private func awaitBar(_ driver: GtkAppDriver) throws -> [String] {
        let bar = try driver.awaitBar()
        XCTAssertLessThan(bar.milliseconds, 1000, "the bar showed within 1 s: \(bar)")
        XCTAssertTrue(bar.labels.contains("Copy"), "Copy in the bar: \(bar.labels)")
        XCTAssertTrue(bar.labels.contains("Make Uppercase"), "Make Uppercase in the bar: \(bar.labels)")
        XCTAssertEqual(bar.labels.last, "More", "the bar ends with its \"›\": \(bar.labels)")
        return bar.labels
    }

    private func awaitNoBar(_ driver: GtkAppDriver, _ context: String) throws {
        XCTAssertTrue(try eventually(timeout: 5) { try driver.bar() == nil }, "\(context): the bar went")
    }

    func testTheBarShowsOverAWordSelectedWithThePointerAndTypingGoesOnIntoTheField() throws {
        let driver = try launch(bar: true)
        try doubleClickFirstWord(driver)
        let labels = try awaitBar(driver)
        XCTAssertEqual(labels.filter { $0 == "Copy" }.count, 1, "Copy once: \(labels)")
        // The bar took no focus: the keys go on into the field, and it closes.
        try driver.type("a")
        try assertEditorText(driver, "a quick brown fox", "the letter typed replaced the selected word in the field")
        try awaitNoBar(driver, "typing")
        try driver.type("n")
        try assertEditorText(driver, "an quick brown fox", "the field kept the keyboard focus")
    }

    func testChoosingFromTheBarRunsTheItemOnTheSelection() throws {
        let driver = try launchWithTheBarShown()
        try driver.chooseFromBar("Make Uppercase")
        try assertEditorText(driver, "THE quick brown fox", "Make Uppercase from the bar changed the word")
        try awaitNoBar(driver, "an item chosen")
    }

    func testEscapeClosesTheBarAndLeavesTheText() throws {
        let driver = try launchWithTheBarShown()
        try driver.key("Escape")
        try awaitNoBar(driver, "Escape")
        XCTAssertEqual(try driver.text("editor"), Self.sentence, "Escape left the text as it was")
    }

    /// "›" opens the field's whole edit menu, with MenuBus's items.
    func testTheBarsMoreButtonOpensTheWholeMenu() throws {
        let driver = try launchWithTheBarShown()
        try driver.chooseFromBar("More")
        var menu = try driver.awaitMenu()
        _ = try eventually(timeout: 5) {
            menu = try driver.shownMenu()
            return menu.item("Make Uppercase") != nil
        }
        XCTAssertNotNil(menu.item("Make Uppercase"), "the whole menu, with MenuBus's items: \(menu)")
        XCTAssertNil(try driver.bar(), "the bar went as the menu opened")
        try driver.closeMenu()
    }

    /// A GtkEntry (mousepad's search field) gets the bar as well.
    func testTheBarShowsOverAnEntry() throws {
        let driver = try launch(bar: true)
        try driver.focus("search")
        try driver.type("hello world")
        try doubleClickFirstWord(driver, "hello", in: "search")
        _ = try awaitBar(driver)
        try driver.key("Escape")
        try awaitNoBar(driver, "Escape in the entry")
    }

    /// A widget that draws its own text (geany's Scintilla view, a field
    /// through ATK) gets the bar too, and an item chosen from it runs.
    func testTheBarShowsOverGeanysScintillaView() throws {
        let driver = try launchWithTheBarShown(app: "geany")
        try driver.chooseFromBar("Make Uppercase")
        try assertEditorText(driver, "THE quick brown fox", "Make Uppercase from the bar changed the word in geany's document")
    }

    /// Off by default: the same selection, and no bar for a fair while.
    func testNoBarWithoutTheSetting() throws {
        let driver = try launch(bar: false)
        try doubleClickFirstWord(driver)
        XCTAssertFalse(try eventually(timeout: 1.5) { try driver.bar() != nil }, "no edit bar without [Edit Bar]")
    }
}
