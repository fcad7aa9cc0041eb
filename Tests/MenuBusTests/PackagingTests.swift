import Foundation
import XCTest
@testable import MenuBus

/// `make install` into a staging prefix, and the files it installs.
final class PackagingTests: XCTestCase {
    private func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                     in directory: URL = Repository.root) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self))
    }

    private func stagingPrefix() throws -> URL {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-install-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: prefix) }
        return prefix
    }

    func testMakeInstallHonoursPrefixAndPointsActivationAtTheInstalledDaemon() throws {
        let prefix = try stagingPrefix()
        let result = try run("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let daemon = prefix.appendingPathComponent("bin/menubusd").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: daemon))
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/menubus-cli").path))
        let activation = try String(contentsOf: prefix.appendingPathComponent("share/dbus-1/services/org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=\(daemon)\n"), activation)
        XCTAssertTrue(activation.contains("SystemdService=menubusd.service"))
        let unit = try String(contentsOf: prefix.appendingPathComponent("lib/systemd/user/menubusd.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(daemon)\n"), unit)
        XCTAssertTrue(unit.contains("Type=dbus") && unit.contains("BusName=org.menubus.MenuBus1"))
    }

    func testMakeInstallHonoursDestdir() throws {
        let stage = try stagingPrefix()
        let result = try run("make", ["install", "DESTDIR=\(stage.path)", "PREFIX=/usr", "BUILDDIR=\(Binaries.directory.path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let activation = try String(contentsOf: stage.appendingPathComponent("usr/share/dbus-1/services/org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=/usr/bin/menubusd\n"), "DESTDIR stays out of the installed paths")
    }

    func testInstalledUserUnitPassesSystemdVerify() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw XCTSkip("systemd-analyze is not installed")
        }
        let prefix = try stagingPrefix()
        XCTAssertEqual(try run("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        let runtime = prefix.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let unit = prefix.appendingPathComponent("lib/systemd/user/menubusd.service").path
        // Documentation=man:menubusd(8) is checked with man(1): point it at the staged pages.
        let result = try run("systemd-analyze", ["verify", "--user", unit],
                             environment: ["XDG_RUNTIME_DIR": runtime.path, "MANPATH": prefix.appendingPathComponent("share/man").path])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertEqual(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no findings")
    }

    func testMakeInstallAddsManPagesAndCompletions() throws {
        let prefix = try stagingPrefix()
        XCTAssertEqual(try run("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        for path in ["share/man/man8/menubusd.8", "share/man/man1/menubus-cli.1",
                     "share/bash-completion/completions/menubus-cli", "share/zsh/site-functions/_menubus-cli"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent(path).path)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 100, path)
        }
        let man = try run("man", ["-l", prefix.appendingPathComponent("share/man/man1/menubus-cli.1").path],
                          environment: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0"])
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertTrue(man.stdout.contains("query and debug menubusd"))
    }

    func testFirstCallStartsTheInstalledDaemonByDBusActivation() throws {
        let prefix = try stagingPrefix()
        XCTAssertEqual(try run("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        let services = prefix.appendingPathComponent("share/dbus-1/services").path
        let bus = try PrivateBus(configExtra: "<servicedir>\(services)</servicedir>")
        defer {
            _ = try? run(prefix.appendingPathComponent("bin/menubus-cli").path, ["--address", bus.address, "status"])
            bus.stop()
        }
        let status = try run(prefix.appendingPathComponent("bin/menubus-cli").path, ["status"],
                             environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("menubusd \(MenuBusServer.softwareVersion), API version 1, pid "), status.stdout)
        // The daemon that answered is the installed one, started by the bus.
        let owner = try run("dbus-send", ["--bus=\(bus.address)", "--print-reply=literal", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                                          "string:org.menubus.MenuBus1"])
        let pid = owner.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        XCTAssertEqual(exe, prefix.appendingPathComponent("bin/menubusd").path)
        kill(pid_t(pid) ?? 0, SIGTERM)
    }
}
