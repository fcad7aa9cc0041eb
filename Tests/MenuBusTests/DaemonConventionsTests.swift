import Foundation
import XCTest
@testable import MenuBus

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
        guard eventually(timeout: 10, { nameHasOwner(probe, MenuBusServer.busName) || !process.isRunning }), process.isRunning else {
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
        XCTAssertFalse(nameHasOwner(client, MenuBusServer.busName), "the name was released")
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertTrue(help.stdout.contains("SIGHUP"), "--help documents SIGHUP")
        let man = try String(contentsOf: Repository.root.appendingPathComponent("docs/man/menubusd.8"), encoding: .utf8)
        XCTAssertTrue(man.contains("SIGHUP"), "the man page documents SIGHUP")
    }
}
