import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusProtocol

/// The GTK 4 library in its example, examples/gtk4-editor, as `make shims`
/// builds it: under Xvfb beside menubusd and the bundled providers
/// (activated menubus-provider), driven from the keyboard and read through
/// AT-SPI only (Tests/apps/gtk_app.py, as for mousepad and gedit).
///
/// GTK 4.8 exposes a GtkTextView's GtkPopoverMenu to AT-SPI (a `menu`
/// child of the text view whose items are `menu item`s nested in panels),
/// but not a GtkEntry's: the entry's GtkText, which parents the popover,
/// is not in the accessible tree. So the menus are read in the text view.
final class Gtk4EditorTests: DesktopProgramTestCase {
    private static let app = "gtk4-editor"
    private static let sentence = "the quick brown fox"
    /// GTK 4.8's own items in a text view's menu.
    private static let gtkItems = ["Cut", "Copy", "Paste", "Delete", "Undo", "Redo", "Select All", "Insert Emoji"]
    private static let menuBusItems = ["Make Uppercase", "Search Web"]

    private static let buildFolder = Repository.root.appendingPathComponent(".build/shims/gtk4")
    static let example = buildFolder.appendingPathComponent("gtk4-editor")
    static let library = buildFolder.appendingPathComponent("libmenubus-gtk4.so.0")

    // MARK: Programs

    /// Skips, naming the Debian package, when a tool is missing; a missing
    /// build of the library or the example fails.
    private func requirements() throws {
        try requireDesktopTools()
        for file in [Self.library, Self.example] where !FileManager.default.fileExists(atPath: file.path) {
            throw TestFailure("no \(file.path): run `make shims` to build the GTK 4 library and its example")
        }
    }

    private func launch(extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        try launchProgram(Self.app, module: false,
                          extraEnvironment: ["MENUBUS_GTK4_EDITOR": Self.example.path].merging(extraEnvironment) { $1 })
    }

    /// Types the sentence into the text view and selects its last word.
    private func typeAndSelect(_ driver: GtkAppDriver) throws {
        try driver.focus("editor")
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "the selection read through AT-SPI")
    }

    /// Opens the text view's menu with Shift+F10 and waits until MenuBus's
    /// items are in it (they follow live, so they may come a moment after
    /// GTK's own); the menu as last read.
    private func openMenuWithMenuBusItems(_ driver: GtkAppDriver, timeout: Double = 10) throws -> GtkAppDriver.OpenedMenu {
        var menu = try driver.openMenu("shift+F10")
        _ = try eventually(timeout: timeout) {
            menu = try driver.shownMenu()
            return Self.menuBusItems.allSatisfy { menu.item($0) != nil }
        }
        return menu
    }

    private func assertMenuBusItems(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                    file: StaticString = #filePath, line: UInt = #line) {
        for label in Self.menuBusItems {
            XCTAssertNotNil(menu.item(label), "\(context): \(label) in \(menu)", file: file, line: line)
        }
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): an item twice in \(menu)", file: file, line: line)
        for label in Self.gtkItems {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): GTK's \(label) once in \(menu)",
                           file: file, line: line)
        }
    }

    /// GTK's own menu: its items, and none of MenuBus's.
    private func assertStockMenu(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(menu.labels, Self.gtkItems, "\(context): GTK 4's own menu, as it is: \(menu)", file: file, line: line)
    }

    private func assertQuiet(_ driver: GtkAppDriver, file: StaticString = #filePath, line: UInt = #line) {
        // GLib's log lines carry the domain: "(gtk4-editor:42): MenuBus-WARNING **: …".
        let said = driver.diagnostics.split(separator: "\n").filter { $0.contains("MenuBus-") || $0.contains("libmenubus-gtk4") }
        XCTAssertEqual(said, [], "the library said nothing on stderr", file: file, line: line)
    }

    // MARK: Tests

    /// MENUBUS_DISABLE=1: attach returns FALSE and the menu is GTK 4's own
    /// (the reference for the tests below).
    func testGtk4EditorTurnedOffShowsGtksOwnMenu() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launch(extraEnvironment: ["MENUBUS_DISABLE": "1"])
        try typeAndSelect(driver)
        let menu = try driver.openMenu("shift+F10")
        assertStockMenu(menu, "MENUBUS_DISABLE=1")
        try driver.closeMenu()
    }

    /// Make Uppercase and Search Web join GTK 4's popover menu, each of
    /// GTK's items stays once, and choosing Make Uppercase changes the word.
    func testGtk4EditorMenuHasMenuBusItemsOnceAndMakeUppercaseWorks() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launch()
        try typeAndSelect(driver)
        let menu = try openMenuWithMenuBusItems(driver)
        assertMenuBusItems(menu, "gtk4-editor text view")
        XCTAssertEqual(menu.item("Cut")?.sensitive, true, "a word is selected: \(menu)")
        guard menu.item("Make Uppercase") != nil else { return try driver.closeMenu() }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase replaced the word, read back through AT-SPI")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
        assertQuiet(driver)
    }

    /// With menubusd killed, GTK 4's own menu opens as it is and the main
    /// loop answers; once menubusd is back, the items are too.
    func testGtk4EditorMenuWithoutMenubusdAndAfterItRestarts() throws {
        try requirements()
        var daemon = try startMenubusd()
        let driver = try launch()
        try typeAndSelect(driver)
        assertMenuBusItems(try openMenuWithMenuBusItems(driver), "with menubusd running")
        try driver.closeMenu()

        daemon.signal(SIGKILL)
        _ = try daemon.wait(timeout: 10)
        // The library hears menubusd go (its name's owner) and takes its
        // section out; the menu opened after that is GTK's own.
        var menu = try driver.openMenu("shift+F10")
        if menu.item("Make Uppercase") != nil {
            try driver.closeMenu()
            _ = try eventually(timeout: 10) {
                menu = try driver.openMenu("shift+F10")
                defer { try? driver.closeMenu() }
                return menu.item("Make Uppercase") == nil
            }
        } else {
            try driver.closeMenu()
        }
        assertStockMenu(menu, "with menubusd killed")
        XCTAssertLessThan(menu.milliseconds, 500, "the menu opened in \(menu.milliseconds) ms")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers with menubusd gone")

        daemon = try startMenubusd()
        // The focused text view presents again when menubusd takes its name.
        var back = menu
        _ = try eventually(timeout: 20) {
            back = try driver.openMenu("shift+F10")
            defer { try? driver.closeMenu() }
            return Self.menuBusItems.allSatisfy { back.item($0) != nil }
        }
        assertMenuBusItems(back, "after menubusd restarted")
        XCTAssertTrue(daemon.isRunning)
        assertQuiet(driver)
    }

    // MARK: The toolbar's Back button

    private func waitForTitle(_ driver: GtkAppDriver, endingWith place: String) throws -> String {
        var title = ""
        _ = try eventually(timeout: 10) {
            title = try driver.title()
            return title.hasSuffix("— " + place)
        }
        return title
    }

    /// Visits `places` from the search field (Return goes to what it holds).
    private func visit(_ driver: GtkAppDriver, _ places: [String]) throws {
        try driver.focus("search")
        for place in places {
            try driver.type(place)
            try driver.key("Return")
            _ = try waitForTitle(driver, endingWith: place)
        }
    }

    /// The Back button is a MenuBus `history` button: a tap runs its
    /// primary action (menubusd sends `go-back` back as ActionInvoked), a
    /// right click and press and hold present its menu, whose deferred
    /// element lists the places visited before, most recent first, asked
    /// for at every presentation; choosing one goes there.
    func testGtk4EditorBackButtonTapsBackAndHoldsItsHistory() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launch()
        XCTAssertTrue(try waitForTitle(driver, endingWith: "Home").hasPrefix("MenuBus GTK 4 Editor"))
        try visit(driver, ["News", "Weather", "Sports"])

        try driver.click("Back")
        XCTAssertTrue(try waitForTitle(driver, endingWith: "Weather").hasSuffix("Weather"), "a tap went back one place")

        try driver.target("Back")
        var menu = try driver.openMenu("right-click")
        _ = try eventually(timeout: 10) {
            menu = try driver.shownMenu()
            return menu.labels == ["News", "Home"]
        }
        XCTAssertEqual(menu.labels, ["News", "Home"], "the places before Weather, most recent first: \(menu)")
        try driver.choose("Home")
        XCTAssertTrue(try waitForTitle(driver, endingWith: "Home").hasSuffix("Home"), "the chosen place")

        // Asked again at the next presentation: the history as it is now.
        try visit(driver, ["Maps", "Music"])
        var held = try driver.hold("Back")
        _ = try eventually(timeout: 10) {
            held = try driver.shownMenu()
            return held.labels == ["Maps", "Home"]
        }
        XCTAssertEqual(held.labels, ["Maps", "Home"], "press and hold: \(held)")
        try driver.closeMenu()
        XCTAssertTrue(try driver.title().hasSuffix("Music"), "holding is not also a tap")
        assertQuiet(driver)
    }
}
