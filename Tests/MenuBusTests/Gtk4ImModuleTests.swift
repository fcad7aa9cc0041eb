import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusProtocol

/// The GTK 4 IM module (shims/gtk4-im) in GNOME's text editor, unmodified:
/// gnome-text-editor 43 under Xvfb with GTK_PATH naming the module's build
/// folder (GTK 4 scans `GTK_PATH/4.0.0/immodules`) and GTK_IM_MODULE=menubus,
/// beside menubusd and the bundled providers, driven from the keyboard and
/// read through AT-SPI only (Tests/apps/gtk_app.py).
///
/// The editor's GtkSourceView is a GtkTextView whose extra menu holds the
/// app's own items (Indentation, Change Case, Check Spelling, Languages):
/// MenuBus's join them, they are never replaced.
final class Gtk4ImModuleTests: DesktopProgramTestCase {
    private static let app = "gnome-text-editor"
    private static let sentence = "the quick brown fox"
    private static let gtkItems = ["Cut", "Copy", "Paste", "Delete", "Undo", "Redo", "Select All", "Insert Emoji"]
    private static let appItems = ["Indentation", "Change Case", "Check Spelling"]
    private static let menuBusItems = ["Make Uppercase", "Search Web"]

    private static let buildFolder = Repository.root.appendingPathComponent(".build/shims")
    /// What GTK_PATH names: the module is 4.0.0/immodules/libim-menubus.so in it.
    static let moduleFolder = buildFolder.appendingPathComponent("gtk4-im")
    static let module = moduleFolder.appendingPathComponent("4.0.0/immodules/libim-menubus.so")
    /// The recording IM module, built for these tests only.
    static let recordingFolder = buildFolder.appendingPathComponent("gtk4-im-test")
    static let recording = recordingFolder.appendingPathComponent("4.0.0/immodules/libim-menubus-recording.so")

    // MARK: Programs

    private func requirements() throws {
        try requireDesktopTools([("/usr/bin/gnome-text-editor", "gnome-text-editor")])
        for file in [Self.module, Self.recording] where !FileManager.default.fileExists(atPath: file.path) {
            throw TestFailure("no \(file.path): run `make shims` to build the GTK 4 IM module")
        }
    }

    /// gnome-text-editor with the module named; `im` nil: GTK's own
    /// choice of IM; `folders`: what GTK_PATH names. GTK's own module
    /// folder is an empty one (GTK_EXE_PREFIX), so a module this machine
    /// has installed (menubus-gtk4-immodule) is not loaded, unless
    /// `installed`.
    private func launch(im: String? = "menubus", folders: [URL] = [moduleFolder], installed: Bool = false,
                        extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        var environment: [String: String] = [:]
        if !installed { environment["GTK_EXE_PREFIX"] = try Self.root.appendingPathComponent("tmp/no-gtk-modules").path }
        if !folders.isEmpty { environment["GTK_PATH"] = folders.map(\.path).joined(separator: ":") }
        if let im { environment["GTK_IM_MODULE"] = im }
        return try launchProgram(Self.app, module: false, extraEnvironment: environment.merging(extraEnvironment) { $1 })
    }

    /// Types the sentence into the document, checks it reads back exactly,
    /// and selects its last word.
    private func typeAndSelect(_ driver: GtkAppDriver, file: StaticString = #filePath, line: UInt = #line) throws {
        try driver.focus("editor")
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.text("editor"), Self.sentence, "typed text reads back exactly", file: file, line: line)
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "the selection read through AT-SPI", file: file, line: line)
    }

    private func openMenuWithMenuBusItems(_ driver: GtkAppDriver, timeout: Double = 10) throws -> GtkAppDriver.OpenedMenu {
        var menu = try driver.openMenu("shift+F10")
        _ = try eventually(timeout: timeout) {
            menu = try driver.shownMenu()
            return Self.menuBusItems.allSatisfy { menu.item($0) != nil }
        }
        return menu
    }

    /// The editor's own menu as GTK and the app make it, and no MenuBus item.
    private func assertOwnMenu(_ menu: GtkAppDriver.OpenedMenu, _ reference: [String], _ context: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(menu.labels, reference, "\(context): the editor's own menu: \(menu)", file: file, line: line)
        for label in Self.menuBusItems {
            XCTAssertNil(menu.item(label), "\(context): no \(label) in \(menu)", file: file, line: line)
        }
    }

    private func assertQuiet(_ driver: GtkAppDriver, file: StaticString = #filePath, line: UInt = #line) {
        let said = driver.diagnostics.split(separator: "\n").filter { $0.contains("MenuBus-") || $0.contains("im-menubus") }
        XCTAssertEqual(said, [], "the module said nothing on stderr", file: file, line: line)
    }

    /// The menu of the editor without the module: GTK's items and the app's.
    private func referenceMenu() throws -> [String] {
        let driver = try launch(im: nil, folders: [])
        defer { driver.stop() }
        try typeAndSelect(driver)
        let menu = try driver.openMenu("shift+F10")
        try driver.closeMenu()
        for label in Self.gtkItems + Self.appItems {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "without the module: \(label) once in \(menu)")
        }
        return menu.labels
    }

    // MARK: Tests

    /// Make Uppercase and Search Web join the editor's context menu once
    /// each, beside GTK's items and the app's own; choosing Make Uppercase
    /// changes the word; typing, and a dead key through GTK's simple IM
    /// (wrapped), still write what they wrote without the module.
    func testGnomeTextEditorGetsMenuBusItemsThroughTheImModule() throws {
        try requirements()
        _ = try startMenubusd()
        let driver = try launch()
        try typeAndSelect(driver)
        let menu = try openMenuWithMenuBusItems(driver)
        for label in Self.menuBusItems + Self.gtkItems + Self.appItems {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "\(label) once in \(menu)")
        }
        XCTAssertEqual(menu.repeatedLabels, [], "an item twice in \(menu)")
        guard menu.item("Make Uppercase") != nil else { return try driver.closeMenu() }
        try driver.closeMenu()

        // The selection changes between menus (menubusd updates the live
        // section each time, in place): each item stays once, and the
        // Services submenu is never added to the popover again.
        for round in 0..<4 {
            try driver.key(round % 2 == 0 ? "shift+Left" : "shift+Right")
            let again = try openMenuWithMenuBusItems(driver)
            XCTAssertEqual(again.repeatedLabels, [], "round \(round): an item twice in \(again)")
            XCTAssertEqual(again.labels.filter { $0 == "Change Case" }.count, 1, "round \(round): the app's items once in \(again)")
            try driver.closeMenu()
        }
        XCTAssertEqual(try driver.selection("editor"), "fox", "Shift+Left and Shift+Right in turn, four times")
        // A caret (nothing of MenuBus's, Services gone), then the word
        // again (Services back): the popover has one page of it, not two.
        try driver.key("End")
        _ = try driver.openMenu("shift+F10")
        XCTAssertTrue(try eventually(timeout: 10) { (try driver.shownMenu()).item("Search Web") == nil },
                      "at a caret MenuBus's items leave the menu")
        try driver.closeMenu()
        XCTAssertEqual(try driver.selectWordLeft(), "fox")
        _ = try openMenuWithMenuBusItems(driver)
        XCTAssertFalse(driver.stderrText.contains("duplicate child name in GtkStack"),
                       "GTK added a submenu's page to the popover again: \(driver.diagnostics)")
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase replaced the word, read back through AT-SPI")

        try driver.key("End")
        try driver.type(" jumps")
        try driver.key("dead_acute e")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX jumpsé"), "the quick brown FOX jumpsé",
                       "dead_acute e composed é through the wrapped simple IM")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
        assertQuiet(driver)
    }

    /// MENUBUS_DISABLE=1, and menubusd absent: the module is a pure
    /// pass-through, the menu is the editor's own exactly and typing works.
    func testGnomeTextEditorTurnedOffOrWithoutMenubusdShowsItsOwnMenu() throws {
        try requirements()
        let reference = try referenceMenu()

        // Nothing owns org.menubus.MenuBus1 on the test's bus yet.
        let absent = try launch()
        try typeAndSelect(absent)
        assertOwnMenu(try absent.openMenu("shift+F10"), reference, "menubusd absent")
        try absent.closeMenu()
        XCTAssertLessThan(try absent.ping(), 250, "the main loop answers with menubusd absent")
        assertQuiet(absent)
        absent.stop()

        _ = try startMenubusd()
        let off = try launch(extraEnvironment: ["MENUBUS_DISABLE": "1"])
        try typeAndSelect(off)
        let menu = try off.openMenu("shift+F10")
        // MenuBus's items would come a moment later: give them the time.
        _ = try? eventually(timeout: 2) { (try off.shownMenu()).item("Make Uppercase") != nil }
        assertOwnMenu(try off.shownMenu(), reference, "MENUBUS_DISABLE=1")
        XCTAssertEqual(menu.labels, reference)
        try off.closeMenu()
    }

    /// With menubusd SIGSTOPped the editor's menu opens (its own items at
    /// least) without waiting, and typing goes on.
    func testGnomeTextEditorWithMenubusdStoppedOpensItsMenuAndTypes() throws {
        try requirements()
        let daemon = try startMenubusd()
        let driver = try launch()
        try typeAndSelect(driver)
        _ = try openMenuWithMenuBusItems(driver)
        try driver.closeMenu()

        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        try driver.key("End")
        try driver.type(" jumps over")
        XCTAssertEqual(try driver.text("editor"), Self.sentence + " jumps over", "typing goes on with menubusd stopped")
        XCTAssertEqual(try driver.selectWordLeft(), "over")
        let menu = try driver.openMenu("shift+F10")
        for label in Self.gtkItems + Self.appItems {
            XCTAssertEqual(menu.labels.filter { $0 == label }.count, 1, "with menubusd stopped: \(label) once in \(menu)")
        }
        XCTAssertLessThan(menu.milliseconds, 3000, "the menu opened in \(menu.milliseconds) ms")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers with menubusd stopped")
    }

    /// The contexts menubusd holds, as `menubus-cli contexts --json` lists them.
    private func contextIds() throws -> [String] {
        let result = try bus.run("menubus-cli", ["contexts", "--json"], timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let list = (json as? [[String: Any]]) ?? ((json as? [String: Any])?["contexts"] as? [[String: Any]]) ?? []
        return list.compactMap { $0["context-id"] as? String }
    }

    /// Password fields get nothing: a GtkPasswordEntry and a GtkEntry with
    /// hidden text, focused first, publish no context; a GtkSearchEntry and
    /// a plain GtkEntry (GtkTexts inside) focused after them do, one each
    /// (Tests/apps/gtk4_fields.py, a GTK 4 window of those four fields).
    func testPasswordFieldsGetNothingAndEntriesTakePart() throws {
        try requirements()
        _ = try startMenubusd()
        XCTAssertEqual(try contextIds(), [], "no context before the program")
        var environment = try bus.environment
        environment.merge(["GTK_PATH": Self.moduleFolder.path, "GTK_IM_MODULE": "menubus", "GSK_RENDERER": "cairo",
                           "GTK_EXE_PREFIX": try Self.root.appendingPathComponent("tmp/no-gtk-modules").path,
                           "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory",
                           "TMPDIR": try Self.root.appendingPathComponent("tmp").path]) { $1 }
        environment.removeValue(forKey: "DISPLAY")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xvfb-run")
        process.arguments = ["-a", "/usr/bin/python3", Repository.root.appendingPathComponent("Tests/apps/gtk4_fields.py").path]
        process.environment = environment
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        try process.run()
        addTeardownBlock {
            try? input.fileHandleForWriting.close()
            _ = try? running.wait(timeout: 10)
        }
        func answered(_ line: String) throws {
            guard try eventually(timeout: 20, { running.stdoutText.split(separator: "\n").contains { $0 == line } }) else {
                throw TestFailure("the program did not say '\(line)': \(running.stdoutText)\n\(running.stderrText)")
            }
        }
        try answered("ready")
        var seen: [[String]] = []
        for field in ["password", "hidden", "search", "plain"] {
            try input.fileHandleForWriting.write(contentsOf: Data("focus \(field)\n".utf8))
            try answered("focused \(field)")
            if field == "search" || field == "plain" {
                var ids: [String] = []
                _ = try eventually(timeout: 10) {
                    ids = try contextIds()
                    return ids.count == seen.count + 1
                }
                seen.append(ids)
            }
        }
        XCTAssertEqual(seen.map(\.count), [1, 2], "the search field's context, then the plain entry's, none of the password fields': \(seen)")
        XCTAssertEqual(try contextIds().count, 2)
    }

    /// An app that attaches the GTK 4 library itself (examples/gtk4-editor)
    /// and runs with the module too: the module leaves its widgets to it,
    /// so each item is there once.
    func testAnAppAttachedItselfGetsEachItemOnce() throws {
        try requirements()
        guard FileManager.default.isExecutableFile(atPath: Gtk4EditorTests.example.path) else {
            throw TestFailure("no \(Gtk4EditorTests.example.path): run `make shims`")
        }
        _ = try startMenubusd()
        let driver = try launchProgram("gtk4-editor", module: false, extraEnvironment: [
            "MENUBUS_GTK4_EDITOR": Gtk4EditorTests.example.path, "GTK_PATH": Self.moduleFolder.path, "GTK_IM_MODULE": "menubus"])
        try driver.focus("editor")
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.selectWordLeft(), "fox")
        let menu = try openMenuWithMenuBusItems(driver)
        // A second copy would come a moment after the first: give it the time.
        _ = try? eventually(timeout: 2) { try driver.shownMenu().repeatedLabels != [] }
        let settled = try driver.shownMenu()
        XCTAssertNotNil(menu.item("Make Uppercase"), "\(menu)")
        XCTAssertEqual(settled.repeatedLabels, [], "an item twice in \(settled)")
        try driver.closeMenu()
    }

    /// `menubus-cli integrate gtk --enable` names the module in GTK 4's
    /// settings.ini (no GTK_IM_MODULE): the editor gets MenuBus's items;
    /// after --disable the module, still installed where GTK looks, is a
    /// pure pass-through and the menu is the editor's own again.
    func testIntegrateGtkTurnsTheModuleOnAndDisableTurnsItOff() throws {
        try requirements()
        _ = try startMenubusd()
        let config = try Self.root.appendingPathComponent("tmp/config-\(UUID().uuidString)")
        func integrate(_ action: String) throws {
            let run = try runTool("env", ["-u", "GTK_IM_MODULE", "-u", "XDG_CURRENT_DESKTOP", "XDG_CONFIG_HOME=\(config.path)",
                                          Binaries.url("menubus-cli").path, "integrate", "gtk", action], timeout: 20)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        try integrate("--enable")
        let settings = try String(contentsOf: config.appendingPathComponent("gtk-4.0/settings.ini"), encoding: .utf8)
        XCTAssertTrue(settings.contains("\ngtk-im-module=menubus\n"), settings)

        let on = try launch(im: nil, extraEnvironment: ["GTK_APP_CONFIG_HOME": config.path])
        try typeAndSelect(on)
        let menu = try openMenuWithMenuBusItems(on)
        XCTAssertNotNil(menu.item("Make Uppercase"), "named by GTK 4's setting: \(menu)")
        try on.closeMenu()
        on.stop()

        try integrate("--disable")
        XCTAssertFalse(FileManager.default.fileExists(atPath: config.appendingPathComponent("gtk-4.0/settings.ini").path))
        let off = try launch(im: nil, extraEnvironment: ["GTK_APP_CONFIG_HOME": config.path])
        try typeAndSelect(off)
        _ = try off.openMenu("shift+F10")
        _ = try? eventually(timeout: 2) { (try off.shownMenu()).item("Make Uppercase") != nil }
        let own = try off.shownMenu()
        XCTAssertNil(own.item("Make Uppercase"), "installed but named by nobody: \(own)")
        XCTAssertNotNil(own.item("Change Case"), "the editor's own items: \(own)")
        try off.closeMenu()
    }

    /// The installed package (scripts/package --install): the module where
    /// ibus-gtk4 puts libim-ibus.so, in the folder's giomodule.cache (written
    /// by libgtk-4-1's file trigger), depending on menubus; GTK 4 finds it
    /// there with no GTK_PATH. Skipped when the package is not installed.
    func testTheInstalledPackageIsFoundByGtkWithoutGtkPath() throws {
        let status = try runTool("dpkg-query", ["-W", "-f=${Status}", "menubus-gtk4-immodule"])
        guard status.stdout.contains("install ok installed") else {
            throw XCTSkip("the menubus-gtk4-immodule package is not installed (scripts/package --install)")
        }
        try requirements()
        let libdir = try runTool("pkg-config", ["--variable=libdir", "gtk4"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = libdir + "/gtk-4.0/4.0.0/immodules"
        let files = try runTool("dpkg", ["-L", "menubus-gtk4-immodule"]).stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(files.contains(folder + "/libim-menubus.so"), "\(files)")
        let cache = try String(contentsOfFile: folder + "/giomodule.cache", encoding: .utf8)
        XCTAssertTrue(cache.split(separator: "\n").contains("libim-menubus.so: gtk-im-module"), cache)
        let depends = try runTool("dpkg-query", ["-W", "-f=${Depends}", "menubus-gtk4-immodule"]).stdout
        XCTAssertTrue(depends.contains("menubus (>= "), depends)

        _ = try startMenubusd()
        let driver = try launch(folders: [], installed: true)
        try typeAndSelect(driver)
        XCTAssertNotNil(try openMenuWithMenuBusItems(driver).item("Make Uppercase"), "the installed module, named by GTK_IM_MODULE")
        try driver.closeMenu()
    }

    /// The wrapped IM gets every call: a recording IM module (GTK's simple
    /// IM that logs each call, asks for the surrounding text on each
    /// character and deletes one through delete-surrounding on Hyper_L) sees
    /// the same calls with GTK_IM_MODULE naming it as with `menubus`
    /// wrapping it, and the document ends the same. Left out of the
    /// comparison: set-cursor-location, which GTK calls as often as it
    /// lays out, and key releases, whose order against the next press
    /// xdotool does not fix.
    func testTheWrappedImGetsTheSameCalls() throws {
        try requirements()
        _ = try startMenubusd()
        var logs: [[String]] = []
        var texts: [String] = []
        for (name, im, folders) in [("direct", "menubus-recording", [Self.recordingFolder]),
                                    ("wrapped", "menubus", [Self.moduleFolder, Self.recordingFolder])] {
            let log = try Self.root.appendingPathComponent("tmp/im-calls-\(name)-\(UUID().uuidString)")
            let driver = try launch(im: im, folders: folders, extraEnvironment: [
                "MENUBUS_TEST_IM_LOG": log.path, "MENUBUS_GTK4_WRAPPED_IM": "menubus-recording"])
            try driver.focus("editor")
            try driver.type("hello")
            try driver.key("dead_acute e")
            try driver.key("Hyper_L")
            try driver.key("dead_acute e")
            texts.append(try waitForText(driver, "editor", "helloé"))
            // The calls so far; the menu's keys below are not compared.
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
            if name == "wrapped" {
                XCTAssertEqual(try driver.selectWordLeft(), "helloé")
                XCTAssertNotNil(try openMenuWithMenuBusItems(driver).item("Make Uppercase"), "the wrapper brought MenuBus")
                try driver.closeMenu()
            }
            driver.stop()
            XCTAssertTrue(lines.contains("set-cursor-location"), "\(name): the cursor location reached the IM")
            logs.append(lines.filter { $0 != "set-cursor-location" && !$0.hasPrefix("filter-keypress release") })
        }
        XCTAssertEqual(texts, ["helloé", "helloé"], "the same text with and without MenuBus")
        XCTAssertEqual(logs[0], logs[1], "the same calls with and without MenuBus in between")
        for expected in ["focus-in", "reset", "set-client-widget EditorSourceView", "surrounding 'hello' 5 5",
                         "delete-surrounding -> 1", "filter-keypress press dead_acute -> 1", "filter-keypress press h -> 1"] {
            XCTAssertTrue(logs[1].contains(expected), "the wrapped IM got \(expected): \(logs[1])")
        }
    }
}
