import Foundation
import XCTest

/// The edit bar in an unmodified Qt Widgets program (featherpad, Qt 5,
/// with the theme under Xvfb): turned on in [Edit Bar] of the program's
/// menubus/integration.conf, a word selected with a double click gets a
/// compact bar of Qt tool buttons over it (role tool bar named "Edit Bar",
/// read and clicked through AT-SPI) that never takes the keyboard focus;
/// off by default.
final class QtEditBarTests: DesktopProgramTestCase {
    private static let sentence = "the quick brown fox"

    private func requirements() throws {
        try requireDesktopTools([("/usr/bin/featherpad", "featherpad")])
        guard FileManager.default.fileExists(atPath: QtAppTests.pluginFile.path) else {
            throw TestFailure("no Qt 5 platform theme at \(QtAppTests.pluginFile.path): run `make shims` to build it")
        }
    }

    /// featherpad with the theme; `bar` writes `[Edit Bar] Enabled=true` to
    /// its own config folder (the driver gives the program that folder as
    /// XDG_CONFIG_HOME through GTK_APP_CONFIG_HOME).
    private func launchFeatherpad(bar: Bool) throws -> GtkAppDriver {
        try launchQt("featherpad", bar: bar)
    }

    private func launchQt(_ app: String, bar: Bool, wayland: Bool = false,
                          extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        var environment = ["QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                           "QT_QPA_PLATFORMTHEME": "menubus", "QT_PLUGIN_PATH": QtAppTests.pluginDirectory.path,
                           "MENUBUS_DISABLE": ""].merging(extraEnvironment) { $1 }
        if bar {
            let config = try Self.root.appendingPathComponent("tmp/config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: config.appendingPathComponent("menubus"),
                                                    withIntermediateDirectories: true)
            try "[Edit Bar]\nEnabled=true\n".write(to: config.appendingPathComponent("menubus/integration.conf"),
                                                  atomically: true, encoding: .utf8)
            environment["GTK_APP_CONFIG_HOME"] = config.path
        }
        guard wayland else { return try launchProgram(app, module: false, extraEnvironment: environment) }
        var all = try bus.environment
        all["TMPDIR"] = try Self.root.appendingPathComponent("tmp").path
        all.merge(environment) { $1 }
        all["MENUBUS_WAYLAND_POINTER"] = "1"
        let driver = try GtkAppDriver(app: app, module: false, environment: all, wayland: true)
        addTeardownBlock { driver.stop() }
        return driver
    }

    /// The sentence in the editor, then a double click on a word of it
    /// (the driver clicks near the editor's left edge halfway down: below
    /// the one line, so the line's last word), read back as the selection.
    @discardableResult
    private func typeAndDoubleClick(_ driver: GtkAppDriver, in widget: String = "editor") throws -> String {
        try driver.focus(widget)
        if try !driver.text(widget).isEmpty { try driver.clear() }
        try driver.type(Self.sentence)
        return try doubleClickWord(driver, in: widget)
    }

    /// A double click on the focused `widget`; the word it selected.
    private func doubleClickWord(_ driver: GtkAppDriver, in widget: String = "editor") throws -> String {
        try driver.doubleClick()
        let words = try driver.text(widget).split(separator: " ").map(String.init)
        var selected = ""
        _ = try eventually(timeout: 5) {
            selected = try driver.selection(widget)
            return words.contains(selected)
        }
        XCTAssertTrue(words.contains(selected), "the double click selected a word of \(words): '\(selected)'")
        return selected
    }

    /// The editor's text with `word` (its last occurrence) replaced.
    private func replacing(_ word: String, with replacement: String, in text: String) -> String {
        guard let range = text.range(of: word, options: .backwards) else { return text }
        return text.replacingCharacters(in: range, with: replacement)
    }

    /// The bar (shown) lies just above the selected word (`below`: just
    /// below it), over it.
    private func assertJustAboveTheSelection(_ driver: GtkAppDriver, below: Bool = false,
                                             file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try driver.send("await-bar")
        let bar = (answer["extents"] as? [NSNumber])?.map(\.intValue) ?? []
        let word = (answer["selection_extents"] as? [NSNumber])?.map(\.intValue) ?? []
        guard bar.count == 4, word.count == 4, word[2] > 0 else {
            return XCTFail("the bar's and the selection's extents: \(answer)", file: file, line: line)
        }
        let gap = below ? bar[1] - (word[1] + word[3]) : word[1] - (bar[1] + bar[3])
        XCTAssertTrue((0...24).contains(gap), "the bar \(bar) is \(gap) px \(below ? "below" : "above") the word \(word)",
                      file: file, line: line)
        let middle = word[0] + word[2] / 2
        XCTAssertTrue(bar[0] <= middle && middle <= bar[0] + bar[2], "the bar \(bar) is over the word \(word)",
                      file: file, line: line)
    }

    private func barGone(_ driver: GtkAppDriver) throws -> Bool {
        try eventually(timeout: 5) { try driver.bar() == nil }
    }

    /// featherpad with the bar on, menubusd running, the sentence typed and
    /// a word of it double-clicked, the bar shown: the word.
    private func featherpadWithTheBarShown() throws -> (driver: GtkAppDriver, word: String) {
        try requirements()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(bar: true)
        let word = try typeAndDoubleClick(driver)
        _ = try driver.awaitBar()
        return (driver, word)
    }

    /// Each of `labels` is in the bar shown (`what` names it in messages).
    private func assertBar(_ shown: (labels: [String], milliseconds: Double), has labels: [String], _ what: String = "the bar",
                           file: StaticString = #filePath, line: UInt = #line) {
        for label in labels {
            XCTAssertTrue(shown.labels.contains(label), "\(label) in \(what): \(shown.labels)", file: file, line: line)
        }
    }

    /// The `widget`'s text becomes `expected`.
    private func assertText(_ driver: GtkAppDriver, _ expected: String, _ message: String, in widget: String = "editor",
                            file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try waitForText(driver, widget, expected), expected, message, file: file, line: line)
    }

    /// Make Uppercase chosen from the bar shown over `word`: the editor's
    /// `text` with the word in capitals, which the editor then holds.
    @discardableResult
    private func makeUppercaseFromTheBar(_ driver: GtkAppDriver, word: String, in text: String, _ message: String,
                                         file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try driver.chooseFromBar("Make Uppercase")
        let upper = replacing(word, with: word.uppercased(), in: text)
        try assertText(driver, upper, message, file: file, line: line)
        return upper
    }

    /// A letter typed while the bar shows over `word`: it replaces the word
    /// in the editor (the bar took no focus) and closes the bar. The text.
    @discardableResult
    private func typeOverTheBar(_ driver: GtkAppDriver, word: String, in text: String, _ message: String,
                                file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let typed = replacing(word, with: "a", in: text)
        try driver.type("a")
        try assertText(driver, typed, message, file: file, line: line)
        XCTAssertTrue(try barGone(driver), "typing closed the bar", file: file, line: line)
        return typed
    }

    /// The acceptance: Copy and Make Uppercase within 1 s of the double
    /// click; a letter typed goes into the field (the bar took no focus)
    /// and closes it; Make Uppercase from the bar changes the word.
    func testTheBarShowsOverADoubleClickedWordTakesNoFocusAndItsItemsWork() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(bar: true)
        let word = try typeAndDoubleClick(driver)
        let shown = try driver.awaitBar()
        XCTAssertLessThan(shown.milliseconds, 1000, "the bar showed within 1 s: \(shown)")
        assertBar(shown, has: ["Copy", "Make Uppercase"])
        XCTAssertEqual(shown.labels.last, "More", "the bar ends with › (More): \(shown.labels)")
        XCTAssertEqual(Set(shown.labels).count, shown.labels.count, "nothing twice in the bar: \(shown.labels)")
        try assertJustAboveTheSelection(driver)

        let typed = try typeOverTheBar(driver, word: word, in: Self.sentence,
                                       "the letter replaced the selected word in the field: the bar took no focus")

        let again = try doubleClickWord(driver)
        _ = try driver.awaitBar()
        try makeUppercaseFromTheBar(driver, word: again, in: typed, "Make Uppercase from the bar changed the word")
        XCTAssertTrue(try barGone(driver), "choosing from the bar closed it")
        XCTAssertLessThan(try driver.ping(), 250, "featherpad's main loop answers")
    }

    /// Escape closes the bar and nothing else: the selection stays, the
    /// text too.
    func testEscapeClosesTheBar() throws {
        let (driver, word) = try featherpadWithTheBarShown()
        try driver.key("Escape")
        XCTAssertTrue(try barGone(driver), "Escape closed the bar")
        XCTAssertEqual(try driver.text("editor"), Self.sentence)
        XCTAssertEqual(try driver.selection("editor"), word, "the selection stays after Escape")
    }

    /// A turn of the mouse wheel over the editor closes the bar; the
    /// selection stays.
    func testScrollingClosesTheBar() throws {
        let (driver, word) = try featherpadWithTheBarShown()
        try driver.send("scroll")
        XCTAssertTrue(try barGone(driver), "the wheel closed the bar")
        XCTAssertEqual(try driver.selection("editor"), word, "the selection stays after the wheel")
    }

    /// "›" closes the bar and opens the editor's whole edit menu, MenuBus's
    /// items in it.
    func testMoreOpensTheWholeEditMenu() throws {
        let driver = try featherpadWithTheBarShown().driver
        try driver.chooseFromBar("More")
        var menu = try driver.awaitMenu()
        _ = try eventually(timeout: 5) {
            menu = try driver.shownMenu()
            return menu.item("Make Uppercase") != nil
        }
        XCTAssertNotNil(menu.item("Make Uppercase"), "MenuBus's items in the menu › opened: \(menu)")
        XCTAssertNotNil(menu.item("Copy"), "Qt's own items in it: \(menu)")
        XCTAssertNil(try driver.bar(), "the bar closed as the menu opened")
        try driver.closeMenu()
    }

    /// A QLineEdit (featherpad's search field) gets the bar over its word
    /// too; Copy from the bar is QLineEdit's own: Ctrl+V pastes the word.
    func testTheBarOverALineEditAndItsCopy() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(bar: true)
        let word = try typeAndDoubleClick(driver, in: "search")
        let shown = try driver.awaitBar()
        assertBar(shown, has: ["Cut", "Copy", "Paste", "Make Uppercase"], "the search field's bar")
        try assertJustAboveTheSelection(driver)
        try driver.chooseFromBar("Copy")
        XCTAssertTrue(try barGone(driver), "choosing Copy closed the bar")
        try driver.key("End")
        try driver.key("ctrl+v")
        try assertText(driver, Self.sentence + word, "the bar's Copy copied the word", in: "search")
    }

    /// kwrite's editor view draws its own text (the theme follows it through
    /// Qt's accessible text interface): the bar shows over its word too,
    /// without the focus, and its Make Uppercase changes the word.
    func testTheBarOverKwritesEditorView() throws {
        try requirements()
        try requireDesktopTools([("/usr/bin/kwrite", "kwrite")])
        _ = try startMenubusd()
        let driver = try launchQt("kwrite", bar: true)
        try driver.focus("editor")
        try driver.type(Self.sentence)
        let word = try doubleClickWord(driver)
        let shown = try driver.awaitBar()
        assertBar(shown, has: ["Copy", "Make Uppercase"], "kwrite's bar")
        try assertJustAboveTheSelection(driver)
        try makeUppercaseFromTheBar(driver, word: word, in: Self.sentence, "Make Uppercase from the bar in kwrite")
        _ = try doubleClickWord(driver)
        _ = try driver.awaitBar()
        try typeOverTheBar(driver, word: word, in: Self.sentence, "the letter went into kwrite's view")
    }

    /// Under Wayland (a headless sway, Qt's wayland platform, the pointer a
    /// virtual one): the bar is a popup of the window, shows over the word
    /// without the focus, and its buttons take clicks.
    func testTheBarUnderWayland() throws {
        try requirements()
        try requireDesktopTools([("/usr/bin/sway", "sway"), ("/usr/bin/swaymsg", "sway"), ("/usr/bin/setpriv", "util-linux")])
        for helper in ["mb-vkbd", "mb-vptr"] {
            let path = Repository.root.appendingPathComponent(".build/wayland/\(helper)").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("no \(path): run `make wayland-helpers` to build it")
            }
        }
        _ = try startMenubusd()
        let driver = try launchQt("featherpad", bar: true, wayland: true)
        let word = try typeAndDoubleClick(driver)
        let shown = try driver.awaitBar()
        XCTAssertLessThan(shown.milliseconds, 1000, "the bar showed within 1 s: \(shown)")
        assertBar(shown, has: ["Copy", "Make Uppercase"])
        try assertJustAboveTheSelection(driver)
        let typed = try typeOverTheBar(driver, word: word, in: Self.sentence, "the letter went into the field")

        let again = try doubleClickWord(driver)
        _ = try driver.awaitBar()
        try makeUppercaseFromTheBar(driver, word: again, in: typed, "Make Uppercase from the bar changed the word")

        _ = try doubleClickWord(driver)
        _ = try driver.awaitBar()
        try driver.key("Escape")
        XCTAssertTrue(try barGone(driver), "Escape closed the bar")
    }

    /// The Qt 6 theme in a Qt 6 program whose editor starts at the top of
    /// the screen (a window at 0,0 with no window manager): no room above
    /// the word, so the bar shows just below it.
    func testTheBarInAQt6ProgramShowsBelowAWordAtTheTopOfTheScreen() throws {
        let binary = try buildQt6Program("qt-editor", QtAppTests.qt6Editor)
        _ = try startMenubusd()
        let driver = try launchQt("qt-editor", bar: true, extraEnvironment: [
            "MENUBUS_QT_EDITOR": binary.path, "QT_PLUGIN_PATH": QtAppTests.qt6PluginDirectory.path,
        ])
        let word = try typeAndDoubleClick(driver)
        let shown = try driver.awaitBar()
        assertBar(shown, has: ["Copy", "Make Uppercase"], "the Qt 6 bar")
        try assertJustAboveTheSelection(driver, below: true)
        try makeUppercaseFromTheBar(driver, word: word, in: Self.sentence, "Make Uppercase from the Qt 6 bar")
    }

    /// Off by default: the same double click selects the word (the positive
    /// control) and no bar shows.
    func testNoBarWithoutTheSetting() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(bar: false)
        let word = try typeAndDoubleClick(driver)
        XCTAssertFalse(try eventually(timeout: 1.5) { try driver.bar() != nil }, "no bar without [Edit Bar]")
        XCTAssertEqual(try driver.selection("editor"), word, "the word is still selected")
        // The theme takes part all the same: its items are in the edit menu.
        let menu = try driver.openMenu("menu-key")
        XCTAssertNotNil(menu.item("Make Uppercase"), "the theme is on without the bar: \(menu)")
        try driver.closeMenu()
    }
}
