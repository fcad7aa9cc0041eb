import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusModel

/// `menubus-cli integrate shortcut` on GNOME, read back with `gsettings`
/// from a private dconf database (a session bus of this test's own, which
/// starts dconf-service, and a temporary XDG_CONFIG_HOME), and on KDE
/// Plasma, read back with `kreadconfig5`. The command the keybinding holds
/// is run as gnome-settings-daemon would, against the real menubusd.
final class IntegrateShortcutTests: BusTestCase {
    private var home: URL!
    /// The session bus gsettings reaches dconf through, and its address.
    private var dconfBus: (process: RunningProcess, address: String)?

    private static let schema = "org.gnome.settings-daemon.plugins.media-keys"
    private static let entry = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding"
    private static let ours = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/menubus-show-menu/"
    private static let custom = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/"

    override func setUpWithError() throws {
        try super.setUpWithError()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-shortcut-\(UUID().uuidString)")
        for folder in ["config", "data", "runtime"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(folder), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
    }

    override func tearDownWithError() throws {
        if let dconfBus, dconfBus.process.isRunning {
            dconfBus.process.signal(SIGTERM)
            _ = try? dconfBus.process.wait(timeout: 5)
        }
        try? FileManager.default.removeItem(at: home)
        try super.tearDownWithError()
    }

    private func requireGnomeSchemas() throws {
        let schemas = try run("gsettings", ["list-schemas"], desktop: "GNOME")
        guard schemas.stdout.split(separator: "\n").contains(Substring(Self.schema)) else {
            throw XCTSkip("no \(Self.schema) (gnome-settings-daemon-common, scripts/setup)")
        }
    }

    /// A session bus with the standard configuration, so dconf-service is
    /// activated on it (and leaves with it).
    private func startDconfBus() throws -> String {
        if let dconfBus { return dconfBus.address }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["dbus-daemon", "--session", "--nofork", "--print-address=1"]
        // dconf-service, which writes the database, gets the bus's environment: this test's folders.
        process.environment = folders
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        try process.run()
        guard eventually(timeout: 10, { running.stdoutText.contains("\n") || !running.isRunning }),
              let address = running.stdoutText.split(separator: "\n").first else {
            throw TestFailure("dbus-daemon --session did not start: \(running.stderrText)")
        }
        dconfBus = (running, String(address))
        return String(address)
    }

    /// This test's own home and XDG folders, the built menubus-cli on PATH.
    private var folders: [String: String] {
        ["PATH": Binaries.directory.path + ":/usr/bin:/bin", "HOME": home.path, "NO_COLOR": "1",
         "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
         "XDG_DATA_HOME": home.appendingPathComponent("data").path,
         "XDG_RUNTIME_DIR": home.appendingPathComponent("runtime").path]
    }

    /// `program` in this test's session only: its own folders, its dconf
    /// bus, `desktop` as XDG_CURRENT_DESKTOP, the built menubus-cli on PATH.
    private func run(_ program: String, _ arguments: [String], desktop: String) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = folders.merging(["DBUS_SESSION_BUS_ADDRESS": try startDconfBus(),
                                               "XDG_CURRENT_DESKTOP": desktop]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        try process.run()
        return try running.wait(timeout: 30)
    }

    private func integrate(_ arguments: [String], desktop: String = "GNOME") throws -> ProcessResult {
        try run("menubus-cli", ["integrate", "shortcut"] + arguments, desktop: desktop)
    }

    private func gsettings(_ arguments: [String]) throws -> String {
        let result = try run("gsettings", arguments, desktop: "GNOME")
        XCTAssertEqual(result.status, 0, "gsettings \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Validates an `integrate shortcut --json` output against docs/cli-json.schema.json.
    private func assertFollowsTheSchema(_ output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let printed = home.appendingPathComponent("printed.json")
        try output.write(to: printed, atomically: true, encoding: .utf8)
        let check = try runTool(Repository.root.appendingPathComponent("scripts/check-cli-json").path,
                                ["integrate-shortcut", printed.path])
        XCTAssertEqual(check.status, 0, check.stderr, file: file, line: line)
    }

    private func list() throws -> String { try gsettings(["get", Self.schema, "custom-keybindings"]) }

    private func entry(_ key: String, at path: String = IntegrateShortcutTests.ours) throws -> String {
        try gsettings(["get", Self.entry + ":" + path, key])
    }

    func testGnomeKeybindingRunsShowMenuAndDisableRestoresTheListExactly() throws {
        try requireGnomeSchemas()
        // Two keybindings of the user's, one on the same key.
        let theirs = ["\(Self.custom)custom1/", "\(Self.custom)custom0/"]
        _ = try gsettings(["set", Self.schema, "custom-keybindings", "['\(theirs[0])', '\(theirs[1])']"])
        _ = try gsettings(["set", Self.entry + ":" + theirs[1], "name", "Emoji"])
        _ = try gsettings(["set", Self.entry + ":" + theirs[1], "binding", "<Super>period"])
        let before = try list()

        let enabled = try integrate(["--enable"])
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(enabled.stdout.contains("<Super>period runs 'menubus-cli show-menu'"), enabled.stdout)
        XCTAssertTrue(enabled.stderr.contains("<Super>period is bound to 'Emoji' too"), enabled.stderr)
        XCTAssertEqual(try list(), "['\(theirs[0])', '\(theirs[1])', '\(Self.ours)']")
        XCTAssertEqual(try entry("name"), "'MenuBus: menu at the caret'")
        XCTAssertEqual(try entry("binding"), "'<Super>period'")
        XCTAssertEqual(try entry("command"), "'menubus-cli show-menu'")
        // Again: nothing added twice.
        XCTAssertTrue(try integrate(["--enable"]).stdout.contains("already enabled"))
        XCTAssertEqual(try list(), "['\(theirs[0])', '\(theirs[1])', '\(Self.ours)']")
        let status = try integrate(["--status", "--json"])
        try assertFollowsTheSchema(status.stdout)
        XCTAssertEqual(status.stdout, "{\"desktop\": \"gnome\", \"enabled\": true, \"key\": \"<Super>period\", \"command\": \"menubus-cli show-menu\", \"where\": \"\(Self.ours)\"}\n")

        // The command GNOME runs for the key shows the focused app's menu.
        _ = try startDaemon()
        var asked: [String] = []
        let editor = try app("org.example.Editor")
        editor.onShowEditMenu = { contextId, _ in asked.append(contextId) }
        try editor.publishContext("doc", ContextInfo(kind: .text, editable: true, hasContent: true))
        var selection = Selection(kind: .caret)
        selection.focused = true
        try editor.updateSelection("doc", selection)
        let command = try entry("command").trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        let pressed = try bus.startProgram("/bin/sh", ["-c", "PATH=\(Binaries.directory.path):$PATH " + command])
        let deadline = Date().addingTimeInterval(20)
        while pressed.isRunning && Date() < deadline { editor.run(until: { !pressed.isRunning }, timeout: 0.02) }
        let shown = try pressed.wait(timeout: 5)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertEqual(shown.stdout, "org.example.Editor showed its menu for doc\n")
        XCTAssertEqual(asked, ["doc"])

        // --disable: the list as it was, in its order, and MenuBus's keys gone; theirs untouched.
        let disabled = try integrate(["--disable"])
        XCTAssertEqual(disabled.status, 0, disabled.stderr)
        XCTAssertEqual(try list(), before)
        for key in ["name", "binding", "command"] { XCTAssertEqual(try entry(key), "''", key) }
        XCTAssertEqual(try entry("binding", at: theirs[1]), "'<Super>period'")
        XCTAssertEqual(try entry("name", at: theirs[1]), "'Emoji'")
        XCTAssertTrue(try integrate(["--disable"]).stdout.contains("not enabled; nothing to do"))
        XCTAssertEqual(try list(), before)
    }

    func testGnomeWithNoKeybindingsBeforeGoesBackToNone() throws {
        try requireGnomeSchemas()
        let before = try list()
        XCTAssertEqual(before, "@as []")
        let enabled = try integrate(["--enable", "--key", "<Control><Alt>m", "--json"])
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(enabled.stdout.contains("\"key\": \"<Control><Alt>m\""), enabled.stdout)
        try assertFollowsTheSchema(enabled.stdout)
        XCTAssertEqual(try list(), "['\(Self.ours)']")
        XCTAssertEqual(try entry("binding"), "'<Control><Alt>m'")
        XCTAssertEqual(try integrate(["--disable"]).status, 0)
        XCTAssertEqual(try list(), before)
    }

    func testAKeyThatIsNoAcceleratorAndAnUnknownDesktopAreRefused() throws {
        let notation = try integrate(["--enable", "--key", "Super+."])
        XCTAssertEqual(notation.status, 2)
        XCTAssertTrue(notation.stderr.contains("'Super+.' is not a GTK accelerator"), notation.stderr)
        let keyAlone = try integrate(["--disable", "--key", "<Super>m"])
        XCTAssertEqual(keyAlone.status, 2)
        XCTAssertTrue(keyAlone.stderr.contains("--key goes with --enable"), keyAlone.stderr)
        let elsewhere = try integrate(["--enable"], desktop: "XFCE")
        XCTAssertEqual(elsewhere.status, 1)
        XCTAssertTrue(elsewhere.stderr.contains("GNOME and KDE Plasma only (XDG_CURRENT_DESKTOP is 'XFCE')"), elsewhere.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("data").path), [])
    }

    func testKdeShortcutIsADesktopFileAndGlobalShortcutKeysRemovedByDisable() throws {
        let desktopFile = home.appendingPathComponent("data/applications/menubus-show-menu.desktop")
        let enabled = try integrate(["--enable"], desktop: "KDE")
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        let text = try String(contentsOf: desktopFile, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("[Desktop Entry]\n"), text)
        XCTAssertTrue(text.contains("\nExec=menubus-cli show-menu\n"), text)
        XCTAssertTrue(text.contains("\nX-KDE-Shortcuts=Meta+.\n"), text)
        let hasKwriteconfig = FileManager.default.isExecutableFile(atPath: "/usr/bin/kwriteconfig5")
        if hasKwriteconfig {
            let launch = try run("kreadconfig5", ["--file", "kglobalshortcutsrc", "--group", "menubus-show-menu.desktop",
                                                  "--key", "_launch"], desktop: "KDE")
            XCTAssertEqual(launch.stdout, "Meta+.,none,MenuBus: menu at the caret\n")
        }
        let json = try integrate(["--json"], desktop: "KDE")
        try assertFollowsTheSchema(json.stdout)
        XCTAssertEqual(json.stdout, "{\"desktop\": \"kde\", \"enabled\": true, \"key\": \"Meta+.\", \"command\": \"menubus-cli show-menu\", \"where\": \"\(desktopFile.path)\"}\n")
        let other = try integrate(["--enable", "--key", "<Control><Alt>u"], desktop: "KDE")
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertTrue(try String(contentsOf: desktopFile, encoding: .utf8).contains("\nX-KDE-Shortcuts=Ctrl+Alt+U\n"))

        let disabled = try integrate(["--disable"], desktop: "KDE")
        XCTAssertEqual(disabled.status, 0, disabled.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: desktopFile.path))
        if hasKwriteconfig {
            let rc = (try? String(contentsOf: home.appendingPathComponent("config/kglobalshortcutsrc"), encoding: .utf8)) ?? ""
            XCTAssertFalse(rc.contains("menubus"), rc)
        }
        // A file of that name menubus-cli did not write is left alone.
        try "[Desktop Entry]\nName=Mine\n".write(to: desktopFile, atomically: true, encoding: .utf8)
        let foreign = try integrate(["--enable"], desktop: "KDE")
        XCTAssertEqual(foreign.status, 1)
        XCTAssertTrue(foreign.stderr.contains("was not written by menubus-cli"), foreign.stderr)
        XCTAssertEqual(try String(contentsOf: desktopFile, encoding: .utf8), "[Desktop Entry]\nName=Mine\n")
    }
}
