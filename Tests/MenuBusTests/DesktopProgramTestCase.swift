import Foundation
import XCTest
@testable import MenuBus

/// The fixture of the tests that run real desktop programs under Xvfb
/// (GtkAppTests, Gtk4EditorTests): one private bus a suite, whose
/// configuration has a service directory, so the bundled providers are
/// started by D-Bus activation from the key files `make install` puts in
/// place; menubusd started by each test; the programs driven and read
/// through AT-SPI by Tests/apps/gtk_app.py (GtkAppDriver).
class DesktopProgramTestCase: BusTestCase {
    /// Suites run one after another: the class tearDown of each ends these.
    nonisolated(unsafe) private static var suiteBus: PrivateBus?
    nonisolated(unsafe) private static var suiteRoot: URL?

    static var root: URL {
        get throws {
            if let suiteRoot { return suiteRoot }
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-desktop-\(UUID().uuidString)")
            for folder in ["services", "data/menubus/providers", "config", "system", "tmp"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            suiteRoot = root
            return root
        }
    }

    override var bus: PrivateBus {
        get throws {
            if let bus = Self.suiteBus { return bus }
            let root = try Self.root
            try installBundledProviders(root)
            let bus = try PrivateBus(configExtra: "<servicedir>\(root.appendingPathComponent("services").path)</servicedir>")
            Self.suiteBus = bus
            return bus
        }
    }

    override class func tearDown() {
        suiteBus?.stop()
        suiteBus = nil
        if let suiteRoot { try? FileManager.default.removeItem(at: suiteRoot) }
        suiteRoot = nil
        super.tearDown()
    }

    /// What menubusd and the providers it activates read: the bundled key
    /// files as `make install` puts them, and nothing of this machine's.
    var daemonEnvironment: [String: String] {
        get throws {
            let root = try Self.root
            return ["XDG_DATA_HOME": root.appendingPathComponent("data").path,
                    "XDG_DATA_DIRS": root.appendingPathComponent("system").path,
                    "XDG_CONFIG_HOME": root.appendingPathComponent("config").path, "LANG": "C.UTF-8", "LANGUAGE": ""]
        }
    }

    private func installBundledProviders(_ root: URL) throws {
        let providers = Repository.root.appendingPathComponent("data/providers")
        for name in try FileManager.default.contentsOfDirectory(atPath: providers.path) where name.hasSuffix(".provider") {
            try FileManager.default.copyItem(at: providers.appendingPathComponent(name),
                                             to: root.appendingPathComponent("data/menubus/providers/\(name)"))
        }
        let env = try daemonEnvironment.filter { $0.key != "LANGUAGE" }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        for (name, kind) in [("org.menubus.TextTransforms", "text"), ("org.menubus.SearchWeb", "search-web"),
                             ("org.menubus.Translate", "translate")] {
            let exec = "/usr/bin/env PATH=/usr/bin:/bin \(env) \(Binaries.url("menubus-provider").path) \(kind)"
            try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
                .write(to: root.appendingPathComponent("services/\(name).service"), atomically: true, encoding: .utf8)
        }
    }

    func startMenubusd() throws -> RunningProcess {
        try seedProviderUsage()
        return try startDaemon(["--provider-start-timeout", "10"], extraEnvironment: try daemonEnvironment)
    }

    /// The tests choose Make Uppercase and find Translate and Search Web: a
    /// user who chooses these most, so they are the few suggestions a menu
    /// shows at its level, the other transforms under Services.
    private func seedProviderUsage() throws {
        guard let stateHome = try bus.environment["XDG_STATE_HOME"] else { return }
        let state = URL(fileURLWithPath: stateHome).appendingPathComponent("menubus")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let usage = ["org.menubus.TextTransforms.Uppercase", "org.menubus.Translate", "org.menubus.SearchWeb"]
            .map { "1000\t\($0)\n" }.joined()
        try usage.write(to: state.appendingPathComponent("provider-usage"), atomically: true, encoding: .utf8)
    }

    /// Skips, naming the Debian package, when the driver's tools, `programs`
    /// (path, package) or Debian's python3 AT-SPI bindings are missing.
    func requireDesktopTools(_ programs: [(String, String)] = []) throws {
        for (path, package) in GtkAppDriver.requirements + programs where !FileManager.default.isExecutableFile(atPath: path) {
            throw XCTSkip("no \(path): \(package) is not installed; run scripts/setup")
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.arguments = ["-c", "import gi; gi.require_version('Atspi', '2.0'); import pyatspi"]
        check.standardError = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        if check.terminationStatus != 0 {
            throw XCTSkip("/usr/bin/python3 cannot import pyatspi: python3-pyatspi is not installed; run scripts/setup")
        }
    }

    /// Starts `app` under the driver on the suite's bus, stopped when the test ends.
    func launchProgram(_ app: String, module: Bool, extraEnvironment: [String: String] = [:]) throws -> GtkAppDriver {
        var environment = try bus.environment
        environment["TMPDIR"] = try Self.root.appendingPathComponent("tmp").path
        environment.merge(extraEnvironment) { $1 }
        let driver = try GtkAppDriver(app: app, module: module, environment: environment)
        addTeardownBlock { driver.stop() }
        return driver
    }

    /// Waits until `widget`'s text, read through AT-SPI, is `expected`; the last text read.
    func waitForText(_ driver: GtkAppDriver, _ widget: String, _ expected: String, timeout: Double = 20) throws -> String {
        var last = ""
        _ = try eventually(timeout: timeout) {
            last = try driver.text(widget)
            return last == expected
        }
        return last
    }
}
