import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusProtocol

/// The GTK 3 module in unmodified Debian programs: mousepad and gedit run
/// under Xvfb with `GTK_MODULES=menubus`, beside menubusd and the bundled
/// providers (activated menubus-provider), driven from the keyboard and
/// read through AT-SPI only (Tests/apps/gtk_app.py). The same programs
/// without the module are the reference for what GTK itself shows.
final class GtkAppTests: DesktopProgramTestCase {
    /// The menus of each program without the module, read once a run.
    nonisolated(unsafe) private static var stockMenus: [String: StockMenus] = [:]

    private static let sentence = "the quick brown fox"
    private static let fieldSentence = "make it louder"
    /// GTK's own edit items, which MenuBus may draw instead but never beside GTK's.
    private static let gtkItems = ["Cut", "Copy", "Paste", "Delete", "Select All", "Undo", "Redo"]

    struct StockMenus {
        let editor: GtkAppDriver.OpenedMenu
        let search: GtkAppDriver.OpenedMenu
    }

    override class func tearDown() {
        stockMenus = [:]
        super.tearDown()
    }

    // MARK: Programs

    /// Skips, naming the Debian package, when a program or tool is missing.
    private func requirePrograms(_ app: String) throws {
        try requireDesktopTools([(GtkAppDriver.apps[app] ?? app, app)])
    }

    /// The module must be built: a missing module fails the test, it does not skip it.
    private func requireModule() throws {
        guard FileManager.default.fileExists(atPath: GtkAppDriver.moduleFile.path) else {
            throw TestFailure("no GTK 3 module at \(GtkAppDriver.moduleFile.path): run `make shims` to build it")
        }
    }

    private func launch(_ app: String, module: Bool, extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        try launchProgram(app, module: module, extraEnvironment: extraEnvironment)
    }

    /// Types the sentence into the editor and selects its last word.
    private func typeAndSelect(_ driver: GtkAppDriver, in widget: String, _ text: String) throws {
        try driver.focus(widget)
        // Ctrl+F puts the editor's selection into the search field: start empty.
        if try !driver.text().isEmpty { try driver.clear() }
        try driver.type(text)
        let word = String(text.split(separator: " ").last ?? "")
        XCTAssertEqual(try driver.selectWordLeft(), word, "\(driver.app) \(widget): the selection read through AT-SPI")
    }

    /// The menus each program shows without the module, after typing and
    /// selecting a word in the editor and in the search field.
    private func stockMenus(_ app: String) throws -> StockMenus {
        if let menus = Self.stockMenus[app] { return menus }
        let driver = try launch(app, module: false)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let editor = try driver.openMenu()
        try driver.closeMenu()
        try typeAndSelect(driver, in: "search", Self.fieldSentence)
        let search = try driver.openMenu()
        try driver.closeMenu()
        driver.stop()
        let menus = StockMenus(editor: editor, search: search)
        Self.stockMenus[app] = menus
        return menus
    }

    // MARK: Without the module: the harness reads what GTK shows

    private func checkStockMenus(_ app: String) throws {
        try requirePrograms(app)
        let driver = try launch(app, module: false)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        XCTAssertEqual(try driver.text("editor"), Self.sentence)
        let editor = try driver.openMenu("shift+F10")
        for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(editor.item(label), "\(app)'s editor menu has \(label): \(editor)")
        }
        XCTAssertEqual(editor.item("Cut")?.sensitive, true, "a word is selected: \(editor)")
        XCTAssertEqual(editor.item("Undo")?.sensitive, true, "typing can be undone: \(editor)")
        XCTAssertEqual(editor.item("Redo")?.sensitive, false, "nothing to redo: \(editor)")
        XCTAssertNil(editor.item("Make Uppercase"), "no MenuBus item without the module: \(editor)")
        XCTAssertEqual(editor.repeatedLabels, [], "\(editor)")
        try driver.closeMenu()

        try typeAndSelect(driver, in: "search", Self.fieldSentence)
        let search = try driver.openMenu("shift+F10")
        for label in ["Cut", "Copy", "Paste", "Delete", "Select All"] {
            XCTAssertNotNil(search.item(label), "\(app)'s search field menu has \(label): \(search)")
        }
        XCTAssertFalse(search.labels.contains { $0.hasPrefix("Undo") }, "GTK 3's entry has no undo: \(search)")
        // Choosing an item through AT-SPI reaches the program.
        try driver.choose("Delete")
        XCTAssertEqual(try driver.text("search"), "make it ")
        XCTAssertEqual(try driver.text("editor"), Self.sentence, "the search field's Delete left the document alone")

        let right = try driver.openMenu("right-click")
        XCTAssertNotNil(right.item("Select All"), "a right click opens the field's menu too: \(right)")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "\(app)'s main loop answers")
    }

    func testMousepadMenusWithoutTheModuleReadThroughAtSpi() throws {
        try checkStockMenus("mousepad")
    }

    func testGeditMenusWithoutTheModuleReadThroughAtSpi() throws {
        try checkStockMenus("gedit")
    }

    // MARK: With the module

    /// MenuBus's items are there, and GTK's own items at most once.
    private func assertMenuBusItems(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                    file: StaticString = #filePath, line: UInt = #line) {
        for label in ["Make Uppercase", "Search Web"] {
            XCTAssertNotNil(menu.item(label), "\(context): \(label) in \(menu)", file: file, line: line)
        }
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): an item twice in \(menu)", file: file, line: line)
        for label in Self.gtkItems {
            XCTAssertLessThanOrEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): \(label) twice in \(menu)",
                                     file: file, line: line)
        }
    }


    /// Chooses the menu's first sensitive "Undo …" item; the menu it was chosen from.
    private func chooseUndo(_ driver: GtkAppDriver, _ context: String) throws -> GtkAppDriver.OpenedMenu? {
        let menu = try driver.openMenu()
        guard let undo = menu.items.first(where: { $0.label.hasPrefix("Undo") && $0.sensitive }) else {
            XCTFail("\(context): no sensitive Undo item in \(menu)")
            try driver.closeMenu()
            return nil
        }
        try driver.choose(undo.name)
        return menu
    }

    private func checkEditorAndSearchField(_ app: String) throws {
        try requirePrograms(app)
        try requireModule()
        let stock = try stockMenus(app)
        _ = try startMenubusd()
        let driver = try launch(app, module: true)

        // The editor: GtkSourceView, with its own undo.
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let editor = try driver.openMenu()
        assertMenuBusItems(editor, "\(app) editor")
        let stockUndo = stock.editor.items.first { $0.label == "Undo" }
        XCTAssertNotNil(stockUndo, "\(app)'s editor shows Undo without the module: \(stock.editor)")
        XCTAssertEqual(editor.items.first { $0.label == "Undo" }, stockUndo,
                       "\(app) editor: GtkSourceView's own Undo as without the module, in \(editor)")
        XCTAssertEqual(editor.labels.filter { $0.hasPrefix("Undo") }, ["Undo"],
                       "\(app) editor: one undo, the editor's own, in \(editor)")
        if editor.item("Make Uppercase") != nil {
            try driver.choose("Make Uppercase")
            XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                           "\(app) editor: Make Uppercase replaced the word")
            if let menu = try chooseUndo(driver, "\(app) editor") {
                XCTAssertEqual(try waitForText(driver, "editor", Self.sentence), Self.sentence,
                               "\(app) editor: Undo from the menu restored the word; chosen from \(menu)")
            }
        } else {
            try driver.closeMenu()
        }

        // The search field: a GtkEntry (gedit: GtkSearchEntry), no undo of its own.
        let document = try driver.text("editor")
        try typeAndSelect(driver, in: "search", Self.fieldSentence)
        let field = try driver.openMenu()
        assertMenuBusItems(field, "\(app) search field")
        XCTAssertNotNil(field.item("Undo Typing"), "\(app) search field: Undo Typing after typing, in \(field)")
        XCTAssertLessThanOrEqual(field.labels.filter { $0.hasPrefix("Undo") }.count, 1, "\(app) search field: \(field)")
        if field.item("Make Uppercase") != nil {
            try driver.choose("Make Uppercase")
            XCTAssertEqual(try waitForText(driver, "search", "make it LOUDER"), "make it LOUDER",
                           "\(app) search field: Make Uppercase replaced the word")
            if let menu = try chooseUndo(driver, "\(app) search field") {
                XCTAssertEqual(try waitForText(driver, "search", Self.fieldSentence), Self.fieldSentence,
                               "\(app) search field: Undo from the menu restored the word; chosen from \(menu)")
            }
        } else {
            try driver.closeMenu()
        }

        // Ctrl+Z in the field undoes its typing, not the document's (both
        // programs bind Ctrl+Z to the document's Undo as a window shortcut).
        let typed = try driver.text("search")
        try driver.key("ctrl+z")
        var undone = typed
        _ = try eventually(timeout: 5) {
            undone = try driver.text("search")
            return undone != typed
        }
        XCTAssertTrue(undone.count < typed.count && typed.hasPrefix(undone),
                      "\(app) search field: Ctrl+Z undid typing: \(typed.debugDescription) became \(undone.debugDescription)")
        XCTAssertEqual(try driver.text("editor"), document, "\(app): Ctrl+Z in the search field left the document alone")
        XCTAssertLessThan(try driver.ping(), 250, "\(app)'s main loop answers")
        // dbus-daemon's own log lines name the programs it activates for the
        // driver, whose path holds "menubus" in a checkout called menubus.
        let said = driver.stderrText.split(separator: "\n")
            .filter { !$0.hasPrefix("dbus-daemon[") && $0.localizedCaseInsensitiveContains("menubus") }
        XCTAssertEqual(said, [], "\(app): the module said nothing on stderr")
    }

    func testMousepadEditorAndSearchFieldShowMenuBusItemsOnce() throws {
        try checkEditorAndSearchField("mousepad")
    }

    func testGeditEditorAndSearchFieldShowMenuBusItemsOnce() throws {
        try checkEditorAndSearchField("gedit")
    }

    // MARK: Live

    /// A menu that is open follows the clipboard: another program copies,
    /// and MenuBus's Paste appears in the open menu; choosing it pastes.
    func testMousepadOpenMenuFollowsTheClipboardAndPastes() throws {
        let app = "mousepad"
        try requirePrograms(app)
        try requireModule()
        _ = try startMenubusd()
        let driver = try launch(app, module: true)
        try typeAndSelect(driver, in: "search", Self.fieldSentence)
        let before = try driver.openMenu()
        assertMenuBusItems(before, "\(app) search field")
        XCTAssertNil(before.item("Paste"), "nothing to paste yet: \(before)")
        try driver.setClipboard("softly")
        var now = before
        let pasteShown = try eventually(timeout: 10) {
            now = try driver.shownMenu()
            return now.item("Paste") != nil
        }
        XCTAssertTrue(pasteShown, "\(app) search field: Paste joined the open menu once the clipboard filled: \(now)")
        XCTAssertEqual(now.repeatedLabels, [], "\(now)")
        XCTAssertLessThanOrEqual(now.labels.filter { $0 == "Paste" }.count, 1, "\(now)")
        guard pasteShown else { return try driver.closeMenu() }
        try driver.choose("Paste")
        XCTAssertEqual(try waitForText(driver, "search", "make it softly"), "make it softly",
                       "\(app) search field: MenuBus's Paste replaced the selected word")
    }

    // MARK: Left out

    /// The contexts menubusd holds, as `menubus-cli contexts --json` lists them.
    private func contextIds() throws -> [String] {
        let result = try bus.run("menubus-cli", ["contexts", "--json"], timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let list = (json as? [[String: Any]]) ?? ((json as? [String: Any])?["contexts"] as? [[String: Any]]) ?? []
        return list.compactMap { $0["context-id"] as? String }
    }

    /// MENUBUS_DISABLE and the per-app list in menubus/integration.conf leave
    /// a program as it is without the module, with the module loaded; the
    /// same program with neither publishes its field.
    func testMousepadIsLeftOutByTheEnvironmentOrThePerAppList() throws {
        let app = "mousepad"
        try requirePrograms(app)
        try requireModule()
        let stock = try stockMenus(app)
        _ = try startMenubusd()
        let config = try Self.root.appendingPathComponent("config-excluding-\(app)")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("menubus"), withIntermediateDirectories: true)
        try "[Exclude]\nApps=gedit;\(app);\n".write(to: config.appendingPathComponent("menubus/integration.conf"),
                                                     atomically: true, encoding: .utf8)
        for (how, environment) in [("MENUBUS_DISABLE=1", ["MENUBUS_DISABLE": "1"]),
                                   // The driver gives the program a home of its own: the list is a system one.
                                   ("[Exclude] Apps= in integration.conf", ["XDG_CONFIG_DIRS": config.path])] {
            let driver = try launch(app, module: true, extraEnvironment: environment)
            try typeAndSelect(driver, in: "editor", Self.sentence)
            let menu = try driver.openMenu()
            XCTAssertEqual(menu.items, stock.editor.items, "\(app) left out by \(how): the menu GTK shows without the module")
            try driver.closeMenu()
            XCTAssertEqual(try contextIds().filter { $0.hasPrefix("gtk3-") }, [], "\(app) left out by \(how): nothing published")
            driver.stop()
        }
        let driver = try launch(app, module: true)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        assertMenuBusItems(try driver.openMenu(), "\(app) with the module on")
        try driver.closeMenu()
        XCTAssertNotEqual(try contextIds().filter { $0.hasPrefix("gtk3-") }, [], "\(app) with the module on publishes its field")
    }

    // MARK: Without menubusd

    /// With menubusd unable to answer, the menu GTK would show opens as it
    /// is, quickly, and the program's main loop keeps answering.
    private func assertStockMenu(_ driver: GtkAppDriver, _ stock: GtkAppDriver.OpenedMenu, _ context: String) throws {
        let menu = try driver.openMenu()
        for label in ["Cut", "Copy", "Paste"] {
            XCTAssertNotNil(menu.item(label), "\(context): GTK's \(label) in \(menu)")
        }
        XCTAssertEqual(menu.items, stock.items, "\(context): the menu GTK shows without the module")
        XCTAssertLessThan(menu.milliseconds, 500, "\(context): the menu opened in \(menu.milliseconds) ms")
        XCTAssertLessThan(try driver.ping(), 250, "\(context): the main loop answers")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "\(context): the main loop answers after the menu")
    }

    private func checkWithoutMenubusd(_ app: String) throws {
        try requirePrograms(app)
        try requireModule()
        let stock = try stockMenus(app)
        var daemon = try startMenubusd()
        let driver = try launch(app, module: true)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        assertMenuBusItems(try driver.openMenu(), "\(app) with menubusd running")
        try driver.closeMenu()

        daemon.signal(SIGSTOP)
        do {
            defer { daemon.signal(SIGCONT) }
            try assertStockMenu(driver, stock.editor, "\(app) with menubusd stopped (SIGSTOP)")
        }
        assertMenuBusItems(try driver.openMenu(), "\(app): the next menu after menubusd continued")
        try driver.closeMenu()

        daemon.signal(SIGKILL)
        _ = try daemon.wait(timeout: 10)
        try assertStockMenu(driver, stock.editor, "\(app) with menubusd killed")
        daemon = try startMenubusd()
        assertMenuBusItems(try driver.openMenu(), "\(app): the next menu after menubusd restarted")
        try driver.closeMenu()
        XCTAssertTrue(daemon.isRunning)
    }

    func testMousepadMenuOpensUnchangedWithMenubusdStoppedOrKilled() throws {
        try checkWithoutMenubusd("mousepad")
    }

    func testGeditMenuOpensUnchangedWithMenubusdStoppedOrKilled() throws {
        try checkWithoutMenubusd("gedit")
    }
}
