import Foundation
import MenuBusBusFixtures
import XCTest

/// A private `dbus-daemon` for one test suite, and the processes tests start on it.
final class PrivateBus: @unchecked Sendable {
    private let daemon: BusDaemon
    private var children: [Process] = []
    var address: String { daemon.address }
    var directory: URL { daemon.directory }

    /// Starts `dbus-daemon --session` on a fresh socket; throws if it does not come up.
    init(configExtra: String = "") throws {
        daemon = try BusDaemon(configExtra: configExtra)
    }

    deinit {
        stop()
    }

    func stop() {
        for child in children where child.isRunning {
            child.terminate()
            child.waitUntilExit()
        }
        children.removeAll()
        daemon.stop()
    }

    /// Environment for children: this bus as the session bus.
    /// Undo journals of daemons the tests start go below the bus's own directory.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        env["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        return env
    }

    /// A menubusd under test reads no provider declarations or user policy
    /// of this machine (an installed package's /usr/share/menubus/providers):
    /// its data and config folders are empty ones below the bus's directory.
    /// A test that declares providers passes its own.
    var daemonIsolation: [String: String] {
        ["XDG_DATA_HOME": directory.appendingPathComponent("data").path,
         "XDG_DATA_DIRS": directory.appendingPathComponent("data-dirs").path,
         "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path]
    }

    /// Starts one of the package's executables with this bus as its session bus.
    func start(_ executable: String, _ arguments: [String] = [], extraEnvironment: [String: String] = [:]) throws -> RunningProcess {
        try launch(Binaries.url(executable), arguments,
                   environment: environment.merging(executable == "menubusd" ? daemonIsolation : [:]) { $1 }
                       .merging(extraEnvironment) { $1 })
    }

    /// Starts a program outside the package (the Python and C examples, a
    /// compiler) with this bus as its session bus; it is stopped with the bus.
    func startProgram(_ path: String, _ arguments: [String]) throws -> RunningProcess {
        try launch(URL(fileURLWithPath: path), arguments, environment: environment)
    }

    /// Runs a program outside the package to completion, bounded by `timeout`.
    func runProgram(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> ProcessResult {
        try startProgram(path, arguments).wait(timeout: timeout)
    }

    private func launch(_ url: URL, _ arguments: [String], environment: [String: String]) throws -> RunningProcess {
        let child = Process()
        child.executableURL = url
        child.arguments = arguments
        child.environment = environment
        let err = Pipe(), out = Pipe()
        child.standardError = err
        child.standardOutput = out
        try child.run()
        children.append(child)
        return RunningProcess(process: child, stdout: out, stderr: err)
    }

    /// Runs an executable to completion (bounded by `timeout`) and returns its output.
    func run(_ executable: String, _ arguments: [String], timeout: Double = 20,
             extraEnvironment: [String: String] = [:]) throws -> ProcessResult {
        let running = try start(executable, arguments, extraEnvironment: extraEnvironment)
        return try running.wait(timeout: timeout)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct ProcessResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// A child process whose output is collected in the background.
final class RunningProcess: @unchecked Sendable {
    let process: Process
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private var openPipes = 2
    private var exitSeen: Date?

    /// Each pipe is read by a thread of its own with blocking reads until
    /// its end. (Not `readabilityHandler`: its dispatch source is cancelled
    /// asynchronously, and the descriptor closing meanwhile can crash
    /// libdispatch's event loop when the number is reused at once.)
    init(process: Process, stdout: Pipe, stderr: Pipe) {
        self.process = process
        read(stdout.fileHandleForReading, isStdout: true)
        read(stderr.fileHandleForReading, isStdout: false)
    }

    private func read(_ handle: FileHandle, isStdout: Bool) {
        let reader = Thread { [self] in
            while true {
                let data = handle.availableData
                lock.lock()
                if data.isEmpty {
                    openPipes -= 1
                    lock.unlock()
                    return
                }
                if isStdout { outData.append(data) } else { errData.append(data) }
                lock.unlock()
            }
        }
        reader.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// True until the process has exited and everything it wrote has been
    /// read, so a test that waits for the end sees its last lines. A child
    /// that inherited the pipes may hold them open: a second after the exit
    /// the process counts as ended anyway.
    var isRunning: Bool {
        if process.isRunning { return true }
        lock.lock(); defer { lock.unlock() }
        let exit = exitSeen ?? Date()
        exitSeen = exit
        return openPipes > 0 && Date().timeIntervalSince(exit) < 1
    }

    var stdoutText: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: outData, as: UTF8.self)
    }

    var stderrText: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for exit; kills the process and throws after `timeout` seconds.
    func wait(timeout: Double) throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw TestFailure("\(process.executableURL?.lastPathComponent ?? "process") did not exit within \(timeout) s; stderr: \(stderrText)")
        }
        process.waitUntilExit()
        // Everything it wrote, read to the end of both pipes (isRunning).
        while isRunning { usleep(2_000) }
        return ProcessResult(status: process.terminationStatus, stdout: stdoutText, stderr: stderrText)
    }
}

/// Runs `tool` (a path, or a name looked up on PATH) to completion, without
/// a bus, in `directory` with `environment` added; killed and thrown after
/// `timeout` seconds.
func runTool(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
             in directory: URL = Repository.root, timeout: Double = 600) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let running = RunningProcess(process: process, stdout: out, stderr: err)
    try process.run()
    return try running.wait(timeout: timeout)
}

/// Where `swift build` put the package's executables.
enum Binaries {
    static var directory: URL {
        // The XCTest runner on Linux is .build/<config>/<Package>PackageTests.xctest.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// `menubus-provider` is menubus-cli under that name, as `make install`
    /// and the package link it: the link is made beside it on first use.
    static func url(_ name: String) -> URL {
        let url = directory.appendingPathComponent(name)
        if name == "menubus-provider", (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != "menubus-cli" {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "menubus-cli")
        }
        return url
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
func eventually(timeout: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
