import Foundation
import XCTest

/// Provider shortcuts, as the macOS Services shortcuts: the bundled Make
/// Uppercase declared with `Shortcut=<Control><Alt>u`; that key, pressed
/// with a word selected in a field of an app that does not bind it, runs
/// the provider on the word through the app's shim; in an app that binds
/// it (mousepad's To Uppercase), the app's own action runs and the
/// provider is not called. Real programs under Xvfb, read through AT-SPI;
/// whether the provider ran is read from menubusd's count of choices
/// (`provider-usage`, written when it stops).
final class ProviderShortcutTests: DesktopProgramTestCase {
    private static let uppercase = "org.menubus.TextTransforms.Uppercase"
    private static let sentence = "the quick brown fox"

    /// The bundled key file as the suite installed it, with the shortcut added.
    private func declareShortcut() throws {
        _ = try bus
        let file = try Self.root.appendingPathComponent("data/menubus/providers/\(Self.uppercase).provider")
        var text = try String(contentsOf: file, encoding: .utf8)
        guard !text.contains("\nShortcut=") else { return }
        text += "Shortcut=<Control><Alt>u\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// Times Make Uppercase was chosen, as menubusd wrote when it stopped.
    private func uppercaseChoices(stopping daemon: RunningProcess) throws -> Int {
        daemon.signal(SIGTERM)
        _ = try daemon.wait(timeout: 20)
        let state = try XCTUnwrap(try bus.environment["XDG_STATE_HOME"])
        let usage = try String(contentsOfFile: state + "/menubus/provider-usage", encoding: .utf8)
        let line = usage.split(separator: "\n").first { $0.hasSuffix("\t" + Self.uppercase) }
        return line.flatMap { Int($0.split(separator: "\t")[0]) } ?? 0
    }

    /// Types the sentence into `widget`, selects its last word, and presses the key.
    private func pressShortcut(_ driver: GtkAppDriver, widget: String, _ context: String) throws {
        try driver.focus(widget)
        if try !driver.text(widget).isEmpty { try driver.clear() }
        try driver.type(Self.sentence)
        XCTAssertEqual(try driver.selectWordLeft(), "fox", "\(context): the selection read through AT-SPI")
        try driver.key("ctrl+alt+u")
    }

    /// Where the app leaves the key unused, the provider upper-cases the
    /// word: menubusd counted one more choice of it.
    private func checkProviderRuns(_ driver: GtkAppDriver, daemon: RunningProcess, widget: String,
                                   _ context: String) throws {
        try pressShortcut(driver, widget: widget, context)
        XCTAssertEqual(try waitForText(driver, widget, "the quick brown FOX"), "the quick brown FOX",
                       "\(context): <Control><Alt>u upper-cased the word through the provider")
        XCTAssertEqual(try uppercaseChoices(stopping: daemon), 1001, "\(context): menubusd ran Make Uppercase once")
    }

    func testShortcutRunsTheProviderInFeatherpad() throws {
        try requireDesktopTools([("/usr/bin/featherpad", "featherpad")])
        try declareShortcut()
        let daemon = try startMenubusd()
        let driver = try launchProgram("featherpad", module: false, extraEnvironment: [
            "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_QPA_PLATFORMTHEME": "menubus",
            "QT_PLUGIN_PATH": QtAppTests.pluginDirectory.path, "MENUBUS_DISABLE": ""
        ])
        try checkProviderRuns(driver, daemon: daemon, widget: "editor", "featherpad's editor")
    }

    /// gedit binds no <Control><Alt>u: its editor (a GtkTextView) lets it pass.
    func testShortcutRunsTheProviderInAGtk3FieldWhoseAppDoesNotBindIt() throws {
        try requireDesktopTools([("/usr/bin/gedit", "gedit")])
        try declareShortcut()
        let daemon = try startMenubusd()
        let driver = try launchProgram("gedit", module: true)
        try checkProviderRuns(driver, daemon: daemon, widget: "editor", "gedit's editor")
    }

    /// mousepad binds <Control><Alt>u to its own To Uppercase: that runs,
    /// and MenuBus does not take the key.
    func testAKeyTheAppBindsStaysTheApps() throws {
        try requireDesktopTools([("/usr/bin/mousepad", "mousepad")])
        try declareShortcut()
        let daemon = try startMenubusd()
        let driver = try launchProgram("mousepad", module: true)
        try pressShortcut(driver, widget: "editor", "mousepad's editor")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "mousepad's own To Uppercase ran")
        // Its menu shows the provider's item (so the key was one MenuBus knew)…
        var menu = try driver.openMenu()
        _ = try eventually(timeout: 5) {
            menu = try driver.shownMenu()
            return menu.item("Make Uppercase") != nil || menu.item("Make Uppercase", in: "Services") != nil
        }
        try driver.closeMenu()
        // …yet menubusd never ran it.
        XCTAssertEqual(try uppercaseChoices(stopping: daemon), 1000, "the provider was not called")
    }
}
