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

/// Running the desktop's consumers (Tests/consumers, Debian's python3 with
/// python3-gi, a C++ program on libdbusmenu-qt5) as programs beside the
/// daemon, and reading what they print: one `TAG json` line per event.
extension BusTestCase {
    static let xvfb = ["/usr/bin/xvfb-run", "-a", "-s", "-screen 0 640x400x24"]

    func requireXvfb() throws {
        for tool in ["/usr/bin/xvfb-run", "/usr/bin/import"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("no \(tool); run scripts/setup")
        }
    }

    // MARK: Running consumers

    struct Line {
        let tag: String
        let json: [String: Any]?
    }

    final class Consumer {
        let process: Process
        let output: RunningProcess
        let input: Pipe?
        init(process: Process, output: RunningProcess, input: Pipe? = nil) {
            self.process = process
            self.output = output
            self.input = input
        }

        /// Writes one line to the consumer's stdin.
        /// A consumer that has already exited fails its test on what it
        /// printed; the write must not end the test process (SIGPIPE is
        /// ignored here, and the broken pipe's error dropped).
        func send(_ line: String) {
            BusTestCase.ignoreBrokenPipes
            try? input?.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }

        /// How many lines tagged `tag` it printed.
        func count(_ tag: String) -> Int {
            lines.filter { $0.tag == tag }.count
        }

        var lines: [Line] {
            output.stdoutText.split(separator: "\n").map { text in
                let parts = text.split(separator: " ", maxSplits: 1)
                let json = parts.count > 1
                    ? (try? JSONSerialization.jsonObject(with: Data(parts[1].utf8))) as? [String: Any] : nil
                return Line(tag: String(parts.first ?? ""), json: json)
            }
        }

        var diagnostics: String {
            "consumer stdout:\n\(output.stdoutText)\nstderr:\n\(output.stderrText)"
        }
    }

    struct Run {
        let lines: [Line]
        func first(_ tag: String) -> [String: Any]? { lines.first { $0.tag == tag }?.json }
    }

    static let python = "/usr/bin/python3"

    /// What each script imports, with the Debian package that brings it.
    private static func modules(_ script: String) -> (check: String, package: String) {
        switch script {
        case "dbusmenu_gtk.py":
            ("gi.require_version('Gtk', '3.0'); gi.require_version('Gdk', '3.0'); gi.require_version('DbusmenuGtk3', '0.4'); "
                + "from gi.repository import DbusmenuGtk3", "gir1.2-dbusmenu-gtk3-0.4")
        case "gtk_follow.py --gtk 4":
            ("gi.require_version('Gtk', '4.0'); gi.require_version('Gdk', '4.0'); from gi.repository import Gdk, Gtk",
             "gir1.2-gtk-4.0")
        case _ where script.hasPrefix("dbusmenu"):
            ("gi.require_version('Dbusmenu', '0.4'); from gi.repository import Dbusmenu", "gir1.2-dbusmenu-glib-0.4")
        case _ where script.hasPrefix("gtk"):
            ("gi.require_version('Gtk', '3.0'); gi.require_version('Gdk', '3.0'); from gi.repository import Gdk, Gtk",
             "gir1.2-gtk-3.0")
        default:
            ("from gi.repository import Gio", "python3-gi")
        }
    }

    /// Skips, naming the Debian package, when Debian's python3 cannot load
    /// what the consumer script `key` needs.
    func requireConsumerPackages(_ key: String) throws {
        let (modules, package) = Self.modules(key)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: Self.python)
        check.arguments = ["-c", "import gi; \(modules)"]
        check.standardError = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: Self.python), (try? check.run()) != nil else {
            throw XCTSkip("no \(Self.python) (python3-gi); run scripts/setup")
        }
        check.waitUntilExit()
        if check.terminationStatus != 0 {
            throw XCTSkip("\(Self.python) cannot load what \(key) needs: \(package) is not installed; run scripts/setup")
        }
    }

    /// Starts `script` with `arguments` (under `launcher`, e.g. xvfb-run);
    /// with `input`, its stdin is that pipe (`Consumer.send` writes a line).
    func startConsumer(_ script: String, _ arguments: [String], launcher: [String] = [],
                       input: Pipe? = nil) throws -> Consumer {
        try requireConsumerPackages(script)
        let directory = Repository.root.appendingPathComponent("Tests/consumers")
        return try startProgram(launcher + [Self.python, directory.appendingPathComponent(script).path] + arguments,
                                input: input)
    }

    /// Starts `command` on the test bus in Tests/consumers, its output read
    /// as consumer lines; ended when the test ends.
    func startProgram(_ command: [String], environment extra: [String: String] = [:], input: Pipe? = nil) throws -> Consumer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = Repository.root.appendingPathComponent("Tests/consumers")
        var environment = try bus.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        environment["GSK_RENDERER"] = "cairo"  // GTK 4 under Xvfb has no GL
        environment["NO_AT_BRIDGE"] = "1"
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        let consumer = Consumer(process: process, output: RunningProcess(process: process, stdout: out, stderr: err),
                                input: input)
        addTeardownBlock {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        return consumer
    }

    /// Runs a tool at an absolute path to its end (bounded by `timeout`).
    private func runTool(_ path: String, _ arguments: [String], timeout: Double = 20) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let output = RunningProcess(process: process, stdout: out, stderr: err)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            throw TestFailure("\(path) did not finish in \(timeout) s")
        }
        usleep(50_000)  // let the output handlers drain the pipes
        return ProcessResult(status: process.terminationStatus, stdout: output.stdoutText, stderr: output.stderrText)
    }

    /// An X server of its own for consumers that draw (Xvfb started
    /// directly, not through xvfb-run, so the test reaps every process it
    /// starts); returns the DISPLAY value.
    func startXvfb() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            throw XCTSkip("no /usr/bin/Xvfb: xvfb is not installed; run scripts/setup")
        }
        let server = try startProgram(["/usr/bin/Xvfb", "-displayfd", "1", "-screen", "0", "640x400x24", "-nolisten", "tcp"])
        guard eventually(timeout: 10, { server.output.stdoutText.contains("\n") || !server.process.isRunning }),
              let number = Int(server.output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("Xvfb did not start: \(server.diagnostics)")
        }
        return ":\(number)"
    }

    /// KDE's importer program (Tests/consumers/kde_importer.cpp), built once
    /// per test run with g++; skips, naming the package, without Qt or
    /// libdbusmenu-qt5.
    func kdeImporter() throws -> String {
        if let built = KDEImporterBuild.path { return built }
        for (tool, package) in [("/usr/bin/g++", "g++"), ("/usr/bin/pkg-config", "pkg-config")]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("no \(tool): \(package) is not installed; run scripts/setup")
        }
        let flags = try runTool("/usr/bin/pkg-config", ["--cflags", "--libs", "Qt5Widgets", "Qt5DBus", "dbusmenu-qt5"])
        guard flags.status == 0 else {
            throw XCTSkip("pkg-config finds no Qt5Widgets/Qt5DBus/dbusmenu-qt5: libdbusmenu-qt5-dev and qtbase5-dev are not installed; run scripts/setup")
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-kde-importer-\(getpid())").path
        let source = Repository.root.appendingPathComponent("Tests/consumers/kde_importer.cpp").path
        let arguments = ["-std=c++17", "-fPIC", "-O0", source, "-o", output]
            + flags.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        let build = try runTool("/usr/bin/g++", arguments, timeout: 120)
        guard build.status == 0 else { throw TestFailure("g++ failed: \(build.stderr)") }
        KDEImporterBuild.path = output
        return output
    }

    /// Runs a consumer to its end while pumping `clients`; fails unless it exits 0 and `done` holds.
    func runConsumer(_ script: String, _ arguments: [String], pumping clients: [MenuBusClient],
                             launcher: [String] = [], timeout: Double = 30,
                             until done: @escaping ([Line]) -> Bool = { _ in true }) throws -> Run {
        let consumer = try startConsumer(script, arguments, launcher: launcher)
        let finished = pumpClients(clients, timeout: timeout) { !consumer.output.isRunning && done(consumer.lines) }
        XCTAssertTrue(finished, consumer.diagnostics)
        if !consumer.output.isRunning {
            XCTAssertEqual(consumer.process.terminationStatus, 0, consumer.diagnostics)
        }
        return Run(lines: consumer.lines)
    }

    /// Pumps every client in turn until `done()` or `timeout` seconds.
    @discardableResult
    func pumpClients(_ clients: [MenuBusClient], timeout: Double = 30, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            if clients.isEmpty { usleep(10_000) }
            for client in clients { client.run(until: done, timeout: 0.01) }
        }
        return done()
    }

    func children(_ node: [String: Any]) -> [[String: Any]] {
        node["children"] as? [[String: Any]] ?? []
    }

    func label(_ node: [String: Any]) -> String {
        node["type"] as? String == "separator" ? "-" : node["label"] as? String ?? "?"
    }
}

/// The KDE importer program built in this run.
private enum KDEImporterBuild {
    nonisolated(unsafe) static var path: String?
}
