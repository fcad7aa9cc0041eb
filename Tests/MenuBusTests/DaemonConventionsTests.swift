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

/// What a session service is expected to do: stop cleanly on SIGHUP, log
/// for the journal only when stderr is the journal, give its name up to a
/// `--replace`, and leave when idle after activation.
final class DaemonConventionsTests: BusTestCase {
    /// Starts menubusd with stderr on a pipe whose device and inode are
    /// known, and optionally JOURNAL_STREAM naming that pipe (as systemd does).
    private func startWithStderrPipe(journalStreamNamesIt: Bool?, environment extra: [String: String] = [:])
        throws -> (RunningProcess, Process) {
        let err = Pipe(), out = Pipe()
        var info = stat()
        XCTAssertEqual(fstat(err.fileHandleForWriting.fileDescriptor, &info), 0)
        var environment = try bus.environment.merging(extra) { $1 }
        switch journalStreamNamesIt {
        case true?: environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        case false?: environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino &+ 1)"
        case nil: environment["JOURNAL_STREAM"] = nil
        }
        let process = Process()
        process.executableURL = Binaries.url("menubusd")
        process.environment = environment
        process.standardError = err
        process.standardOutput = out
        try process.run()
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        addTeardownBlock { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let probe = try connect()
        guard eventually(timeout: 10, { nameHasOwner(probe, MenuBusNames.busName) || !process.isRunning }), process.isRunning else {
            throw TestFailure("menubusd did not take its name: \(running.stderrText)")
        }
        return (running, process)
    }

    func testLevelPrefixesOnlyWhenJournalStreamNamesStderr() throws {
        let (journal, _) = try startWithStderrPipe(journalStreamNamesIt: true)
        journal.signal(SIGTERM)
        let journalled = try journal.wait(timeout: 10)
        XCTAssertEqual(journalled.status, 0, journalled.stderr)
        let lines = journalled.stderr.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") || $0.hasPrefix("<3>") },
                      "every line carries a level for journald: \(journalled.stderr)")

        for stream in [false, nil] as [Bool?] {
            let (plain, _) = try startWithStderrPipe(journalStreamNamesIt: stream)
            plain.signal(SIGTERM)
            let result = try plain.wait(timeout: 10)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stderr.contains("serving org.menubus.MenuBus1"), result.stderr)
            XCTAssertFalse(result.stderr.contains("<6>"),
                           "no prefixes when JOURNAL_STREAM is \(stream.map { $0 ? "this pipe" : "another file" } ?? "unset"): \(result.stderr)")
        }
    }

    func testJournalStreamMatchingIsByDeviceAndInodeOfFd2() {
        var info = stat()
        XCTAssertEqual(fstat(2, &info), 0)
        XCTAssertTrue(Log.stderrIsJournal("\(info.st_dev):\(info.st_ino)"))
        XCTAssertFalse(Log.stderrIsJournal("\(info.st_dev):\(info.st_ino &+ 1)"))
        XCTAssertFalse(Log.stderrIsJournal(nil))
        for garbage in ["", ":", "12", "a:b", "1:2:3", "-1:5"] {
            XCTAssertFalse(Log.stderrIsJournal(garbage), garbage)
        }
    }

    func testSighupStopsCleanlyLikeSigterm() throws {
        let daemon = try startDaemon()
        let client = try connect()
        daemon.signal(SIGHUP)
        let result = try daemon.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, "not killed with 129: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("stopping on signal \(SIGHUP)"), result.stderr)
        XCTAssertFalse(nameHasOwner(client, MenuBusNames.busName), "the name was released")
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertTrue(help.stdout.contains("SIGHUP"), "--help documents SIGHUP")
        let man = try String(contentsOf: Repository.root.appendingPathComponent("docs/man/menubusd.8"), encoding: .utf8)
        XCTAssertTrue(man.contains("SIGHUP"), "the man page documents SIGHUP")
    }

    private func temporaryStateDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }

    private func ownerPid(_ connection: Connection) throws -> UInt32? {
        let reply = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                                arguments: [.string(MenuBusNames.busName)], timeout: 5)
        if case .uint32(let pid)? = reply.first { return pid }
        return nil
    }

    func testReplaceTakesTheNameAndTheReplacedDaemonSyncsAndExitsZero() throws {
        let state = try temporaryStateDirectory()
        let old = try startDaemon(["--state-dir", state])
        let app = try app("org.example.Replaced")
        for letter in ["a", "b", "c"] {
            try app.registerUndo(document: "doc", actionName: "Typing \(letter)", undo: [1], redo: [2])
        }
        let new = try bus.start("menubusd", ["--replace", "--state-dir", state])
        addTeardownBlock { if new.isRunning { new.signal(SIGTERM); _ = try? new.wait(timeout: 5) } }
        let result = try old.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("another menubusd took org.menubus.MenuBus1"), result.stderr)
        let probe = try connect()
        XCTAssertTrue(eventually(timeout: 10) { (try? ownerPid(probe)) == UInt32(new.pid) }, new.stderrText)
        XCTAssertTrue(new.isRunning)
        // The new daemon has the steps the old one journalled.
        let fresh = try self.app("org.example.Replaced")
        let undo = try fresh.undoState(document: "doc")
        XCTAssertEqual(undo.undoCount, 3)
        XCTAssertEqual(undo.undoTitle, "Undo Typing c")
    }

    func testTheNameIsOwnedAllowingReplacementButNotTakenWithoutReplace() throws {
        _ = try startDaemon()
        let second = try bus.run("menubusd", [], timeout: 10)
        XCTAssertEqual(second.status, 3, "without --replace a second daemon still leaves the first alone")
        XCTAssertTrue(second.stderr.contains("--replace"), "the refusal names the way out: \(second.stderr)")
        // A plain RequestName with REPLACE_EXISTING (flag 2 | DO_NOT_QUEUE 4) succeeds: the flag was allowed.
        let taker = try connect()
        let reply = try taker.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "RequestName",
                                           arguments: [.string(MenuBusNames.busName), .uint32(2 | 4)], timeout: 5)
        XCTAssertEqual(reply.first, .uint32(1), "DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER")
    }

    func testIdleTimeoutExitsWhenNothingNeedsTheDaemon() throws {
        let daemon = try startDaemon(["--idle-timeout", "0.4"])
        let result = try daemon.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("idle for"), result.stderr)
        XCTAssertFalse(nameHasOwner(try connect(), MenuBusNames.busName))
    }

    func testIdleTimeoutWaitsWhileAnAppOrProviderIsThere() throws {
        let daemon = try startDaemon(["--idle-timeout", "0.4"])
        let app = try app("org.example.Busy")
        XCTAssertFalse(eventually(timeout: 1.5) { !daemon.isRunning }, "a registered app keeps the daemon: \(daemon.stderrText)")
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Keep", title: "Keep")) { text, _ in text }
        app.close()
        XCTAssertFalse(eventually(timeout: 1.5) { !daemon.isRunning }, "a provider keeps the daemon too")
        provider.close()
        XCTAssertTrue(eventually(timeout: 10) { !daemon.isRunning }, "idle again once both left")
        XCTAssertEqual(try daemon.wait(timeout: 1).status, 0)
    }

    func testStartedByHandTheDaemonNeverLeavesOnItsOwnButActivatedItDoes() throws {
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertTrue(help.stdout.contains("--idle-timeout") && help.stdout.contains("--replace"), help.stdout)
        let activation = try String(contentsOf: Repository.root.appendingPathComponent("dbus/org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=/usr/local/bin/menubusd --idle-timeout 300\n"), activation)
        let unit = try String(contentsOf: Repository.root.appendingPathComponent("systemd/menubusd.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=/usr/local/bin/menubusd --idle-timeout 300\n"), unit)
        XCTAssertTrue(unit.contains("PartOf=graphical-session.target\n") && unit.contains("After=graphical-session.target\n"), unit)
        XCTAssertEqual(try bus.run("menubusd", ["--idle-timeout", "0"]).status, 2)
        XCTAssertEqual(try bus.run("menubusd", ["--idle-timeout"]).status, 2)
    }
}
