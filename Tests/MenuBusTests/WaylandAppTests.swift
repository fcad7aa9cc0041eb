import Foundation
import XCTest
@testable import MenuBus

/// The shims in unmodified programs under a Wayland compositor: each
/// program runs under a headless sway the driver starts for it (as nobody:
/// sway refuses root), with GDK_BACKEND=wayland or QT_QPA_PLATFORM=wayland
/// and no X server at all, beside menubusd and the bundled providers. Keys
/// go through one virtual keyboard (Tests/wayland/mb-vkbd, one keymap for
/// the whole run: GTK 3 reads its shortcuts from the first keymap it saw),
/// a right click becomes the Menu key, and everything is read through
/// AT-SPI (Tests/apps/gtk_app.py --wayland, Tests/apps/wayland_session.py).
final class WaylandAppTests: DesktopProgramTestCase {
    private static let sentence = "the quick brown fox"
    private static let fieldSentence = "make it louder"
    private static let menuBusItems = ["Make Uppercase", "Search Web"]
    /// The toolkits' own edit items, which must never show twice.
    private static let standardItems = ["Undo", "Redo", "Cut", "Copy", "Paste", "Delete", "Select All"]

    static let keyboardHelper = Repository.root.appendingPathComponent(".build/wayland/mb-vkbd")
    /// FocusWriter: a Qt 6 Widgets writing program from Debian whose document is a QTextEdit.
    static let focusWriter = "/usr/bin/focuswriter"

    // MARK: Programs

    /// Skips, naming the Debian package, when sway, the driver's tools or
    /// `programs` are missing; a missing build of the keyboard helper fails.
    private func requireSway(_ programs: [(String, String)] = []) throws {
        try requireDesktopTools([("/usr/bin/sway", "sway"), ("/usr/bin/swaymsg", "sway"), ("/usr/bin/setpriv", "util-linux")]
            + programs)
        guard FileManager.default.isExecutableFile(atPath: Self.keyboardHelper.path) else {
            throw TestFailure("no \(Self.keyboardHelper.path): run `make wayland-helpers` to build the virtual keyboard")
        }
    }

    private func requireBuilt(_ files: [URL]) throws {
        for file in files where !FileManager.default.fileExists(atPath: file.path) {
            throw TestFailure("no \(file.path): run `make shims` to build it")
        }
    }

    /// `app` under a sway of its own, stopped (sway with it) when the test ends.
    private func launch(_ app: String, module: Bool = false, extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        var environment = try bus.environment
        environment["TMPDIR"] = try Self.root.appendingPathComponent("tmp").path
        environment.merge(extraEnvironment) { $1 }
        let driver = try GtkAppDriver(app: app, module: module, environment: environment, wayland: true)
        addTeardownBlock { driver.stop() }
        return driver
    }

    /// A Qt program with the Qt `major` platform theme `make shims` builds.
    private func launchQt(_ app: String, major: Int, extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        let plugins = major == 5 ? QtAppTests.pluginDirectory : QtAppTests.qt6PluginDirectory
        try requireBuilt([plugins.appendingPathComponent("platformthemes/libmenubus.so")])
        return try launch(app, extraEnvironment: [
            "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_QPA_PLATFORMTHEME": "menubus",
            "QT_PLUGIN_PATH": plugins.path, "MENUBUS_DISABLE": "",
        ].merging(extraEnvironment) { $1 })
    }

    /// Types `text` into `widget` and selects its last word from the keyboard.
    private func typeAndSelect(_ driver: GtkAppDriver, in widget: String, _ text: String) throws {
        try driver.focus(widget)
        if try !driver.text().isEmpty { try driver.clear() }
        try driver.type(text)
        let word = String(text.split(separator: " ").last ?? "")
        XCTAssertEqual(try driver.selectWordLeft(), word, "\(driver.app) \(widget): the selection read through AT-SPI")
    }

    /// Opens the focused widget's menu and waits until MenuBus's items are
    /// in it (they may follow a moment after the toolkit's own).
    private func openMenuWithMenuBusItems(_ driver: GtkAppDriver, _ way: String) throws -> GtkAppDriver.OpenedMenu {
        var menu = try driver.openMenu(way)
        _ = try eventually(timeout: 10) {
            menu = try driver.shownMenu()
            return Self.menuBusItems.allSatisfy { menu.item($0) != nil }
        }
        return menu
    }

    /// MenuBus's items are there once each, and the toolkit's at most once.
    private func assertMenuBusItemsOnce(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                        file: StaticString = #filePath, line: UInt = #line) {
        for label in Self.menuBusItems {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): \(label) once in \(menu)", file: file, line: line)
        }
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): an item twice in \(menu)", file: file, line: line)
        for label in Self.standardItems {
            XCTAssertLessThanOrEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): \(label) twice in \(menu)",
                                     file: file, line: line)
        }
    }

    /// Chooses Make Uppercase from the menu showing and waits for `expected` in `widget`.
    private func makeUppercase(_ driver: GtkAppDriver, _ menu: GtkAppDriver.OpenedMenu, in widget: String,
                               expecting expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard menu.item("Make Uppercase") != nil else { return try driver.closeMenu() }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, widget, expected), expected,
                       "\(driver.app) \(widget): Make Uppercase replaced the word, read back through AT-SPI", file: file, line: line)
    }

    /// No shim said anything on stderr (GLib's log domain, the Qt theme's prefix).
    private func assertQuiet(_ driver: GtkAppDriver, file: StaticString = #filePath, line: UInt = #line) {
        let said = driver.stderrText.split(separator: "\n").filter {
            $0.contains("MenuBus-") || $0.contains("libmenubus") || $0.contains("menubus-qt:")
        }
        XCTAssertEqual(said, [], "\(driver.app): the shim said nothing on stderr", file: file, line: line)
    }

    // MARK: GTK 3

    /// mousepad with the GTK 3 module: MenuBus's items once in the editor's
    /// and the search field's menus, Make Uppercase changes the word in
    /// each, and Ctrl+Z (a shortcut GTK 3 reads from the keyboard's first
    /// keymap) undoes it in the search field, leaving the document alone.
    func testMousepadUnderSwayShowsMenuBusItemsOnceAndCtrlZUndoesInTheSearchField() throws {
        try requireSway([("/usr/bin/mousepad", "mousepad")])
        try requireBuilt([GtkAppDriver.moduleFile])
        _ = try startMenubusd()
        let driver = try launch("mousepad", module: true)

        try typeAndSelect(driver, in: "editor", Self.sentence)
        let editor = try openMenuWithMenuBusItems(driver, "shift+F10")
        assertMenuBusItemsOnce(editor, "mousepad editor under sway")
        try makeUppercase(driver, editor, in: "editor", expecting: "the quick brown FOX")

        let document = try driver.text("editor")
        try typeAndSelect(driver, in: "search", Self.fieldSentence)
        let field = try openMenuWithMenuBusItems(driver, "shift+F10")
        assertMenuBusItemsOnce(field, "mousepad search field under sway")
        try makeUppercase(driver, field, in: "search", expecting: "make it LOUDER")
        try driver.key("ctrl+z")
        XCTAssertEqual(try waitForText(driver, "search", Self.fieldSentence, timeout: 5), Self.fieldSentence,
                       "mousepad search field: Ctrl+Z undid Make Uppercase")
        XCTAssertEqual(try driver.text("editor"), document, "Ctrl+Z in the search field left the document alone")
        XCTAssertLessThan(try driver.ping(), 250, "mousepad's main loop answers")
        assertQuiet(driver)
    }

    /// With menubusd stopped (SIGSTOP), typing goes on and mousepad's own
    /// menu opens at once with its own items (MenuBus's may be there too,
    /// read ahead before the stop); once menubusd continues, a menu for the
    /// new selection has MenuBus's items again.
    func testMousepadUnderSwayWithMenubusdStoppedOpensItsOwnMenuAndTypingGoesOn() throws {
        try requireSway([("/usr/bin/mousepad", "mousepad")])
        try requireBuilt([GtkAppDriver.moduleFile])
        let daemon = try startMenubusd()
        let driver = try launch("mousepad", module: true)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        assertMenuBusItemsOnce(try openMenuWithMenuBusItems(driver, "shift+F10"), "menubusd running")
        try driver.closeMenu()

        daemon.signal(SIGSTOP)
        do {
            defer { daemon.signal(SIGCONT) }
            try driver.key("End")
            try driver.type(" jumps")
            XCTAssertEqual(try driver.text("editor"), Self.sentence + " jumps", "menubusd stopped: typing goes on")
            XCTAssertEqual(try driver.selectWordLeft(), "jumps", "menubusd stopped: selecting goes on")
            let menu = try driver.openMenu("shift+F10")
            for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
                XCTAssertNotNil(menu.item(label), "menubusd stopped: mousepad's \(label) in \(menu)")
            }
            XCTAssertEqual(menu.repeatedLabels, [], "menubusd stopped: an item twice in \(menu)")
            XCTAssertLessThan(menu.milliseconds, 500, "menubusd stopped: the menu opened in \(menu.milliseconds) ms")
            try driver.closeMenu()
            try driver.key("End")
            try driver.type(" over")
            XCTAssertEqual(try driver.text("editor"), Self.sentence + " jumps over", "menubusd stopped: typing after the menu")
            XCTAssertLessThan(try driver.ping(), 250, "menubusd stopped: the main loop answers")
        }
        XCTAssertEqual(try driver.selectWordLeft(), "over")
        assertMenuBusItemsOnce(try openMenuWithMenuBusItems(driver, "shift+F10"), "menubusd continued")
        try driver.closeMenu()
        assertQuiet(driver)
    }

    // MARK: GTK 4

    /// MenuBus's GTK 4 example (libmenubus-gtk4): its items once in the
    /// text view's popover, and Make Uppercase changes the word.
    func testGtk4EditorUnderSwayMakeUppercaseOnce() throws {
        try requireSway()
        try requireBuilt([Gtk4EditorTests.example, Gtk4EditorTests.library])
        _ = try startMenubusd()
        let driver = try launch("gtk4-editor", extraEnvironment: ["MENUBUS_GTK4_EDITOR": Gtk4EditorTests.example.path])
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let menu = try openMenuWithMenuBusItems(driver, "shift+F10")
        assertMenuBusItemsOnce(menu, "gtk4-editor under sway")
        XCTAssertEqual(menu.item("Cut")?.sensitive, true, "a word is selected: \(menu)")
        try makeUppercase(driver, menu, in: "editor", expecting: "the quick brown FOX")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
        assertQuiet(driver)
    }

    // MARK: GTK 4 IM module

    /// gnome-text-editor, unmodified, with MenuBus's GTK 4 IM module
    /// (GTK_IM_MODULE=menubus, GTK_PATH its build folder), wrapping the IM
    /// GTK picks under Wayland. GTK's own module folder is an empty one
    /// (GTK_EXE_PREFIX), so an installed module is not loaded instead.
    private func launchGnomeTextEditor() throws -> GtkAppDriver {
        try requireSway([("/usr/bin/gnome-text-editor", "gnome-text-editor")])
        try requireBuilt([Gtk4ImModuleTests.module])
        return try launch("gnome-text-editor", extraEnvironment: [
            "GTK_IM_MODULE": "menubus", "GTK_PATH": Gtk4ImModuleTests.moduleFolder.path,
            "GTK_EXE_PREFIX": try Self.root.appendingPathComponent("tmp/no-gtk-modules").path,
        ])
    }

    /// Typed through the virtual keyboard, the text reads back exactly.
    private func assertTyped(_ driver: GtkAppDriver, _ expected: String, _ context: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try waitForText(driver, "editor", expected, timeout: 5), expected,
                       "\(context): typed text reads back exactly", file: file, line: line)
    }

    /// With menubusd: Make Uppercase and Search Web once each in the
    /// editor's popover beside the app's own items, Make Uppercase changes
    /// the word, and typing reads back exactly before and after.
    func testGnomeTextEditorUnderSwayGetsMenuBusItemsThroughTheImModule() throws {
        try requireSway([("/usr/bin/gnome-text-editor", "gnome-text-editor")])
        _ = try startMenubusd()
        let driver = try launchGnomeTextEditor()
        try typeAndSelect(driver, in: "editor", Self.sentence)
        try assertTyped(driver, Self.sentence, "menubusd running")
        let menu = try openMenuWithMenuBusItems(driver, "shift+F10")
        assertMenuBusItemsOnce(menu, "gnome-text-editor under sway")
        for label in ["Cut", "Copy", "Paste", "Change Case", "Check Spelling"] {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "GTK's and the app's \(label) once in \(menu)")
        }
        try makeUppercase(driver, menu, in: "editor", expecting: "the quick brown FOX")
        try driver.key("End")
        try driver.type(" jumps over")
        try assertTyped(driver, "the quick brown FOX jumps over", "after Make Uppercase")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
        assertQuiet(driver)
    }

    /// Without menubusd (nothing owns its name): the module only forwards;
    /// typing reads back exactly and the menu is the editor's own.
    func testGnomeTextEditorUnderSwayWithoutMenubusdTypesAndShowsItsOwnMenu() throws {
        let driver = try launchGnomeTextEditor()
        try typeAndSelect(driver, in: "editor", Self.sentence)
        try assertTyped(driver, Self.sentence, "menubusd absent")
        let menu = try driver.openMenu("shift+F10")
        for label in ["Cut", "Copy", "Paste", "Change Case"] {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "menubusd absent: \(label) once in \(menu)")
        }
        // MenuBus's items would come a moment later: give them the time.
        _ = try? eventually(timeout: 2) { (try driver.shownMenu()).item("Make Uppercase") != nil }
        for label in Self.menuBusItems {
            XCTAssertNil(try driver.shownMenu().item(label), "menubusd absent: no \(label)")
        }
        try driver.closeMenu()
        try driver.key("End")
        try driver.type(" jumps")
        try assertTyped(driver, Self.sentence + " jumps", "menubusd absent, after the menu")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
        assertQuiet(driver)
    }

    /// With menubusd SIGSTOPped: typing goes on and reads back exactly,
    /// and the editor's menu opens without waiting, its own items once.
    func testGnomeTextEditorUnderSwayWithMenubusdStoppedOpensItsMenuAndTypes() throws {
        try requireSway([("/usr/bin/gnome-text-editor", "gnome-text-editor")])
        let daemon = try startMenubusd()
        let driver = try launchGnomeTextEditor()
        try typeAndSelect(driver, in: "editor", Self.sentence)
        assertMenuBusItemsOnce(try openMenuWithMenuBusItems(driver, "shift+F10"), "menubusd running")
        try driver.closeMenu()

        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        try driver.key("End")
        try driver.type(" jumps over")
        try assertTyped(driver, Self.sentence + " jumps over", "menubusd stopped")
        XCTAssertEqual(try driver.selectWordLeft(), "over", "menubusd stopped: selecting goes on")
        let menu = try driver.openMenu("shift+F10")
        for label in ["Cut", "Copy", "Paste", "Change Case"] {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "menubusd stopped: \(label) once in \(menu)")
        }
        XCTAssertEqual(menu.repeatedLabels, [], "menubusd stopped: an item twice in \(menu)")
        XCTAssertLessThan(menu.milliseconds, 3000, "menubusd stopped: the menu opened in \(menu.milliseconds) ms")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "menubusd stopped: the main loop answers")
    }

    // MARK: Qt

    /// featherpad (Qt 5) with the Qt theme: MenuBus's items in the editor's
    /// menu (the Menu key; Qt 5 cuts a long menu at the screen's bottom,
    /// so only items near the top are expected), and Make Uppercase works.
    func testFeatherpadUnderSwayShowsMenuBusItemsAndMakeUppercaseWorks() throws {
        try requireSway([("/usr/bin/featherpad", "featherpad")])
        _ = try startMenubusd()
        let driver = try launchQt("featherpad", major: 5)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let menu = try openMenuWithMenuBusItems(driver, "menu-key")
        assertMenuBusItemsOnce(menu, "featherpad editor under sway")
        for label in ["Undo", "Cut", "Copy", "Paste"] {
            XCTAssertNotNil(menu.item(label), "Qt's own \(label) kept: \(menu)")
        }
        try makeUppercase(driver, menu, in: "editor", expecting: "the quick brown FOX")
        XCTAssertLessThan(try driver.ping(), 250, "featherpad's main loop answers")
        assertQuiet(driver)
    }

    /// Waits until the focused editor takes keys: FocusWriter drops the
    /// keys of its first seconds (it is still setting up its document),
    /// with nothing in its accessible tree that says when it is done. An
    /// `x` is typed until one arrives, then the editor is emptied.
    private func waitUntilTyping(_ driver: GtkAppDriver, timeout: Double = 30) throws {
        try driver.focus("editor")
        let typing = try eventually(timeout: timeout) {
            try driver.key("x")
            let deadline = Date().addingTimeInterval(0.5)
            while Date() < deadline {
                if try !driver.text("editor").isEmpty { return true }
                usleep(20_000)
            }
            return false
        }
        XCTAssertTrue(typing, "\(driver.app) took no key within \(timeout) s")
        try driver.clear()
    }

    /// FocusWriter, a Qt 6 Widgets program from Debian (its document a
    /// QTextEdit), with the Qt 6 theme: MenuBus's items once in the
    /// document's menu, and Make Uppercase changes the word.
    func testFocusWriterQt6UnderSwayShowsMenuBusItemsAndMakeUppercaseWorks() throws {
        try requireSway([(Self.focusWriter, "focuswriter")])
        _ = try startMenubusd()
        let driver = try launchQt("qt-editor", major: 6, extraEnvironment: ["MENUBUS_QT_EDITOR": Self.focusWriter])
        try waitUntilTyping(driver)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let menu = try openMenuWithMenuBusItems(driver, "menu-key")
        assertMenuBusItemsOnce(menu, "FocusWriter document under sway")
        for label in ["Cut", "Copy", "Paste"] {
            XCTAssertNotNil(menu.item(label), "Qt's own \(label) kept: \(menu)")
        }
        try makeUppercase(driver, menu, in: "editor", expecting: "the quick brown FOX")
        XCTAssertLessThan(try driver.ping(), 250, "FocusWriter's main loop answers")
        assertQuiet(driver)
    }
}
