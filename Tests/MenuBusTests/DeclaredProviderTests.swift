import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Declared providers end to end: key files read by the real menubusd, a
/// private bus whose configuration has a service directory, and the bundled
/// menubus-provider started by D-Bus activation.
final class DeclaredProviderTests: BusTestCase {
    private var privateBus: PrivateBus?
    private var root: URL!
    /// `$XDG_DATA_HOME/menubus/providers` of the daemon under test.
    private var providersDirectory: URL!
    private var servicesDirectory: URL!
    private var configHome: URL!

    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One bus per test: activated providers live as long as their bus.
    override var bus: PrivateBus {
        get throws {
            if let privateBus { return privateBus }
            let bus = try PrivateBus(configExtra: "<servicedir>\(servicesDirectory.path)</servicedir>")
            privateBus = bus
            return bus
        }
    }

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-declared-\(UUID().uuidString)")
        providersDirectory = root.appendingPathComponent("data/menubus/providers")
        servicesDirectory = root.appendingPathComponent("services")
        configHome = root.appendingPathComponent("config")
        for directory in [providersDirectory!, servicesDirectory!, configHome!, root.appendingPathComponent("system")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        privateBus?.stop()
        privateBus = nil
        try? FileManager.default.removeItem(at: root)
    }

    /// What the daemon, the command line and activated providers share.
    private var environment: [String: String] {
        ["XDG_DATA_HOME": root.appendingPathComponent("data").path,
         "XDG_DATA_DIRS": root.appendingPathComponent("system").path,
         "XDG_CONFIG_HOME": configHome.path, "LANG": "C.UTF-8", "LANGUAGE": ""]
    }

    private func startDeclaredDaemon(startTimeout: Double = 10) throws -> RunningProcess {
        try startDaemon(["--provider-start-timeout", String(startTimeout)], extraEnvironment: environment)
    }

    private func installKeyFile(_ name: String) throws {
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("data/providers/\(name)"),
                                         to: providersDirectory.appendingPathComponent(name))
    }

    /// A D-Bus service file starting `exec` (a command line) for `name`.
    private func writeService(_ name: String, exec: String) throws {
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
            .write(to: servicesDirectory.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
    }

    /// The bundled provider program, run with this test's environment.
    private func providerExec(_ arguments: String, path: String = "/usr/bin:/bin") -> String {
        let env = environment.filter { $0.key != "LANGUAGE" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "/usr/bin/env PATH=\(path) \(env.joined(separator: " ")) \(Binaries.url("menubus-provider").path) \(arguments)"
    }

    private func writeKeyFile(_ name: String, _ text: String) throws {
        try text.write(to: providersDirectory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func pump(_ clients: [MenuBusClient], timeout: Double = 10, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            for client in clients { client.run(until: done, timeout: 0.005) }
        }
        return done()
    }

    private func warnings(_ daemon: RunningProcess) -> [String] {
        daemon.stderrText.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map(String.init)
    }

    private func isRunning(_ name: String) throws -> Bool {
        nameHasOwner(try connect(), name)
    }

    private func editor(text: String, editable: Bool = true) throws -> MenuBusClient {
        let app = try app()
        var context = field
        context.editable = editable
        try app.publishContext("f", context)
        try app.updateSelection("f", Selection(kind: .range, length: UInt32(text.count), text: text))
        return app
    }

    // MARK: Offer and activation

    func testDeclaredProviderIsOfferedWhileNotRunningAndStartsWhenChosen() throws {
        for name in ["Uppercase", "Lowercase", "Capitalize", "SortLines"] {
            try installKeyFile("org.menubus.TextTransforms.\(name).provider")
        }
        try writeService("org.menubus.TextTransforms", exec: providerExec("text"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "hello world")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }

        let offered = try app.editMenu(contextId: "f")
        let item = try XCTUnwrap(offered.element("menubus:provider:org.menubus.TextTransforms.Uppercase"), "\(offered)")
        XCTAssertEqual(item.title, "Make Uppercase")
        XCTAssertNotNil(offered.element("menubus:provider:org.menubus.TextTransforms.SortLines"))
        XCTAssertFalse(try isRunning("org.menubus.TextTransforms"), "offered while no process of it runs")

        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: item.id)
        XCTAssertTrue(pump([app], timeout: 20) { !commands.isEmpty }, "replace-selection after activation")
        XCTAssertEqual(commands.first?.command, .replaceSelection)
        XCTAssertEqual(commands.first?.arguments["text"], .string("HELLO WORLD"))
        XCTAssertEqual(commands.first?.arguments["undo-name"], .string("Make Uppercase"))
        XCTAssertTrue(try isRunning("org.menubus.TextTransforms"), "started by D-Bus activation")

        // The started provider registered the same ids: one item each, now served by the running process.
        let listed = try app.listProviders()
        let upper = try XCTUnwrap(listed.first { $0.id == "org.menubus.TextTransforms.Uppercase" })
        XCTAssertTrue(eventually { (try? app.listProviders().first { $0.id == upper.id }?.properties["running"]) == .boolean(true) })
        XCTAssertEqual(listed.filter { $0.id == upper.id }.count, 1)

        for (id, input, output, undo) in [("Capitalize", "the quick BROWN fox", "The Quick Brown Fox", "Capitalize"),
                                          ("SortLines", "pear\napple\nfig", "apple\nfig\npear", "Sort Lines"),
                                          ("Lowercase", "MIXED Case", "mixed case", "Make Lowercase")] {
            commands.removeAll()
            try app.updateSelection("f", Selection(kind: .range, length: UInt32(input.count), text: input))
            let next = try app.present(contextId: "f", kind: .edit)
            try app.activate(next, itemId: "menubus:provider:org.menubus.TextTransforms.\(id)")
            XCTAssertTrue(pump([app]) { !commands.isEmpty }, id)
            XCTAssertEqual(commands.first?.arguments["text"], .string(output), id)
            XCTAssertEqual(commands.first?.arguments["undo-name"], .string(undo), id)
        }
    }

    func testRunningProviderReplacesItsDeclaration() throws {
        try writeKeyFile("org.example.Shout.provider", """
            [MenuBus Provider]
            Id=org.example.Shout
            Title=Declared Shout
            ReturnsText=true
            DBusName=org.example.Shout
            """)
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        XCTAssertEqual(try app.editMenu(contextId: "f").element("menubus:provider:org.example.Shout")?.title, "Declared Shout")
        let running = try client()
        try running.registerProvider(ProviderInfo(id: "org.example.Shout", title: "Running Shout", returnsText: true)) {
            text, _ in text.uppercased()
        }
        let menu = try app.editMenu(contextId: "f")
        XCTAssertEqual(menu.elements.filter { $0.id == "menubus:provider:org.example.Shout" }.count, 1)
        XCTAssertEqual(menu.element("menubus:provider:org.example.Shout")?.title, "Running Shout")
        running.close()
        XCTAssertTrue(eventually {
            (try? app.editMenu(contextId: "f").element("menubus:provider:org.example.Shout")?.title) == "Declared Shout"
        }, "the declaration comes back when the process leaves")
    }

    /// A key file's `Shortcut=` shows beside the provider's item in edit
    /// menus and in `providers`, and stays when the provider's process
    /// registers without one (the key file is the user's or packager's word).
    func testDeclaredShortcutShowsAndStaysWhenTheProcessRegisters() throws {
        try writeKeyFile("org.example.Shout.provider", """
            [MenuBus Provider]
            Id=org.example.Shout
            Title=Shout
            ReturnsText=true
            Shortcut=<Control><Alt>u
            DBusName=org.example.Shout
            """)
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        let item = "menubus:provider:org.example.Shout"
        XCTAssertEqual(try app.editMenu(contextId: "f").element(item)?.shortcut, "<Control><Alt>u")
        let running = try client()
        try running.registerProvider(ProviderInfo(id: "org.example.Shout", title: "Shout", returnsText: true)) { text, _ in text }
        XCTAssertEqual(try app.editMenu(contextId: "f").element(item)?.shortcut, "<Control><Alt>u",
                       "the running process keeps the key file's shortcut")
        let listing = try bus.run("menubus-cli", ["providers"], extraEnvironment: environment)
        XCTAssertTrue(listing.stdout.split(separator: "\n").contains { $0.contains("org.example.Shout") && $0.contains("<Control><Alt>u") },
                      listing.stdout)
    }

    /// `providers --check`: a key file that cannot be read (file and line),
    /// a shortcut that is an edit command's key, one two providers share,
    /// and one a running app's own item has; 3 when it found any, 0 when not.
    func testProvidersCheckReportsBadFilesAndClashingShortcuts() throws {
        func declare(_ id: String, _ shortcut: String) throws {
            try writeKeyFile("\(id).provider",
                             "[MenuBus Provider]\nId=\(id)\nTitle=\(id)\nShortcut=\(shortcut)\nDBusName=\(id)\n")
        }
        try declare("org.example.A", "<Control><Alt>u")
        _ = try startDeclaredDaemon()
        let clean = try bus.run("menubus-cli", ["providers", "--check"], extraEnvironment: environment)
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        XCTAssertEqual(clean.stdout, "1 providers, no problem found\n")

        try declare("org.example.B", "<Alt><Ctrl>U")
        try declare("org.example.C", "<Primary>c")
        try writeKeyFile("org.example.D.provider", "[MenuBus Provider]\nId=org.example.D\nTitle=D\nShortcut=u\nDBusName=org.example.D\n")
        let app = try app()
        try app.publishContext("g", field, items: [MenuElement(id: "shout", title: "Shout Here", shortcut: "<Control><Alt>u")])
        let result = try bus.run("menubus-cli", ["providers", "--check"], extraEnvironment: environment)
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let file = providersDirectory.appendingPathComponent("org.example.D.provider").path
        XCTAssertTrue(lines.contains("error \(file): line 4: Shortcut: 'u' needs <Control>, <Alt> or <Super>: a key without them is one that typing needs; skipped"), result.stdout)
        XCTAssertTrue(lines.contains("error org.example.C: Shortcut <Primary>c is the key of copy in every edit menu; choose another"), result.stdout)
        XCTAssertTrue(lines.contains("warning org.example.B: Shortcut <Alt><Ctrl>U is also org.example.A's ('org.example.A'); the key runs whichever a menu lists first"), result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("warning org.example.A: Shortcut <Control><Alt>u is ") && $0.contains("('Shout Here'); there the key stays the app's") }, result.stdout)
        XCTAssertEqual(lines.count, 5, "and nothing else (B clashes with the app too): \(result.stdout)")
        let json = try bus.run("menubus-cli", ["providers", "--check", "--json"], extraEnvironment: environment)
        XCTAssertEqual(json.status, 3)
        XCTAssertTrue(json.stdout.hasPrefix("[{\"severity\": \"error\", \"subject\": "), json.stdout)
    }

    /// A declared provider's item keeps its place when its process starts
    /// and registers: the order is the catalog's, not who runs first.
    func testADeclaredProvidersItemKeepsItsPlaceWhenItsProcessRuns() throws {
        for name in ["org.example.A.provider", "org.example.B.provider"] {
            let id = String(name.dropLast(".provider".count))
            try writeKeyFile(name, "[MenuBus Provider]\nId=\(id)\nTitle=\(id)\nReturnsText=true\nDBusName=\(id)\n")
        }
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        func order() throws -> [String] {
            try app.editMenu(contextId: "f").elements.map(\.id).filter { $0.hasPrefix("menubus:provider:") }
        }
        let declared = try order()
        XCTAssertEqual(declared, ["menubus:provider:org.example.A", "menubus:provider:org.example.B"])
        let running = try client()
        try running.registerProvider(ProviderInfo(id: "org.example.B", title: "org.example.B", returnsText: true)) { text, _ in text }
        let other = try client()
        try other.registerProvider(ProviderInfo(id: "org.example.Z", title: "Zed", returnsText: true), path: "/z") { text, _ in text }
        XCTAssertEqual(try order(), declared + ["menubus:provider:org.example.Z"],
                       "B stays second while it runs; an undeclared provider comes after the declared ones")
    }

    /// The `locale` option translates the declared providers' titles too,
    /// from their key files' `Title[xx]`; the bundled ones carry every
    /// language MenuBus's own titles are translated into.
    func testTheLocaleOptionTranslatesDeclaredProviderTitles() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        let id = "menubus:provider:org.menubus.TextTransforms.Uppercase"
        XCTAssertEqual(try app.editMenu(contextId: "f").element(id)?.title, "Make Uppercase")
        for (locale, title) in [("de", "In Großbuchstaben"), ("ja_JP.UTF-8", "大文字にする"), ("fr:de", "Mettre en majuscules"),
                                ("pt_BR", "Make Uppercase")] {
            XCTAssertEqual(try app.editMenu(contextId: "f", locale: locale).element(id)?.title, title, locale)
        }
        let bundled = Self.repository.appendingPathComponent("data/providers")
        let languages = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("po").path)
            .filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) }
        XCTAssertEqual(languages.count, 8)
        for file in try FileManager.default.contentsOfDirectory(atPath: bundled.path) where file.hasSuffix(".provider") {
            let text = try String(contentsOf: bundled.appendingPathComponent(file), encoding: .utf8)
            for language in languages {
                XCTAssertTrue(text.contains("\nTitle[\(language)]="), "\(file) has no Title[\(language)]")
            }
        }
    }

    func testTitleIsTranslatedForTheDaemonsLocale() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        _ = try startDaemon([], extraEnvironment: environment.merging(["LANG": "ru_RU.UTF-8"]) { $1 })
        let app = try editor(text: "abc")
        XCTAssertEqual(try app.editMenu(contextId: "f").element("menubus:provider:org.menubus.TextTransforms.Uppercase")?.title,
                       "Сделать прописными")
    }

    func testARunningBundledProviderKeepsTheTranslatedTitle() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        let russian = { (text: String) in text.replacingOccurrences(of: "LANG=C.UTF-8", with: "LANG=ru_RU.UTF-8") }
        try writeService("org.menubus.TextTransforms", exec: russian(providerExec("text")))
        _ = try startDaemon(["--provider-start-timeout", "10"],
                            extraEnvironment: environment.merging(["LANG": "ru_RU.UTF-8"]) { $1 })
        let app = try editor(text: "abc")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let id = "org.menubus.TextTransforms.Uppercase"
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:provider:\(id)")
        XCTAssertTrue(pump([app], timeout: 20) { !commands.isEmpty })
        XCTAssertEqual(commands.first?.arguments["undo-name"], .string("Сделать прописными"))
        XCTAssertTrue(eventually { (try? app.listProviders().first { $0.id == id }?.properties["running"]) == .boolean(true) },
                      "the started provider registered")
        XCTAssertEqual(try app.editMenu(contextId: "f").element("menubus:provider:\(id)")?.title, "Сделать прописными",
                       "the running provider registered the translated title, not the English one")
    }

    // MARK: Policy

    func testDisablingThroughTheCommandLineRemovesItFromAnOpenMenu() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        let id = "menubus:provider:org.menubus.TextTransforms.Uppercase"
        XCTAssertNotNil(try presenter.layout(of: menu).element(id))

        let disable = try bus.run("menubus-cli", ["providers", "--disable", "org.menubus.TextTransforms.Uppercase"],
                                  extraEnvironment: environment)
        XCTAssertEqual(disable.status, 0, disable.stderr)
        XCTAssertTrue(pump([presenter, app]) { layouts.last.map { $0.element(id) == nil } ?? false },
                      "LayoutChanged without the disabled provider")
        let conf = try String(contentsOf: configHome.appendingPathComponent("menubus/providers.conf"), encoding: .utf8)
        XCTAssertTrue(conf.contains("Disabled=org.menubus.TextTransforms.Uppercase;"), conf)
        let listing = try bus.run("menubus-cli", ["providers"], extraEnvironment: environment)
        XCTAssertTrue(listing.stdout.contains("org.menubus.TextTransforms.Uppercase") && listing.stdout.contains("disabled"),
                      listing.stdout)

        XCTAssertEqual(try bus.run("menubus-cli", ["providers", "--enable", "org.menubus.TextTransforms.Uppercase"],
                                   extraEnvironment: environment).status, 0)
        XCTAssertTrue(pump([presenter, app]) { layouts.last?.element(id) != nil }, "enabled again, at once")
    }

    /// A choice must name a provider that exists: declared (found on disk,
    /// no daemon needed) or registered; an id known nowhere is a usage error
    /// and nothing is written.
    func testChoicesRefuseAnIdThatExistsNowhere() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        let conf = configHome.appendingPathComponent("menubus/providers.conf")
        for arguments in [["--disable", "org.nope.X"], ["--enable", "org.nope.X"], ["--prefer", "translate", "org.nope.X"]] {
            let refused = try bus.run("menubus-cli", ["providers"] + arguments, extraEnvironment: environment)
            XCTAssertEqual(refused.status, 2, "\(arguments)")
            XCTAssertTrue(refused.stderr.contains("no provider 'org.nope.X' is declared or registered"), refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: conf.path), "\(arguments) wrote the choices")
        }
        let declared = try bus.run("menubus-cli", ["providers", "--disable", "org.menubus.TextTransforms.Uppercase"],
                                   extraEnvironment: environment)
        XCTAssertEqual(declared.status, 0, declared.stderr)
        XCTAssertTrue(try String(contentsOf: conf, encoding: .utf8).contains("Disabled=org.menubus.TextTransforms.Uppercase;"))
    }

    func testPreferChoosesWhichProviderServesARole() throws {
        _ = try startDeclaredDaemon()
        let app = try editor(text: "hola")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let first = try client(), second = try client()
        try first.registerProvider(ProviderInfo(id: "org.example.First", title: "Translate", role: .translate,
                                                       returnsText: true)) { _, _ in "first" }
        try second.registerProvider(ProviderInfo(id: "org.example.Second", title: "Translate", role: .translate,
                                                        returnsText: true)) { _, _ in "second" }
        let result = try bus.run("menubus-cli", ["providers", "--prefer", "translate", "org.example.Second"],
                                 extraEnvironment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(eventually { (try? app.listProviders().count) == 2 })
        // The policy file is read on its inotify event; choose once it is in force.
        XCTAssertTrue(pump([app, first, second]) {
            commands.removeAll()
            guard let menu = try? app.present(contextId: "f", kind: .edit),
                  (try? app.activate(menu, itemId: "menubus:translate")) != nil else { return false }
            _ = self.pump([app, first, second], timeout: 2) { !commands.isEmpty }
            return commands.first?.arguments["text"] == .string("second")
        })
        let bad = try bus.run("menubus-cli", ["providers", "--prefer", "spelling", "org.example.Second"],
                              extraEnvironment: environment)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("'spelling' is not a role"), bad.stderr)
    }

    // MARK: Watching the folders

    func testKeyFileAddedWhileTheDaemonRunsAppearsWithoutARestart() throws {
        let daemon = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        let id = "menubus:provider:org.example.Late"
        XCTAssertNil(try app.editMenu(contextId: "f").element(id))
        try writeKeyFile("org.example.Late.provider", """
            [MenuBus Provider]
            Id=org.example.Late
            Title=Arrived Late
            DBusName=org.example.Late
            """)
        XCTAssertTrue(eventually { (try? app.editMenu(contextId: "f").element(id)) != nil }, "seen through inotify")
        try FileManager.default.removeItem(at: providersDirectory.appendingPathComponent("org.example.Late.provider"))
        XCTAssertTrue(eventually { (try? app.editMenu(contextId: "f").element(id)) == nil }, "and gone when removed")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(warnings(daemon), [])
    }

    func testFolderCreatedAfterStartIsWatched() throws {
        try FileManager.default.removeItem(at: root.appendingPathComponent("data"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        try FileManager.default.createDirectory(at: providersDirectory, withIntermediateDirectories: true)
        try writeKeyFile("org.example.New.provider", "[MenuBus Provider]\nId=org.example.New\nTitle=New\nDBusName=org.example.New\n")
        XCTAssertTrue(eventually { (try? app.editMenu(contextId: "f").element("menubus:provider:org.example.New")) != nil })
    }

    // MARK: Faults cost one warning and nothing else

    func testMalformedFileIsSkippedWithOneWarningNamingFileAndLine() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        try writeKeyFile("broken.provider", "[MenuBus Provider]\nId=org.example.Broken\nthis line has no equals sign\n")
        try writeKeyFile("badrole.provider", "[MenuBus Provider]\nId=org.example.BadRole\nTitle=X\nRole=dance\nDBusName=org.example.X\n")
        let daemon = try startDeclaredDaemon()
        let app = try editor(text: "abc")
        XCTAssertNotNil(try app.editMenu(contextId: "f").element("menubus:provider:org.menubus.TextTransforms.Uppercase"),
                        "the good file still counts")
        XCTAssertTrue(eventually { self.warnings(daemon).count == 2 })
        let found = warnings(daemon)
        XCTAssertTrue(found.contains { $0.contains(providersDirectory.appendingPathComponent("broken.provider").path) && $0.contains("line 3") },
                      "\(found)")
        XCTAssertTrue(found.contains { $0.contains("badrole.provider") && $0.contains("line 4") && $0.contains("Role") }, "\(found)")
        // Another change in the folder reloads it: the same faults are not reported again.
        try writeKeyFile("org.example.Other.provider", "[MenuBus Provider]\nId=org.example.Other\nTitle=Other\nDBusName=org.example.Other\n")
        XCTAssertTrue(eventually { (try? app.editMenu(contextId: "f").element("menubus:provider:org.example.Other")) != nil })
        XCTAssertEqual(warnings(daemon).count, 2, "\(warnings(daemon))")
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:provider:org.example.Broken"))
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:provider:org.example.BadRole"))
    }

    func testProviderThatNeverStartsCostsOneWarningAndNothingElse() throws {
        try writeKeyFile("org.example.Never.provider", """
            [MenuBus Provider]
            Id=org.example.Never
            Title=Never Starts
            ReturnsText=true
            DBusName=org.example.Never
            """)
        // Runs, but never takes its name.
        try writeService("org.example.Never", exec: "/bin/sleep 3")
        let daemon = try startDeclaredDaemon(startTimeout: 1)
        let app = try editor(text: "abc")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let presenter = try client()
        var closed = false
        try presenter.observeMenus({ _, _ in }, closed: { _ in closed = true })
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        let started = Date()
        try presenter.activate(menu, itemId: "menubus:provider:org.example.Never")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "the choice is accepted at once")
        XCTAssertTrue(pump([presenter, app], timeout: 2) { closed }, "the menu is not held while the provider starts")
        XCTAssertTrue(pump([presenter, app], timeout: 5) { !self.warnings(daemon).isEmpty })
        _ = pump([presenter, app], timeout: 0.5) { false }
        XCTAssertTrue(commands.isEmpty, "the app gets nothing")
        let found = warnings(daemon)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found.first?.contains("org.example.Never") ?? false, "\(found)")
        // The daemon serves on.
        XCTAssertNotNil(try app.editMenu(contextId: "f").element("menubus:provider:org.example.Never"))
    }

    func testProviderWhoseProgramFailsCostsOneWarning() throws {
        try writeKeyFile("org.example.Fails.provider", "[MenuBus Provider]\nId=org.example.Fails\nTitle=Fails\nReturnsText=true\nDBusName=org.example.Fails\n")
        try writeService("org.example.Fails", exec: "/bin/false")
        let daemon = try startDeclaredDaemon(startTimeout: 5)
        let app = try editor(text: "abc")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:provider:org.example.Fails")
        XCTAssertTrue(pump([app], timeout: 8) { !self.warnings(daemon).isEmpty })
        _ = pump([app], timeout: 0.3) { false }
        XCTAssertEqual(warnings(daemon).count, 1, "\(warnings(daemon))")
        XCTAssertTrue(commands.isEmpty)
    }

    // MARK: Installed

    func testMakeInstallInstallsTheBundledProvidersAndTheyStartFromThere() throws {
        let prefix = root.appendingPathComponent("prefix")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["make", "install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]
        make.currentDirectoryURL = Self.repository
        let out = Pipe(), err = Pipe()
        make.standardOutput = out
        make.standardError = err
        let result = try RunningProcess(process: make, stdout: out, stderr: err).runAndWait(timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let installed = prefix.appendingPathComponent("share/menubus/providers")
        let files = try FileManager.default.contentsOfDirectory(atPath: installed.path).sorted()
        XCTAssertEqual(files, try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("data/providers").path).sorted())
        let service = try String(contentsOf: prefix.appendingPathComponent("share/dbus-1/services/org.menubus.TextTransforms.service"),
                                 encoding: .utf8)
        // Off PATH, in libexec: menubus-cli under the provider's name.
        let binary = prefix.appendingPathComponent("libexec/menubus/menubus-provider").path
        XCTAssertTrue(service.contains("Exec=\(binary) text\n"), service)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: binary), "../../bin/menubus-cli")
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("bin/menubus-provider").path))

        // The installed files alone: the bus finds the service, menubusd the declaration.
        servicesDirectory = prefix.appendingPathComponent("share/dbus-1/services")
        _ = try startDaemon([], extraEnvironment: environment.merging(["XDG_DATA_DIRS": prefix.appendingPathComponent("share").path]) { $1 })
        let app = try editor(text: "installed")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:provider:org.menubus.TextTransforms.Uppercase")
        XCTAssertTrue(pump([app], timeout: 20) { !commands.isEmpty })
        XCTAssertEqual(commands.first?.arguments["text"], .string("INSTALLED"))

        let uninstall = Process()
        uninstall.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        uninstall.arguments = ["make", "uninstall", "PREFIX=\(prefix.path)"]
        uninstall.currentDirectoryURL = Self.repository
        let out2 = Pipe(), err2 = Pipe()
        uninstall.standardOutput = out2
        uninstall.standardError = err2
        XCTAssertEqual(try RunningProcess(process: uninstall, stdout: out2, stderr: err2).runAndWait(timeout: 60).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: binary))
        XCTAssertFalse(FileManager.default.fileExists(atPath: installed.path))
    }

    // MARK: Files and links

    func testSelectedFilesReachAProviderAsAURIList() throws {
        try writeKeyFile("org.example.OpenWith.provider", """
            [MenuBus Provider]
            Id=org.example.Declared.Links
            Title=Declared Links
            ContentTypes=text/uri-list;
            DBusName=org.example.Declared.Links
            """)
        _ = try startDeclaredDaemon()
        let app = try app()
        try app.publishContext("files", ContextInfo(kind: .file, editable: false, hasContent: true))
        var selection = Selection(kind: .range, length: 2)
        selection.uris = ["file:///home/user/report.pdf", "https://example.org/a%20b"]
        try app.updateSelection("files", selection)
        let provider = try client()
        var received: [(String, [String: DBusValue])] = []
        try provider.registerProvider(ProviderInfo(id: "org.example.Links", title: "Send Links",
                                                          contentTypes: ["text/uri-list"])) { text, context in
            received.append((text, context))
            return ""
        }
        let menu = try app.contextMenu(contextId: "files")
        XCTAssertNotNil(menu.element("menubus:provider:org.example.Links"), "\(menu)")
        XCTAssertNotNil(menu.element("menubus:provider:org.example.Declared.Links"), "declared ones match too")
        let presented = try app.present(contextId: "files", kind: .context)
        try app.activate(presented, itemId: "menubus:provider:org.example.Links")
        XCTAssertTrue(pump([app, provider]) { !received.isEmpty })
        XCTAssertEqual(received.first?.0, "file:///home/user/report.pdf\r\nhttps://example.org/a%20b\r\n")
        XCTAssertEqual(received.first?.1["content-type"], .string("text/uri-list"))

        // A text selection that carries a link offers it as well; plain text alone does not.
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 4, text: "here"))
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:provider:org.example.Links"))
        var linked = Selection(kind: .range, length: 4, text: "here")
        linked.uris = ["https://example.org/"]
        try app.updateSelection("f", linked)
        XCTAssertNotNil(try app.editMenu(contextId: "f").element("menubus:provider:org.example.Links"))

        var bad = Selection(kind: .range, length: 1)
        bad.uris = ["no scheme here"]
        assertBusError(BusError.Standard.invalidArgs) { try app.updateSelection("files", bad) }
    }

    // MARK: The examples name the undo step

    /// Runs an example against the declared Make Uppercase: it starts by
    /// activation, and the example's next edit menu offers its undo by name.
    private func runExampleAgainstUppercase(_ command: [String]) throws -> ProcessResult {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        try writeService("org.menubus.TextTransforms", exec: providerExec("text"))
        _ = try startDeclaredDaemon()
        return try bus.runProgram(command[0], Array(command.dropFirst()) +
                              ["--demo-provider", "menubus:provider:org.menubus.TextTransforms.Uppercase"])
    }

    func testPythonExampleRegistersTheReplacementAsOneNamedUndoStep() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no /usr/bin/python3") }
        let result = try runExampleAgainstUppercase([python, Self.repository.appendingPathComponent("examples/python/editor.py").path])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertTrue(result.stdout.contains("text is now 'HELLO'; the edit menu offers 'Undo Make Uppercase'"), result.stdout)
        XCTAssertTrue(result.stdout.contains("undid 'Make Uppercase': text is now 'hello'"), result.stdout)
    }

    func testCExampleRegistersTheReplacementAsOneNamedUndoStep() throws {
        let binary = root.appendingPathComponent("c-editor").path
        let source = Self.repository.appendingPathComponent("examples/c/editor.c").path
        let build = try bus.runProgram("/bin/sh", ["-c", "gcc -Wall -o '\(binary)' '\(source)' $(pkg-config --cflags --libs gio-2.0)"],
                                timeout: 120)
        XCTAssertEqual(build.status, 0, build.stderr)
        let result = try runExampleAgainstUppercase([binary])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertTrue(result.stdout.contains("menubusd asked for the selected text"), "the text came through GetSelectedText: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("text is now \"HI THERE\"; the edit menu offers \"Undo Make Uppercase\""), result.stdout)
        XCTAssertTrue(result.stdout.contains("undid \"Make Uppercase\": text is now \"hi there\""), result.stdout)
    }

    /// With the package's Make Uppercase declared (as when it is
    /// installed), the demo chooses that one: every menu it draws offers
    /// Make Uppercase once, and the installed provider, started by
    /// activation, does the replacing.
    func testDemoChoosesTheInstalledMakeUppercaseInsteadOfOfferingASecond() throws {
        try installKeyFile("org.menubus.TextTransforms.Uppercase.provider")
        try writeService("org.menubus.TextTransforms", exec: providerExec("text"))
        _ = try startDeclaredDaemon()
        let demo = try bus.run("menubus-cli", ["demo"], timeout: 60, extraEnvironment: ["NO_COLOR": "1"])
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let steps = demo.stdout.components(separatedBy: "\n▸ ")
        var offered = 0
        for step in steps {
            let items = step.split(separator: "\n").filter { $0.contains("Make Uppercase") && $0.contains("[menubus:provider:") }
            XCTAssertLessThanOrEqual(items.count, 1, "Make Uppercase twice in one menu:\n\(step)")
            offered += items.count
            XCTAssertFalse(items.contains { $0.contains("org.menubus.Demo.Tour.Uppercase") }, step)
        }
        XCTAssertGreaterThanOrEqual(offered, 2, demo.stdout)
        XCTAssertTrue(demo.stdout.contains("PerformCommand replace-selection with \"HELLO FROM MENUBUS\""), demo.stdout)
    }

    // MARK: Bundled Search Web and Translate

    func testSearchWebOpensTheSearchURLWithXdgOpen() throws {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let record = root.appendingPathComponent("opened.txt")
        let standIn = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(record.path)'\n".write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        try installKeyFile("org.menubus.SearchWeb.provider")
        try writeService("org.menubus.SearchWeb", exec: providerExec("search-web", path: "\(bin.path):/usr/bin:/bin"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "key files & D-Bus", editable: false)
        let menu = try app.present(contextId: "f", kind: .edit)
        XCTAssertNotNil(try app.layout(of: menu).element("menubus:search-web"), "Search Web offered from its declaration")
        try app.activate(menu, itemId: "menubus:search-web")
        func opened() -> String { (try? String(contentsOf: record, encoding: .utf8)) ?? "" }
        XCTAssertTrue(pump([app], timeout: 20) { !opened().isEmpty })
        XCTAssertEqual(opened(), "https://duckduckgo.com/?q=key%20files%20%26%20D-Bus\n")

    }

    func testSearchWebGoesThroughThePortalWhereOneRuns() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no /usr/bin/python3") }
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let xdgRecord = root.appendingPathComponent("xdg-open.txt"), portalRecord = root.appendingPathComponent("portal.txt")
        let standIn = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(xdgRecord.path)'\n".write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        try installKeyFile("org.menubus.SearchWeb.provider")
        try writeService("org.menubus.SearchWeb", exec: providerExec("search-web", path: "\(bin.path):/usr/bin:/bin"))
        _ = try startDeclaredDaemon()
        let portal = Process()
        portal.executableURL = URL(fileURLWithPath: python)
        portal.arguments = [Self.repository.appendingPathComponent("Tests/MenuBusTests/Fixtures/portal-openuri.py").path,
                            portalRecord.path]
        portal.environment = try bus.environment
        try portal.run()
        defer { portal.terminate(); portal.waitUntilExit() }
        XCTAssertTrue(try eventually(timeout: 10) { try self.isRunning("org.freedesktop.portal.Desktop") })
        let app = try editor(text: "portal test", editable: false)
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:search-web", platformData: ["activation-token": .string("menubus-token-5678")])
        func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        XCTAssertTrue(pump([app], timeout: 20) { !read(portalRecord).isEmpty })
        XCTAssertEqual(read(portalRecord), "https://duckduckgo.com/?q=portal%20test activation_token=menubus-token-5678\n",
                       "the activation token of the choice goes to the portal")
        XCTAssertEqual(read(xdgRecord), "", "xdg-open is only the fallback")
    }

    func testSearchWebEngineComesFromTheUsersSettings() throws {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let record = root.appendingPathComponent("opened.txt")
        let standIn = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(record.path)'\n".write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        try FileManager.default.createDirectory(at: configHome.appendingPathComponent("menubus"), withIntermediateDirectories: true)
        try "[Search Web]\nURL=https://search.example.org/find?words=%s&lang=en\n"
            .write(to: configHome.appendingPathComponent("menubus/search-web.conf"), atomically: true, encoding: .utf8)
        try installKeyFile("org.menubus.SearchWeb.provider")
        try writeService("org.menubus.SearchWeb", exec: providerExec("search-web", path: "\(bin.path):/usr/bin:/bin"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "Swift", editable: false)
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:search-web")
        func opened() -> String { (try? String(contentsOf: record, encoding: .utf8)) ?? "" }
        XCTAssertTrue(pump([app], timeout: 20) { !opened().isEmpty })
        XCTAssertEqual(opened(), "https://search.example.org/find?words=Swift&lang=en\n")
    }

    func testTranslateReplacesTheSelectionWithApertiumsTranslation() throws {
        guard FileManager.default.fileExists(atPath: "/usr/share/apertium/modes/eng-spa.mode") else {
            throw XCTSkip("apertium-eng-spa is not installed (scripts/setup installs it)")
        }
        try installKeyFile("org.menubus.Translate.provider")
        // A Spanish-speaking user: the pair into Spanish is chosen.
        let exec = providerExec("translate").replacingOccurrences(of: "LANG=C.UTF-8", with: "LANG=es_ES.UTF-8")
        try writeService("org.menubus.Translate", exec: exec)
        let daemon = try startDeclaredDaemon()
        let app = try editor(text: "The house is big. I like green apples.")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let menu = try app.present(contextId: "f", kind: .edit)
        XCTAssertNotNil(try app.layout(of: menu).element("menubus:translate"), "Translate offered: a pair is installed")
        try app.activate(menu, itemId: "menubus:translate")
        XCTAssertTrue(pump([app], timeout: 30) { !commands.isEmpty }, daemon.stderrText)
        XCTAssertEqual(commands.first?.arguments["text"], .string("La casa es grande. Me gustan las manzanas verdes."))
        XCTAssertEqual(commands.first?.arguments["undo-name"], .string("Translate"))
    }

    /// Translate from Spanish for a Spanish-speaking user, started by activation.
    private func installSpanishTranslate() throws -> RunningProcess {
        guard FileManager.default.fileExists(atPath: "/usr/share/apertium/modes/eng-spa.mode") else {
            throw XCTSkip("apertium-eng-spa is not installed (scripts/setup installs it)")
        }
        try installKeyFile("org.menubus.Translate.provider")
        let exec = providerExec("translate").replacingOccurrences(of: "LANG=C.UTF-8", with: "LANG=es_ES.UTF-8")
        try writeService("org.menubus.Translate", exec: exec)
        return try startDeclaredDaemon()
    }

    func testTranslateOfReadOnlyTextAnswersThePresenterAlone() throws {
        let daemon = try installSpanishTranslate()
        let app = try editor(text: "The house is big.", editable: false)
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        var ownerHeard: [ProviderResult] = [], presenterHeard: [ProviderResult] = [], thirdHeard: [ProviderResult] = []
        try app.observeProviderResults { ownerHeard.append($0) }
        let presenter = try client(), third = try client()
        try presenter.observeProviderResults { presenterHeard.append($0) }
        try third.observeProviderResults { thirdHeard.append($0) }
        // The third connection watches every signal menubusd broadcasts, too.
        var broadcast: [String] = []
        try third.observeMenus({ _, _ in }, closed: { _ in broadcast.append("Closed") })

        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        XCTAssertNotNil(try presenter.layout(of: menu).element("menubus:translate"), "Translate offered for read-only text")
        try presenter.activate(menu, itemId: "menubus:translate")
        XCTAssertTrue(pump([presenter, app, third], timeout: 30) { !presenterHeard.isEmpty }, daemon.stderrText)
        let result = try XCTUnwrap(presenterHeard.first)
        XCTAssertEqual(result.text, "La casa es grande.")
        XCTAssertEqual(result.providerId, "org.menubus.Translate")
        XCTAssertEqual(result.menu, menu)
        XCTAssertEqual(result.contextId, "f")
        XCTAssertEqual(result.title, "Translate")
        XCTAssertNil(result.error)
        _ = pump([presenter, app, third], timeout: 0.5) { false }
        XCTAssertEqual(broadcast, ["Closed"], "the third connection hears the menu's broadcast signals")
        XCTAssertTrue(thirdHeard.isEmpty, "a connection that did not present or choose hears nothing")
        XCTAssertTrue(ownerHeard.isEmpty, "the presenter chose: the owner is not told")
        XCTAssertTrue(commands.isEmpty, "nothing goes into a read-only context")
        XCTAssertEqual(presenterHeard.count, 1)
    }

    func testPresentPrintsTheResultOfAChoiceByTheOwner() throws {
        _ = try installSpanishTranslate()
        let app = try editor(text: "I like green apples.", editable: false)
        var presented: String?
        app.onMenuPresented = { _, _, path in presented = path }
        var ownerHeard: [ProviderResult] = []
        try app.observeProviderResults { ownerHeard.append($0) }
        let present = try bus.start("menubus-cli", ["present", "org.example.Editor", "f", "--edit", "--wait-result", "30"],
                                    extraEnvironment: environment)
        // The command has printed the menu (it read the layout) before the owner chooses.
        XCTAssertTrue(pump([app], timeout: 10) { presented != nil && present.stdoutText.contains("Presented") },
                      present.stderrText)
        try app.activate(PresentedMenu(path: ObjectPath(stringLiteral: try XCTUnwrap(presented))), itemId: "menubus:translate")
        XCTAssertTrue(pump([app], timeout: 30) { !present.isRunning }, present.stdoutText + present.stderrText)
        let output = try present.wait(timeout: 5)
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("Result org.menubus.Translate\nMe gustan las manzanas verdes.\n"), output.stdout)
        XCTAssertEqual(ownerHeard.first?.text, "Me gustan las manzanas verdes.", "the owner chose: it hears the answer too")
    }

    func testAFailedProviderTellsThePresenterWhy() throws {
        try writeKeyFile("org.example.Fails.provider", "[MenuBus Provider]\nId=org.example.Fails\nTitle=Fails\nReturnsText=true\nDBusName=org.example.Fails\n")
        try writeService("org.example.Fails", exec: "/bin/false")
        _ = try startDeclaredDaemon(startTimeout: 5)
        let app = try editor(text: "abc", editable: false)
        let presenter = try client()
        var heard: [ProviderResult] = []
        try presenter.observeProviderResults { heard.append($0) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        try presenter.activate(menu, itemId: "menubus:provider:org.example.Fails")
        XCTAssertTrue(pump([presenter, app], timeout: 8) { !heard.isEmpty })
        XCTAssertEqual(heard.first?.text, "")
        XCTAssertNotNil(heard.first?.error, "\(heard.first?.info ?? [:])")
    }

    func testSearchWebPassesTheActivationTokenToTheBrowser() throws {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let record = root.appendingPathComponent("opened.txt")
        let standIn = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s %s\\n' \"$XDG_ACTIVATION_TOKEN\" \"$1\" >> '\(record.path)'\n"
            .write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        try installKeyFile("org.menubus.SearchWeb.provider")
        try writeService("org.menubus.SearchWeb", exec: providerExec("search-web", path: "\(bin.path):/usr/bin:/bin"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "tokens", editable: false)
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        XCTAssertFalse(try isRunning("org.menubus.SearchWeb"))
        try presenter.activate(menu, itemId: "menubus:search-web",
                               platformData: ["activation-token": .string("menubus-token-1234"), "timestamp": .uint32(99)])
        func opened() -> String { (try? String(contentsOf: record, encoding: .utf8)) ?? "" }
        XCTAssertTrue(pump([presenter, app], timeout: 20) { !opened().isEmpty })
        XCTAssertEqual(opened(), "menubus-token-1234 https://duckduckgo.com/?q=tokens\n")
        XCTAssertTrue(try isRunning("org.menubus.SearchWeb"), "started by D-Bus activation")
    }

    func testTranslateIsNotOfferedWithoutAnInstalledPair() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("data/providers/org.menubus.Translate.provider"),
                              encoding: .utf8)
        try writeKeyFile("org.menubus.Translate.provider",
                         text.replacingOccurrences(of: "/usr/share/apertium/modes/*.mode", with: root.path + "/no-modes/*.mode"))
        _ = try startDeclaredDaemon()
        let app = try editor(text: "hello")
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:translate"))
        let listed = try app.listProviders()
        XCTAssertFalse(listed.contains { $0.id == "org.menubus.Translate" })
    }
}

extension RunningProcess {
    /// Starts the process and waits for it (bounded by `timeout`).
    func runAndWait(timeout: Double) throws -> ProcessResult {
        try process.run()
        return try wait(timeout: timeout)
    }
}
