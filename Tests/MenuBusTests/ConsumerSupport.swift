import Foundation
import XCTest
@testable import MenuBus

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
        func send(_ line: String) {
            input?.fileHandleForWriting.write(Data((line + "\n").utf8))
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

    /// Skips (with the command that fixes it) when Debian's python3 lacks a module the consumer needs.
    func requireConsumerPackages(_ script: String) throws {
        let modules = script.hasPrefix("dbusmenu")
            ? "gi.require_version('Dbusmenu', '0.4'); from gi.repository import Dbusmenu"
            : script.hasPrefix("gtk")
                ? "gi.require_version('Gtk', '3.0'); gi.require_version('Gdk', '3.0'); from gi.repository import Gdk, Gtk"
                : "from gi.repository import Gio"
        let check = Process()
        check.executableURL = URL(fileURLWithPath: Self.python)
        check.arguments = ["-c", "import gi; \(modules)"]
        check.standardError = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: Self.python), (try? check.run()) != nil else {
            throw XCTSkip("no \(Self.python); run scripts/setup")
        }
        check.waitUntilExit()
        if check.terminationStatus != 0 {
            throw XCTSkip("\(Self.python) cannot load what \(script) needs; run scripts/setup")
        }
    }

    /// Starts `script` with `arguments` (under `launcher`, e.g. xvfb-run);
    /// with `input`, its stdin is that pipe (`Consumer.send` writes a line).
    func startConsumer(_ script: String, _ arguments: [String], launcher: [String] = [],
                       input: Pipe? = nil) throws -> Consumer {
        try requireConsumerPackages(script)
        let directory = Repository.root.appendingPathComponent("Tests/consumers")
        let process = Process()
        let command = launcher + [Self.python, directory.appendingPathComponent(script).path] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory
        var environment = try bus.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
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

    /// Runs a consumer to its end while pumping `clients`; fails unless it exits 0 and `done` holds.
    func runConsumer(_ script: String, _ arguments: [String], pumping clients: [MenuBusClient],
                             launcher: [String] = [], timeout: Double = 30,
                             until done: @escaping ([Line]) -> Bool = { _ in true }) throws -> Run {
        let consumer = try startConsumer(script, arguments, launcher: launcher)
        let finished = pumpClients(clients, timeout: timeout) { !consumer.process.isRunning && done(consumer.lines) }
        XCTAssertTrue(finished, consumer.diagnostics)
        if !consumer.process.isRunning {
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
        usleep(20_000)  // let the output handlers drain the pipes
        return done()
    }

    func children(_ node: [String: Any]) -> [[String: Any]] {
        node["children"] as? [[String: Any]] ?? []
    }

    func label(_ node: [String: Any]) -> String {
        node["type"] as? String == "separator" ? "-" : node["label"] as? String ?? "?"
    }
}
