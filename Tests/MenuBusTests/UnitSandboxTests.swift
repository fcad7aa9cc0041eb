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

/// menubusd as the systemd unit runs it: home read-only (ProtectHome=), only
/// the unit's StateDirectory= writable and named in $STATE_DIRECTORY. No
/// systemd runs here, so a mount namespace (unshare, as root) stands in.
final class UnitSandboxTests: BusTestCase {
    private struct Sandbox {
        let home: URL
        let stateDirectory: URL      // where $STATE_DIRECTORY points inside the namespace
        let writableSource: URL      // the host directory bound there, as systemd does
    }

    /// The unit's own settings, read from systemd/menubusd.service.
    private func unitSetting(_ key: String) throws -> String? {
        let unit = try String(contentsOf: Repository.root.appendingPathComponent("systemd/menubusd.service"), encoding: .utf8)
        return unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// systemd before 254 puts a user unit's StateDirectory= under $XDG_CONFIG_HOME.
    private func userStateRoot() -> String {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "systemctl --version 2>/dev/null | head -n1"]
        process.standardOutput = pipe
        try? process.run()
        let line = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let number = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 252
        return number < 254 ? ".config" : ".local/state"
    }

    /// A session service: enabled, it starts with the graphical session it
    /// is part of (not default.target, which a text login reaches too), and
    /// it asks the per-user manager for nothing that manager cannot apply:
    /// BPF IP filtering and ProtectControlGroups= are for system services
    /// (systemd.resource-control(5), systemd.exec(5)), and the journal
    /// warns about them at every start.
    func testTheUnitBelongsToTheGraphicalSessionAndAsksOnlyWhatAUserManagerApplies() throws {
        XCTAssertEqual(try unitSetting("PartOf"), "graphical-session.target")
        XCTAssertEqual(try unitSetting("WantedBy"), try unitSetting("PartOf"), "installed into the target it is part of")
        for key in ["IPAddressDeny", "IPAddressAllow", "IPAccounting", "IPIngressFilterPath", "IPEgressFilterPath",
                    "ProtectControlGroups", "SocketBindDeny", "RestrictNetworkInterfaces"] {
            XCTAssertNil(try unitSetting(key), "\(key)= cannot apply in a user unit")
        }
        XCTAssertEqual(try unitSetting("RestrictAddressFamilies"), "AF_UNIX", "IP stays out without a BPF firewall")
    }

    private func makeSandbox() throws -> Sandbox {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("needs root and unshare(1) for a mount namespace")
        }
        XCTAssertEqual(try unitSetting("ProtectHome"), "read-only")
        let name = try XCTUnwrap(try unitSetting("StateDirectory"))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-sandbox-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        let state = home.appendingPathComponent(userStateRoot()).appendingPathComponent(name)
        let writable = root.appendingPathComponent("writable")
        for directory in [state, writable, home.appendingPathComponent(".local/state")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        return Sandbox(home: home, stateDirectory: state, writableSource: writable)
    }

    /// Starts menubusd in a mount namespace where HOME is read-only and only
    /// the state directory is writable, with the environment the unit gives it.
    private func startSandboxed(_ sandbox: Sandbox, passStateDirectory: Bool) throws -> RunningProcess {
        let script = """
            mount --bind "$SANDBOX_HOME" "$SANDBOX_HOME"
            mount -o remount,bind,ro "$SANDBOX_HOME"
            mount --bind "$SANDBOX_WRITABLE" "$SANDBOX_STATE"
            exec "$0"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-ec", script, Binaries.url("menubusd").path]
        var environment = try bus.environment
        environment["HOME"] = sandbox.home.path
        environment["XDG_STATE_HOME"] = nil
        environment["XDG_CONFIG_HOME"] = nil
        environment["STATE_DIRECTORY"] = passStateDirectory ? sandbox.stateDirectory.path : nil
        environment["SANDBOX_HOME"] = sandbox.home.path
        environment["SANDBOX_STATE"] = sandbox.stateDirectory.path
        environment["SANDBOX_WRITABLE"] = sandbox.writableSource.path
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        addTeardownBlock { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let probe = try connect()
        guard eventually(timeout: 10, { nameHasOwner(probe, MenuBusNames.busName) || !process.isRunning }), process.isRunning else {
            throw TestFailure("sandboxed menubusd did not take its name: \(running.stderrText)")
        }
        return running
    }

    func testUnderAReadOnlyHomeJournalsGoToTheStateDirectoryAndReload() throws {
        let sandbox = try makeSandbox()
        let first = try startSandboxed(sandbox, passStateDirectory: true)
        let app = try app("org.example.Sandboxed")
        for step in 1...3 {
            try app.registerUndo(document: "letter", actionName: "Step \(step)", undo: [UInt8(step)], redo: [0])
        }
        app.close()
        first.signal(SIGTERM)
        let stopped = try first.wait(timeout: 10)
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertFalse(stopped.stderr.contains("Read-only"), "the journal was writable: \(stopped.stderr)")
        let written = try FileManager.default.subpathsOfDirectory(atPath: sandbox.writableSource.path)
        XCTAssertFalse(written.isEmpty, "journal files landed in the unit's state directory")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.home.appendingPathComponent(".local/state").path), [],
                       "nothing written beside it")

        let second = try startSandboxed(sandbox, passStateDirectory: true)
        let again = try self.app("org.example.Sandboxed")
        let state = try again.undoState(document: "letter")
        XCTAssertEqual(state.undoCount, 3, second.stderrText)
        XCTAssertEqual(state.undoTitle, "Undo Step 3")
        again.close()
        second.signal(SIGTERM)
        XCTAssertEqual(try second.wait(timeout: 10).status, 0)
    }

    /// By hand first (`~/.local/state/menubus`), then by the systemd 252
    /// unit under its read-only home: the history is copied into the unit's
    /// directory, the original stays (it cannot go), and a later start says
    /// nothing more of it.
    func testAHistoryKeptByHandReachesTheUnitUnderAReadOnlyHome() throws {
        let sandbox = try makeSandbox()
        guard userStateRoot() == ".config" else { throw XCTSkip("the unit's directory is the state home's after systemd 254") }
        let plain = try startDaemon([], extraEnvironment: ["HOME": sandbox.home.path, "XDG_STATE_HOME": "",
                                                             "XDG_CONFIG_HOME": "", "STATE_DIRECTORY": ""])
        let app = try app("org.example.Sandboxed")
        for step in 1...2 { try app.registerUndo(document: "letter", actionName: "Step \(step)", undo: [1], redo: [0]) }
        app.close()
        plain.signal(SIGTERM)
        XCTAssertEqual(try plain.wait(timeout: 10).status, 0)

        for start in 1...2 {
            let unit = try startSandboxed(sandbox, passStateDirectory: true)
            let again = try self.app("org.example.Sandboxed")
            XCTAssertEqual(try again.undoState(document: "letter").undoTitle, "Undo Step 2", unit.stderrText)
            again.close()
            unit.signal(SIGTERM)
            let log = try unit.wait(timeout: 10).stderr
            XCTAssertEqual(log.contains("undo history of"), start == 1, log)
            XCTAssertTrue(start > 1 || log.contains("read-only"), log)
        }
    }

    func testWithoutStateDirectoryTheReadOnlyHomeIsReallyReadOnly() throws {
        // The control: the same namespace without $STATE_DIRECTORY reproduces
        // the old failure, so the test above proves something.
        let sandbox = try makeSandbox()
        let daemon = try startSandboxed(sandbox, passStateDirectory: false)
        let app = try app("org.example.Sandboxed")
        _ = try? app.registerUndo(document: "letter", actionName: "Step", undo: [1], redo: [0])
        app.close()
        daemon.signal(SIGTERM)
        let result = try daemon.wait(timeout: 10)
        XCTAssertTrue(result.stderr.contains("Read-only file system"), result.stderr)
    }

    func testStateDirectoryRule() {
        func resolve(_ environment: [String: String]) -> String {
            MenuBusServer.Configuration.defaultStateDirectory { environment[$0] }
        }
        XCTAssertEqual(resolve(["STATE_DIRECTORY": "/s/menubus", "XDG_STATE_HOME": "/x", "HOME": "/h"]), "/s/menubus")
        XCTAssertEqual(resolve(["STATE_DIRECTORY": "/s/a:/s/b"]), "/s/a", "the first of several")
        XCTAssertEqual(resolve(["STATE_DIRECTORY": "relative", "XDG_STATE_HOME": "/x"]), "/x/menubus")
        XCTAssertEqual(resolve(["XDG_STATE_HOME": "/x", "HOME": "/h"]), "/x/menubus")
        XCTAssertEqual(resolve(["XDG_STATE_HOME": "x", "HOME": "/h"]), "/h/.local/state/menubus")
        XCTAssertEqual(resolve(["HOME": "/h"]), "/h/.local/state/menubus")
        // Started by hand or by D-Bus activation without systemd: the
        // history the unit keeps where systemd before 254 put it, rather
        // than a second one; an existing state-folder history still wins.
        func resolve(_ environment: [String: String], histories: Set<String>) -> String {
            MenuBusServer.Configuration.defaultStateDirectory(environment: { environment[$0] },
                                                              hasUndo: { histories.contains($0) })
        }
        XCTAssertEqual(resolve(["HOME": "/h"], histories: ["/h/.config/menubus"]), "/h/.config/menubus")
        XCTAssertEqual(resolve(["HOME": "/h", "XDG_CONFIG_HOME": "/c"], histories: ["/c/menubus"]), "/c/menubus")
        XCTAssertEqual(resolve(["HOME": "/h"], histories: ["/h/.config/menubus", "/h/.local/state/menubus"]),
                       "/h/.local/state/menubus")
        XCTAssertEqual(resolve(["STATE_DIRECTORY": "/s/menubus", "HOME": "/h"], histories: ["/h/.config/menubus"]),
                       "/s/menubus", "the unit's own directory first")
    }
}
