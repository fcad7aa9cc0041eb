import Foundation
import XCTest

/// `menubus-cli integrate` as a process in a temporary XDG_CONFIG_HOME, with
/// no bus at all: it needs no daemon and never starts one.
final class IntegrateCommandTests: XCTestCase {
    private var home: URL!
    private var snippet: URL { home.appendingPathComponent("config/environment.d/60-menubus.conf") }

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-integrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: home)
    }

    /// The session as the command sees it: its own config folder, no bus
    /// that could activate menubusd, GTK variables only as given, and GTK's
    /// own folders moved (GTK_EXE_PREFIX) to the empty home, so a module
    /// this machine has installed (the menubus-gtk3-module and
    /// menubus-gtk4-immodule packages) is not seen unless a test says so;
    /// no GTK_IM_MODULE, no desktop, and system settings.ini files only in
    /// the home's xdg folder (XDG_CONFIG_DIRS).
    private func integrate(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        var env = ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "HOME": home.path,
                   "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "NO_COLOR": "1",
                   "GTK_MODULES": "", "GTK_PATH": "", "GTK_EXE_PREFIX": home.path,
                   "QT_QPA_PLATFORMTHEME": "", "MENUBUS_QT_WRAPPED_THEME": "", "QT_PLUGIN_PATH": "",
                   "GTK_IM_MODULE": "", "XDG_CURRENT_DESKTOP": "", "XDG_CONFIG_DIRS": home.appendingPathComponent("xdg").path]
        env.merge(environment) { $1 }
        // runTool adds the test's environment; an empty value stands for unset.
        let unset = env.filter { $0.value.isEmpty }.map(\.key)
        let set = env.filter { !$0.value.isEmpty }
        return try runTool("env", unset.flatMap { ["-u", $0] } + set.map { "\($0.key)=\($0.value)" }
                           + [Binaries.url("menubus-cli").path, "integrate"] + arguments, timeout: 20)
    }

    private func snippetText() -> String? {
        try? String(contentsOf: snippet, encoding: .utf8)
    }

    /// A GTK_PATH entry holding the module, as GTK 3 would find it (and
    /// the GTK 4 IM module where GTK 4 looks under GTK_EXE_PREFIX).
    private func installedModule() throws -> (gtkPath: String, module: String) {
        let immodules = home.appendingPathComponent("lib/gtk-4.0/4.0.0/immodules")
        try FileManager.default.createDirectory(at: immodules, withIntermediateDirectories: true)
        try Data().write(to: immodules.appendingPathComponent("libim-menubus.so"))
        let base = home.appendingPathComponent("gtk-3.0")
        let modules = base.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let module = modules.appendingPathComponent("libmenubus.so")
        try Data().write(to: module)
        return (base.path, module.path)
    }

    func testEnableWritesASnippetThatAppendsToGtkModulesAndIsIdempotent() throws {
        let enabled = try integrate(["gtk", "--enable"])
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(enabled.stdout.contains("enabled; wrote \(snippet.path)"), enabled.stdout)
        XCTAssertTrue(enabled.stdout.contains("next login"), enabled.stdout)
        let text = try XCTUnwrap(snippetText())
        XCTAssertTrue(text.hasPrefix("# Written by 'menubus-cli integrate --enable'"), text)
        XCTAssertTrue(text.contains("menubus-cli integrate --disable"), "it says how to undo it: \(text)")
        XCTAssertTrue(text.contains("\nGTK_MODULES=${GTK_MODULES:+$GTK_MODULES:}menubus\n"), text)
        XCTAssertTrue(enabled.stderr.contains("Failed to load module"), "no module installed here: \(enabled.stderr)")

        let again = try integrate(["gtk", "--enable"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("already enabled by \(snippet.path)"), again.stdout)
        XCTAssertEqual(snippetText(), text)
        let files = try FileManager.default.contentsOfDirectory(atPath: snippet.deletingLastPathComponent().path)
        XCTAssertEqual(files, ["60-menubus.conf"], "no temporary file left beside it")
    }

    /// systemd's own environment.d generator reads the snippet as the
    /// session will: menubus after what the session had.
    func testSystemdsGeneratorAppendsMenubusToTheSessionsModules() throws {
        let generator = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"
        guard FileManager.default.isExecutableFile(atPath: generator) else { throw XCTSkip("no \(generator)") }
        XCTAssertEqual(try integrate(["--enable"]).status, 0)
        func modules(_ session: String?) throws -> [String] {
            var arguments = ["-i", "HOME=\(home.path)", "XDG_CONFIG_HOME=\(home.appendingPathComponent("config").path)"]
            if let session { arguments.append("GTK_MODULES=\(session)") }
            let run = try runTool("env", arguments + [generator], timeout: 20)
            XCTAssertEqual(run.status, 0, run.stderr)
            let line = run.stdout.split(separator: "\n").last { $0.hasPrefix("GTK_MODULES=") }
            return line.map { $0.dropFirst("GTK_MODULES=".count).split(separator: ":").map(String.init) } ?? []
        }
        let appended = try modules("my-module")
        let mine = try XCTUnwrap(appended.firstIndex(of: "my-module"), "\(appended)")
        let ours = try XCTUnwrap(appended.firstIndex(of: "menubus"), "\(appended)")
        XCTAssertLessThan(mine, ours, "appended, not put first: \(appended)")
        XCTAssertTrue(try modules(nil).contains("menubus"))
        XCTAssertEqual(try integrate(["--disable"]).status, 0)
        XCTAssertFalse(try modules("my-module").contains("menubus"))
    }

    func testAFileItDidNotWriteIsRefusedAndKept() throws {
        try FileManager.default.createDirectory(at: snippet.deletingLastPathComponent(), withIntermediateDirectories: true)
        let foreign = "GTK_MODULES=something-else\n"
        try foreign.write(to: snippet, atomically: true, encoding: .utf8)
        for action in ["--enable", "--disable"] {
            let refused = try integrate([action])
            XCTAssertEqual(refused.status, 1, action)
            XCTAssertEqual(refused.stdout, "", action)
            XCTAssertTrue(refused.stderr.contains("\(snippet.path) was not written by menubus-cli"), refused.stderr)
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, "one line: \(refused.stderr)")
            XCTAssertEqual(snippetText(), foreign, "\(action) left it as it was")
        }
        let status = try integrate(["--status"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.stdout.contains("not enabled by menubus-cli: \(snippet.path) is another's file"), status.stdout)
    }

    func testDisableRemovesOnlyItsSnippetAndWhenAbsentSaysSo() throws {
        XCTAssertEqual(try integrate(["--enable"]).status, 0)
        let disabled = try integrate(["--disable"])
        XCTAssertEqual(disabled.status, 0, disabled.stderr)
        XCTAssertTrue(disabled.stdout.contains("disabled; removed \(snippet.path)"), disabled.stdout)
        XCTAssertNil(snippetText())
        XCTAssertTrue(FileManager.default.fileExists(atPath: snippet.deletingLastPathComponent().path),
                      "the environment.d folder stays")
        let again = try integrate(["--disable"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stderr, "")
        XCTAssertTrue(again.stdout.contains("not enabled (no \(snippet.path)); nothing to do"), again.stdout)
        // A snippet of an older menubus-cli (the marker, other lines) is ours to replace.
        try "# Written by 'menubus-cli integrate --enable': an older one\nGTK_MODULES=menubus\n"
            .write(to: snippet, atomically: true, encoding: .utf8)
        let updated = try integrate(["--enable"])
        XCTAssertTrue(updated.stdout.contains("enabled; updated \(snippet.path)"), updated.stdout)
        XCTAssertTrue(snippetText()?.contains("${GTK_MODULES:+$GTK_MODULES:}menubus") ?? false)
    }

    func testStatusInEachState() throws {
        // Nothing yet: no snippet, no module where this test's GTK_PATH leads, not in the session.
        let systemModule = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .contains { FileManager.default.fileExists(atPath: $0 + "/gtk-3.0/modules/libmenubus.so") }
        let fresh = try integrate([])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertTrue(fresh.stdout.contains("GTK 3: not enabled (no \(snippet.path))"), fresh.stdout)
        if !systemModule {
            XCTAssertTrue(fresh.stdout.contains("GTK 3: module not installed (no libmenubus.so in "), fresh.stdout)
            XCTAssertTrue(fresh.stdout.contains("/gtk-3.0/modules"), fresh.stdout)
        }
        XCTAssertTrue(fresh.stdout.contains("GTK 3: this session does not load it (GTK_MODULES is not set)"), fresh.stdout)
        XCTAssertTrue(fresh.stdout.hasSuffix("A change takes effect at the next login.\n"), fresh.stdout)

        // Enabled, installed on GTK_PATH, and loaded by this session.
        XCTAssertEqual(try integrate(["--enable"]).status, 0)
        let (gtkPath, module) = try installedModule()
        let session = ["GTK_PATH": "/nonexistent:" + gtkPath, "GTK_MODULES": "gail:menubus"]
        let on = try integrate(["--status"], environment: session)
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertTrue(on.stdout.contains("GTK 3: enabled for new sessions by \(snippet.path)"), on.stdout)
        XCTAssertTrue(on.stdout.contains("GTK 3: module installed: \(module)"), on.stdout)
        XCTAssertTrue(on.stdout.contains("GTK 3: this session loads it (GTK_MODULES=gail:menubus)"), on.stdout)
        let loaded = try integrate(["gtk", "--enable"], environment: session)
        XCTAssertEqual(loaded.stderr, "", "the module is where GTK 3 looks")

        // JSON, as other commands give it with --json.
        let json = try integrate(["--status", "--json"], environment: session)
        XCTAssertEqual(json.status, 0, json.stderr)
        let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(all.map { $0["toolkit"] as? String }, ["gtk", "qt"], "every toolkit when none is named")
        let rows = all.filter { $0["toolkit"] as? String == "gtk" }
        XCTAssertEqual(rows[0]["enabled"] as? Bool, true)
        XCTAssertEqual(rows[0]["snippet"] as? String, snippet.path)
        XCTAssertEqual(rows[0]["snippet-state"] as? String, "enabled")
        XCTAssertEqual(rows[0]["module"] as? String, module)
        XCTAssertEqual(rows[0]["module-loadable"] as? Bool, true)
        XCTAssertEqual(rows[0]["this-session"] as? Bool, true)
        XCTAssertEqual(rows[0]["gtk4-settings"] as? String, gtk4Settings.path)
        XCTAssertEqual(rows[0]["gtk4-enabled"] as? Bool, true)
        XCTAssertEqual(rows[0]["gtk4-setting"] as? String, "menubus")
        XCTAssertEqual(rows[0]["gtk4-module"] as? String, home.appendingPathComponent("lib/gtk-4.0/4.0.0/immodules/libim-menubus.so").path)

        // Disabled, while this session still has the module another way.
        XCTAssertEqual(try integrate(["--disable"]).status, 0)
        let off = try integrate(["--status"], environment: ["GTK_MODULES": "menubusx:other"])
        XCTAssertTrue(off.stdout.contains("GTK 3: not enabled (no \(snippet.path))"), off.stdout)
        XCTAssertTrue(off.stdout.contains("GTK 3: this session does not load it (GTK_MODULES does not name menubus)"), off.stdout)
        let offJSON = try integrate(["--json"])
        let offRows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(offJSON.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(offRows.first?["snippet-state"] as? String, "absent")
        XCTAssertEqual(offRows.first?["this-session"] as? Bool, false)
    }

    // MARK: GTK 4

    private var gtk4Settings: URL { home.appendingPathComponent("config/gtk-4.0/settings.ini") }

    private func gtk4Text() -> String? {
        try? String(contentsOf: gtk4Settings, encoding: .utf8)
    }

    /// GTK 4's settings.ini gets gtk-im-module=menubus followed by the IM it
    /// named before, and --disable gives the file back byte for byte,
    /// whatever it held (no file, no [Settings], a last line without a
    /// newline, the setting with spaces, other groups and comments).
    func testGtk4SettingWrapsThePreviousImAndDisableGivesTheFileBackExactly() throws {
        let cases: [(before: String?, setting: String)] = [
            (nil, "menubus"),
            ("", "menubus"),
            ("[Other]\na=b", "menubus"),
            ("[Settings]\ngtk-theme-name = Adwaita\n", "menubus"),
            ("# mine\n[Settings]\ngtk-im-module = ibus\ngtk-theme-name=Adwaita\n[Later]\nx=1\n", "menubus:ibus"),
            ("[Settings]\ngtk-im-module=menubus:fcitx\n", "menubus:fcitx"),
        ]
        for (before, setting) in cases {
            try? FileManager.default.removeItem(at: gtk4Settings)
            if let before {
                try FileManager.default.createDirectory(at: gtk4Settings.deletingLastPathComponent(), withIntermediateDirectories: true)
                try before.write(to: gtk4Settings, atomically: true, encoding: .utf8)
            }
            let enabled = try integrate(["gtk", "--enable"])
            XCTAssertEqual(enabled.status, 0, enabled.stderr)
            XCTAssertTrue(enabled.stdout.contains("GTK 4: enabled; gtk-im-module=\(setting) in \(gtk4Settings.path)"),
                          "\(before ?? "no file"): \(enabled.stdout)")
            let text = try XCTUnwrap(gtk4Text())
            XCTAssertTrue(text.contains("\n# menubus-cli integrate gtk:"), text)
            XCTAssertTrue(text.hasSuffix("gtk-im-module=\(setting)\n") || text.contains("gtk-im-module=\(setting)\n"), text)
            let again = try integrate(["gtk", "--enable"])
            XCTAssertTrue(again.stdout.contains("GTK 4: already enabled by \(gtk4Settings.path)"), again.stdout)
            XCTAssertEqual(gtk4Text(), text, "enabling twice changes nothing")
            let disabled = try integrate(["gtk", "--disable"])
            XCTAssertEqual(disabled.status, 0, disabled.stderr)
            XCTAssertTrue(disabled.stdout.contains("GTK 4: disabled; gtk-im-module is as it was in \(gtk4Settings.path)"), disabled.stdout)
            XCTAssertEqual(gtk4Text(), before, "exactly what was there before --enable")
            let twice = try integrate(["gtk", "--disable"])
            XCTAssertTrue(twice.stdout.contains("GTK 4: not enabled (no setting of menubus-cli's in \(gtk4Settings.path)); nothing to do"),
                          twice.stdout)
            XCTAssertEqual(gtk4Text(), before)
        }
    }

    /// With no setting of the user's, the system's (here XDG_CONFIG_DIRS's)
    /// is what MenuBus wraps; GTK_IM_MODULE of the session, which GTK 4
    /// reads first, and GNOME's own setting are named where they win.
    func testGtk4SettingWrapsTheSystemsAndStatusNamesWhatComesFirst() throws {
        let system = home.appendingPathComponent("xdg/gtk-4.0")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try "[Settings]\ngtk-im-module=fcitx\n".write(to: system.appendingPathComponent("settings.ini"), atomically: true, encoding: .utf8)
        let enabled = try integrate(["gtk", "--enable"], environment: ["GTK_IM_MODULE": "ibus"])
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(gtk4Text()?.contains("\ngtk-im-module=menubus:fcitx\n") ?? false, gtk4Text() ?? "no file")
        XCTAssertTrue(enabled.stderr.contains("no libim-menubus.so is installed where GTK 4 looks"), enabled.stderr)
        XCTAssertTrue(enabled.stderr.contains("GTK_IM_MODULE=ibus in the environment"), enabled.stderr)
        XCTAssertTrue(enabled.stderr.contains("GTK_IM_MODULE=menubus:ibus"), enabled.stderr)

        let status = try integrate(["gtk", "--status"], environment: ["GTK_IM_MODULE": "ibus"])
        XCTAssertTrue(status.stdout.contains("GTK 4: enabled by gtk-im-module=menubus:fcitx in \(gtk4Settings.path)"), status.stdout)
        XCTAssertTrue(status.stdout.contains("GTK 4: module not installed (no libim-menubus.so in \(home.path)/lib/gtk-4.0/4.0.0/immodules"),
                      status.stdout)
        XCTAssertTrue(status.stdout.contains("GTK 4: apps of this session take their IM from GTK_IM_MODULE=ibus"), status.stdout)
        let gnome = try integrate(["gtk", "--status"], environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"])
        XCTAssertTrue(gnome.stdout.contains("GTK 4: apps of this session take their IM from GNOME's settings daemon"), gnome.stdout)
        let named = try integrate(["gtk", "--status"], environment: ["GTK_IM_MODULE": "menubus:ibus", "XDG_CURRENT_DESKTOP": "GNOME"])
        XCTAssertTrue(named.stdout.contains("GTK 4: this session's GTK_IM_MODULE=menubus:ibus names menubus"), named.stdout)
        XCTAssertEqual(try integrate(["gtk", "--disable"]).status, 0)
        XCTAssertNil(gtk4Text(), "the file menubus-cli wrote is gone")
    }

    /// `integrate edit-bar`: the [Edit Bar] group of integration.conf, for
    /// every app or per program; the file's other lines stay, and turning
    /// it all off gives the file back as it was.
    func testEditBarWritesItsGroupAndLeavesTheRestOfTheFile() throws {
        let conf = home.appendingPathComponent("config/menubus/integration.conf")
        func text() -> String? { try? String(contentsOf: conf, encoding: .utf8) }
        let off = try integrate(["edit-bar"])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.stdout, "Edit bar: off (the default)\n")
        XCTAssertNil(text(), "--status writes nothing")

        try FileManager.default.createDirectory(at: conf.deletingLastPathComponent(), withIntermediateDirectories: true)
        let original = "# mine\n[Exclude]\nApps=gimp;\n"
        try original.write(to: conf, atomically: true, encoding: .utf8)
        XCTAssertEqual(try integrate(["edit-bar", "--enable", "--app", "mousepad"]).status, 0)
        XCTAssertEqual(try integrate(["edit-bar", "--enable", "--app", "featherpad"]).status, 0)
        XCTAssertEqual(text(), original + "\n[Edit Bar]\nApps=mousepad;featherpad;\n")
        let status = try integrate(["edit-bar", "--status"])
        XCTAssertEqual(status.stdout, "Edit bar: on for mousepad, featherpad\n")

        let every = try integrate(["edit-bar", "--enable", "--json"])
        XCTAssertEqual(every.stdout, "{\"every-app\": true, \"apps\": [\"mousepad\", \"featherpad\"], \"file\": \"\(conf.path)\"}\n")
        XCTAssertEqual(text(), original + "\n[Edit Bar]\nEnabled=true\nApps=mousepad;featherpad;\n")
        XCTAssertEqual(try integrate(["edit-bar", "--disable", "--app", "mousepad"]).status, 0)
        XCTAssertEqual(text(), original + "\n[Edit Bar]\nEnabled=true\nApps=featherpad;\n")
        let disabled = try integrate(["edit-bar", "--disable"])
        XCTAssertEqual(disabled.stdout, "Edit bar: off (the default) (wrote \(conf.path))\nApps started from now on read it.\n")
        XCTAssertEqual(text(), original, "the file is as it was")

        for (arguments, saying) in [(["edit-bar", "--status", "--app", "x"], "--app goes with --enable or --disable"),
                                    (["edit-bar", "--enable", "--app", "a;b"], "is not a program name"),
                                    (["edit-bar", "--enable", "--disable"], "give one of")] {
            let refused = try integrate(arguments)
            XCTAssertEqual(refused.status, 2, "\(arguments)")
            XCTAssertTrue(refused.stderr.contains(saying), "\(arguments): \(refused.stderr)")
        }
    }

    func testTheDefaultConfigFolderIsUnderHome() throws {
        let result = try integrate(["--enable"], environment: ["XDG_CONFIG_HOME": ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent(".config/environment.d/60-menubus.conf").path))
    }

    func testUsageErrorsNameTheWord() throws {
        let cases: [([String], String)] = [
            (["kde", "--enable"], "unknown toolkit 'kde'"), (["--enable", "--disable"], "give one of --enable, --disable and --status"),
            (["--frob"], "'--frob'"), (["gtk", "extra"], "'extra'"),
        ]
        for (arguments, mention) in cases {
            let result = try integrate(arguments)
            XCTAssertEqual(result.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains(mention), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertNil(snippetText(), "nothing written")
    }

    // MARK: Qt

    private static var multiarch: String {
        #if arch(x86_64)
        "x86_64-linux-gnu"
        #else
        "aarch64-linux-gnu"
        #endif
    }

    private var qtSnippet: URL { home.appendingPathComponent("config/environment.d/90-menubus-qt.conf") }

    /// What systemd's environment.d generator makes of the user's snippets
    /// for a session whose manager had `session`.
    private func generated(_ session: [String: String]) throws -> [String: String]? {
        let generator = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"
        guard FileManager.default.isExecutableFile(atPath: generator) else { return nil }
        let arguments = ["-i", "HOME=\(home.path)", "XDG_CONFIG_HOME=\(home.appendingPathComponent("config").path)"]
            + session.map { "\($0.key)=\($0.value)" }
        let run = try runTool("env", arguments + [generator], timeout: 20)
        XCTAssertEqual(run.status, 0, run.stderr)
        var result: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }

    /// The Qt snippet records the session's theme for the wrapper to wrap,
    /// names the wrapper, and its removal puts back exactly what was there.
    func testQtEnableWrapsTheSessionsThemeAndDisablePutsItBack() throws {
        let session = ["QT_QPA_PLATFORMTHEME": "kde", "OTHER": "1"]
        let pristine = try generated(session)
        let enabled = try integrate(["qt", "--enable"], environment: ["QT_QPA_PLATFORMTHEME": "gtk3"])
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(enabled.stdout.contains("Qt: enabled; wrote \(qtSnippet.path)"), enabled.stdout)
        XCTAssertTrue(enabled.stdout.contains("wrapping 'gtk3'"), enabled.stdout)
        // Qt's own plugin folders cannot be moved away as GTK's can: the note depends on this machine.
        let systemPlugin = [5, 6].contains {
            FileManager.default.fileExists(atPath: "/usr/lib/\(Self.multiarch)/qt\($0)/plugins/platformthemes/libmenubus.so")
        }
        XCTAssertEqual(enabled.stderr.contains("no platformthemes/libmenubus.so is installed"), !systemPlugin, enabled.stderr)
        let text = try String(contentsOf: qtSnippet, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# Written by 'menubus-cli integrate --enable'"), text)
        XCTAssertTrue(text.contains("\nMENUBUS_QT_WRAPPED_THEME=${QT_QPA_PLATFORMTHEME:-gtk3}\nQT_QPA_PLATFORMTHEME=menubus\n"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: snippet.path), "qt alone leaves GTK as it is")

        // Enabling again from a session that runs the wrapper keeps what it wraps.
        let again = try integrate(["qt", "--enable"], environment: ["QT_QPA_PLATFORMTHEME": "menubus",
                                                                    "MENUBUS_QT_WRAPPED_THEME": "gtk3"])
        XCTAssertTrue(again.stdout.contains("Qt: already enabled by \(qtSnippet.path)"), again.stdout)

        if let kde = try generated(["QT_QPA_PLATFORMTHEME": "kde"]), let none = try generated([:]) {
            XCTAssertEqual(kde["QT_QPA_PLATFORMTHEME"], "menubus")
            XCTAssertEqual(kde["MENUBUS_QT_WRAPPED_THEME"], "kde", "what the session set is what is wrapped")
            XCTAssertEqual(none["MENUBUS_QT_WRAPPED_THEME"], "gtk3", "else the theme recorded at --enable")
        }
        let enabledOutput = try generated(session)
        let disabled = try integrate(["qt", "--disable"])
        XCTAssertEqual(disabled.status, 0, disabled.stderr)
        XCTAssertTrue(disabled.stdout.contains("Qt: disabled; removed \(qtSnippet.path)"), disabled.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: qtSnippet.path))
        if let after = try generated(session) {
            XCTAssertNotEqual(enabledOutput, after)
            XCTAssertEqual(after, pristine, "exactly what was there before --enable")
            XCTAssertNil(after["MENUBUS_QT_WRAPPED_THEME"])
        }
    }

    func testQtStatusFindsThePluginAndTheSession() throws {
        let plugins = home.appendingPathComponent("qt-plugins")
        try FileManager.default.createDirectory(at: plugins.appendingPathComponent("platformthemes"), withIntermediateDirectories: true)
        try Data().write(to: plugins.appendingPathComponent("platformthemes/libmenubus.so"))
        XCTAssertEqual(try integrate(["qt", "--enable"]).status, 0)
        let session = ["QT_PLUGIN_PATH": plugins.path, "QT_QPA_PLATFORMTHEME": "menubus", "MENUBUS_QT_WRAPPED_THEME": "gtk3"]
        let status = try integrate(["qt", "--status"], environment: session)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("Qt: enabled for new sessions by \(qtSnippet.path)"), status.stdout)
        XCTAssertTrue(status.stdout.contains("plugins/platformthemes/libmenubus.so"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Qt: this session loads it (QT_QPA_PLATFORMTHEME=menubus, wrapping gtk3)"), status.stdout)
        let json = try integrate(["qt", "--json"], environment: session)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["toolkit"] as? String, "qt")
        XCTAssertEqual(rows[0]["snippet-state"] as? String, "enabled")
        XCTAssertEqual(rows[0]["wraps"] as? String, "gtk3")
        XCTAssertEqual(rows[0]["this-session"] as? Bool, true)
        XCTAssertEqual((rows[0]["plugins"] as? [String])?.first, plugins.appendingPathComponent("platformthemes/libmenubus.so").path)
        let off = try integrate(["qt"], environment: ["QT_QPA_PLATFORMTHEME": "kde"])
        XCTAssertTrue(off.stdout.contains("Qt: this session does not load it (QT_QPA_PLATFORMTHEME is kde)"), off.stdout)
    }
}
