import Foundation
import XCTest
@testable import MenuBus

/// Text widgets that draw their own text but expose it to accessibility,
/// in unmodified Debian programs: kwrite's editor view (KTextEditor's
/// KateViewInternal, Qt's accessible text interface) through the Qt
/// platform theme, and geany's (Scintilla, ATK's AtkText and
/// AtkEditableText) through the GTK 3 module. Driven from the keyboard under Xvfb and read through
/// AT-SPI only (Tests/apps/gtk_app.py); the theme's MENUBUS_DEBUG lines
/// are read only to check the KXMLGUI action names it relies on.
final class AccessibleTextTests: DesktopProgramTestCase {
    private static let sentence = "the quick brown fox"
    /// The standard items MenuBus leaves to the app's menu.
    private static let standardItems = ["Undo", "Redo", "Cut", "Copy", "Paste", "Delete", "Select All"]

    private func requireKwrite() throws {
        try requireDesktopTools([("/usr/bin/kwrite", "kwrite")])
        if !FileManager.default.fileExists(atPath: QtAppTests.pluginFile.path) {
            throw TestFailure("no Qt 5 platform theme at \(QtAppTests.pluginFile.path): run `make shims` to build it")
        }
    }

    /// kwrite on a file of the driver's HOME, with or without the theme.
    private func launchKwrite(theme: Bool) throws -> GtkAppDriver {
        var environment = ["QT_QPA_PLATFORMTHEME": "", "MENUBUS_DISABLE": "", "MENUBUS_DEBUG": "1"]
        if theme {
            environment["QT_QPA_PLATFORMTHEME"] = "menubus"
            environment["QT_PLUGIN_PATH"] = QtAppTests.pluginDirectory.path
        }
        return try launchProgram("kwrite", module: false, extraEnvironment: environment)
    }

    /// Types the sentence into the editor view and selects its last word.
    private func typeAndSelect(_ driver: GtkAppDriver) throws {
        try driver.focus("editor")
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "kwrite: the selection read through AT-SPI")
    }

    private func assertStandardItemsOnce(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): an item twice in \(menu)", file: file, line: line)
        for label in Self.standardItems {
            XCTAssertLessThanOrEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): \(label) twice in \(menu)",
                                     file: file, line: line)
        }
    }

    func testKwriteEditorMenuWithoutTheThemeIsKwritesOwn() throws {
        try requireKwrite()
        _ = try startMenubusd()
        let driver = try launchKwrite(theme: false)
        try typeAndSelect(driver)
        let menu = try driver.openMenu("menu-key")
        for label in ["Cut", "Copy", "Paste"] {
            XCTAssertNotNil(menu.item(label), "kwrite's own \(label): \(menu)")
        }
        for label in ["Make Uppercase", "Search Web", "Translate"] {
            XCTAssertNil(menu.item(label), "no MenuBus item without the theme: \(menu)")
        }
        assertStandardItemsOnce(menu, "kwrite without the theme")
        try driver.closeMenu()
    }

    /// MenuBus's items join KTextEditor's own menu once each, its standard
    /// items (kwrite's) once; Make Uppercase replaces the word in the
    /// document as one step of kwrite's own undo, which Ctrl+Z undoes.
    func testKwriteEditorMenuHasMenuBusItemsOnceAndKwritesUndoRestoresMakeUppercase() throws {
        try requireKwrite()
        _ = try startMenubusd()
        let driver = try launchKwrite(theme: true)
        try typeAndSelect(driver)
        let menu = try driver.openMenu("menu-key")
        for label in ["Make Uppercase", "Search Web"] {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "MenuBus's \(label) once in kwrite's menu: \(menu)")
        }
        for label in ["Cut", "Copy", "Paste"] {
            XCTAssertNotNil(menu.item(label), "kwrite's own \(label) kept: \(menu)")
        }
        assertStandardItemsOnce(menu, "kwrite with the theme")
        assertKXMLGUINamesHold(driver)
        guard menu.item("Make Uppercase") != nil else {
            try driver.closeMenu()
            return
        }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase replaced the selected word in kwrite's document")
        XCTAssertEqual(try driver.selection("editor"), "FOX", "the new text is selected")
        try driver.key("ctrl+z")
        XCTAssertEqual(try waitForText(driver, "editor", Self.sentence), Self.sentence,
                       "kwrite's own Undo (Ctrl+Z) restored the word in one step")
        // Again, through the menu: the items come once more.
        try driver.key("End")
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "the word selected again")
        let again = try driver.openMenu("menu-key")
        XCTAssertEqual(again.labels.filter { $0 == "Make Uppercase" }.count, 1, "a second menu: \(again)")
        assertStandardItemsOnce(again, "kwrite's second menu")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "kwrite's main loop answers")
    }

    /// With menubusd not running the theme asks nothing: kwrite's menu is its own.
    func testKwriteEditorMenuWithoutMenubusdIsKwritesOwn() throws {
        try requireKwrite()
        let driver = try launchKwrite(theme: true)
        try typeAndSelect(driver)
        let menu = try driver.openMenu("menu-key")
        XCTAssertNotNil(menu.item("Copy"), "kwrite's own Copy: \(menu)")
        XCTAssertNil(menu.item("Make Uppercase"), "no MenuBus item without menubusd: \(menu)")
        assertStandardItemsOnce(menu, "kwrite without menubusd")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "kwrite's main loop answers")
    }

    private func requireGeany() throws {
        try requireDesktopTools([("/usr/bin/geany", "geany")])
        if !FileManager.default.fileExists(atPath: GtkAppDriver.moduleFile.path) {
            throw TestFailure("no GTK 3 module at \(GtkAppDriver.moduleFile.path): run `make shims` to build it")
        }
    }

    func testGeanyEditorMenuWithoutTheModuleIsGeanysOwn() throws {
        try requireGeany()
        _ = try startMenubusd()
        let driver = try launchProgram("geany", module: false, extraEnvironment: ["MENUBUS_DISABLE": ""])
        try typeAndSelect(driver)
        let menu = try driver.openMenu("right-click")
        for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(menu.item(label), "geany's own \(label): \(menu)")
        }
        XCTAssertNil(menu.item("Make Uppercase"), "no MenuBus item without the module: \(menu)")
        assertStandardItemsOnce(menu, "geany without the module")
        try driver.closeMenu()
    }

    /// MenuBus's items join geany's own menu over its Scintilla view once
    /// each, geany's standard items once; Make Uppercase replaces the word
    /// through ATK as one step of Scintilla's undo, which Ctrl+Z undoes
    /// (the module brackets the deletion and insertion with Scintilla's
    /// SCI_BEGINUNDOACTION through the scintilla_send_message geany
    /// exports: where that changes, this fails on two steps).
    func testGeanyEditorMenuHasMenuBusItemsOnceAndGeanysUndoRestoresMakeUppercase() throws {
        try requireGeany()
        _ = try startMenubusd()
        let driver = try launchProgram("geany", module: true, extraEnvironment: ["MENUBUS_DISABLE": ""])
        try typeAndSelect(driver)
        let menu = try driver.openMenu("right-click")
        for label in ["Make Uppercase", "Search Web"] {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "MenuBus's \(label) once in geany's menu: \(menu)")
        }
        for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(menu.item(label), "geany's own \(label) kept: \(menu)")
        }
        assertStandardItemsOnce(menu, "geany with the module")
        guard menu.item("Make Uppercase") != nil else {
            try driver.closeMenu()
            return
        }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase replaced the selected word in geany's document")
        XCTAssertEqual(try driver.selection("editor"), "FOX", "the new text is selected")
        try driver.key("ctrl+z")
        XCTAssertEqual(try waitForText(driver, "editor", Self.sentence), Self.sentence,
                       "geany's own Undo (Ctrl+Z) restored the word in one step")
        // Again, from the Menu key.
        try driver.key("End")
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "the word selected again")
        let again = try driver.openMenu("menu-key")
        XCTAssertEqual(again.labels.filter { $0 == "Make Uppercase" }.count, 1, "a second menu: \(again)")
        assertStandardItemsOnce(again, "geany's second menu")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "geany's main loop answers")
    }

    /// `menubus-cli show-menu` (a desktop shortcut) while the word is
    /// selected: the app's own menu opens over the widget with MenuBus's
    /// items, and Make Uppercase from it changes the word.
    private func checkShowMenu(_ driver: GtkAppDriver, _ context: String) throws {
        try typeAndSelect(driver)
        var result = try bus.run("menubus-cli", ["show-menu"], timeout: 20)
        _ = try eventually(timeout: 5) {
            if result.status != 0 { result = try self.bus.run("menubus-cli", ["show-menu"], timeout: 20) }
            return result.status == 0
        }
        XCTAssertEqual(result.status, 0, "\(context): show-menu: \(result.stdout)\(result.stderr)")
        var menu = try driver.awaitMenu()
        _ = try eventually(timeout: 5) {
            menu = try driver.shownMenu()
            return menu.item("Make Uppercase") != nil
        }
        XCTAssertEqual(menu.labels.filter { $0 == "Make Uppercase" }.count, 1, "\(context): the menu show-menu opened: \(menu)")
        assertStandardItemsOnce(menu, context)
        guard menu.item("Make Uppercase") != nil else { return try driver.closeMenu() }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "\(context): Make Uppercase from the menu show-menu opened changed the word")
    }

    func testShowMenuOpensKwritesEditorMenuWithMenuBusItems() throws {
        try requireKwrite()
        _ = try startMenubusd()
        try checkShowMenu(try launchKwrite(theme: true), "kwrite's editor")
    }

    func testShowMenuOpensGeanysEditorMenuWithMenuBusItems() throws {
        try requireGeany()
        _ = try startMenubusd()
        try checkShowMenu(try launchProgram("geany", module: true, extraEnvironment: ["MENUBUS_DISABLE": ""]), "geany's editor")
    }

    /// The KXMLGUI detail the theme relies on (KStandardAction's names, read
    /// by the theme in kwrite's menu or window): fails naming the one missing.
    private func assertKXMLGUINamesHold(_ driver: GtkAppDriver, file: StaticString = #filePath, line: UInt = #line) {
        let marker = "app menu recognised over KateViewInternal: "
        guard let found = driver.stderrText.split(separator: "\n").last(where: { $0.contains(marker) }) else {
            XCTFail("the theme did not recognise kwrite's menu (no action named edit_copy, edit_cut or edit_paste?):\n"
                    + driver.diagnostics, file: file, line: line)
            return
        }
        for name in ["edit_copy", "edit_cut", "edit_paste"] {
            XCTAssertTrue(found.contains("\(name) (menu)"), "KTextEditor's menu holds \(name): \(found)", file: file, line: line)
        }
        for name in ["edit_select_all", "edit_undo", "edit_redo"] {
            XCTAssertFalse(found.contains("\(name) (missing)"), "kwrite has an action named \(name): \(found)",
                           file: file, line: line)
        }
    }
}
