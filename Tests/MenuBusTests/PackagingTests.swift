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

/// `make install` into a staging prefix, and the files it installs.
final class PackagingTests: XCTestCase {
    private func stagingPrefix() throws -> URL {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-install-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: prefix) }
        return prefix
    }

    func testMakeInstallHonoursPrefixAndPointsActivationAtTheInstalledDaemon() throws {
        let prefix = try stagingPrefix()
        let result = try runTool("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let daemon = prefix.appendingPathComponent("bin/menubusd").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: daemon))
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/menubus-cli").path))
        let activation = try String(contentsOf: prefix.appendingPathComponent("share/dbus-1/services/org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=\(daemon) --idle-timeout 300\n"), activation)
        XCTAssertTrue(activation.contains("SystemdService=menubusd.service"))
        let unit = try String(contentsOf: prefix.appendingPathComponent("lib/systemd/user/menubusd.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(daemon) --idle-timeout 300\n"), unit)
        XCTAssertTrue(unit.contains("Type=dbus") && unit.contains("BusName=org.menubus.MenuBus1"))
    }

    func testMakeInstallHonoursDestdir() throws {
        let stage = try stagingPrefix()
        let result = try runTool("make", ["install", "DESTDIR=\(stage.path)", "PREFIX=/usr", "BUILDDIR=\(Binaries.directory.path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let activation = try String(contentsOf: stage.appendingPathComponent("usr/share/dbus-1/services/org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=/usr/bin/menubusd --idle-timeout 300\n"), "DESTDIR stays out of the installed paths")
        // PREFIX=/usr takes the system paths from pkg-config; zsh gets Debian's vendor-completions.
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage.path + (try pkgConfig("systemd", "systemduserunitdir")) + "/menubusd.service"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage.path + "/usr/share/zsh/vendor-completions/_menubus-cli"))
    }

    func testInstalledUserUnitPassesSystemdVerify() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw XCTSkip("systemd-analyze is not installed")
        }
        let prefix = try stagingPrefix()
        XCTAssertEqual(try runTool("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        let runtime = prefix.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let unit = prefix.appendingPathComponent("lib/systemd/user/menubusd.service").path
        // Documentation=man:menubusd(8) is checked with man(1): point it at the staged pages.
        let result = try runTool("systemd-analyze", ["verify", "--user", unit],
                             environment: ["XDG_RUNTIME_DIR": runtime.path, "MANPATH": prefix.appendingPathComponent("share/man").path])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertEqual(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no findings")
    }

    func testMakeInstallAddsManPagesAndCompletions() throws {
        let prefix = try stagingPrefix()
        XCTAssertEqual(try runTool("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        for path in ["share/man/man8/menubusd.8", "share/man/man1/menubus-cli.1", "share/man/man8/menubus-provider.8",
                     "share/bash-completion/completions/menubus-cli", "share/zsh/site-functions/_menubus-cli"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent(path).path)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 100, path)
        }
        let man = try runTool("man", ["-l", prefix.appendingPathComponent("share/man/man1/menubus-cli.1").path],
                          environment: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0"])
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertTrue(man.stdout.contains("query and debug menubusd"))
    }

    private func pkgConfig(_ package: String, _ variable: String) throws -> String {
        let result = try runTool("pkg-config", ["--variable=\(variable)", package])
        XCTAssertEqual(result.status, 0, "pkg-config knows \(package): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func makePaths(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: String] {
        let result = try runTool("make", ["-s", "print-paths"] + arguments, environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        var paths: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { paths[String(parts[0])] = String(parts[1]) }
        }
        return paths
    }

    func testSystemPrefixTakesItsPathsFromPkgConfig() throws {
        let paths = try makePaths(["PREFIX=/usr"])
        XCTAssertEqual(paths["SYSTEMD_USER_DIR"], try pkgConfig("systemd", "systemduserunitdir"))
        XCTAssertEqual(paths["DBUS_SERVICES_DIR"], try pkgConfig("dbus-1", "session_bus_services_dir"))
        XCTAssertEqual(paths["BASH_COMPLETION_DIR"], try pkgConfig("bash-completion", "completionsdir"))
        XCTAssertEqual(paths["ZSH_COMPLETION_DIR"], "/usr/share/zsh/vendor-completions", "what Debian's zsh searches")
        let local = try makePaths(["PREFIX=/usr/local"])
        XCTAssertEqual(local["SYSTEMD_USER_DIR"], "/usr/local/lib/systemd/user")
        XCTAssertEqual(local["ZSH_COMPLETION_DIR"], "/usr/local/share/zsh/site-functions")
    }

    /// `make install PREFIX=$HOME/.local`, as the README says, then the real
    /// tools find what it installed: systemd's unit search path lists the
    /// unit's directory, and a session bus started with the stock
    /// configuration activates the installed daemon.
    func testHomePrefixInstallsWhereSystemdDBusAndBashCompletionLook() throws {
        let root = try stagingPrefix()
        let home = root.appendingPathComponent("home")
        let runtime = root.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        for variable in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS"] {
            environment[variable] = nil
        }
        environment["HOME"] = home.path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        func runClean(_ tool: String, _ arguments: [String]) throws -> ProcessResult {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
            process.currentDirectoryURL = Repository.root
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ProcessResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                                 stderr: String(decoding: e, as: UTF8.self))
        }
        let install = try runClean("make", ["install", "PREFIX=\(home.path)/.local", "BUILDDIR=\(Binaries.directory.path)"])
        XCTAssertEqual(install.status, 0, install.stderr)
        let share = home.appendingPathComponent(".local/share")
        for path in ["systemd/user/menubusd.service", "dbus-1/services/org.menubus.MenuBus1.service",
                     "bash-completion/completions/menubus-cli"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: share.appendingPathComponent(path).path), path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/lib/systemd").path),
                       "nothing in ~/.local/lib/systemd/user, which systemd never searches")
        // zsh searches no folder in the home directory: the install names the
        // line that adds its folder, and with that line zsh's compinit finds it.
        let zshFolder = share.appendingPathComponent("zsh/site-functions").path
        let fpathLine = "fpath=(\(zshFolder) $fpath)"
        XCTAssertTrue(install.stdout.contains("add this line to ~/.zshrc, before compinit:\n    \(fpathLine)\n"), install.stdout)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            let dump = root.appendingPathComponent("zcompdump").path
            let zsh = try runClean("zsh", ["-f", "-c", "\(fpathLine); autoload -U compinit; compinit -u -d '\(dump)'; print -r -- $_comps[menubus-cli]"])
            XCTAssertEqual(zsh.stdout, "_menubus-cli\n", zsh.stderr)
        }

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let unitPaths = try runClean("systemd-analyze", ["--user", "unit-paths"])
            XCTAssertEqual(unitPaths.status, 0, unitPaths.stderr)
            XCTAssertTrue(unitPaths.stdout.split(separator: "\n").contains { $0 == share.appendingPathComponent("systemd/user").path },
                          unitPaths.stdout)
        }

        // The stock session bus configuration searches $XDG_DATA_HOME/dbus-1/services.
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:dir=\(runtime.path)"]
        // dbus-daemon finds the home directory through the password database,
        // not $HOME: name the data home this user's default would be.
        bus.environment = environment.merging(["XDG_DATA_HOME": share.path]) { $1 }
        let busOut = Pipe()
        bus.standardOutput = busOut
        try bus.run()
        defer { bus.terminate(); bus.waitUntilExit() }
        var addressData = Data()
        while !addressData.contains(UInt8(ascii: "\n")) {
            let chunk = busOut.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            addressData.append(chunk)
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = String(decoding: addressData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        // The first call that needs the daemon starts it; status only looks.
        let first = try runClean(home.appendingPathComponent(".local/bin/menubus-cli").path, ["contexts"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let status = try runClean(home.appendingPathComponent(".local/bin/menubus-cli").path, ["status"])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("menubusd ") && status.stdout.contains("API version 1"), status.stdout)
        let pid = try runClean("dbus-send", ["--session", "--print-reply=literal", "--dest=org.freedesktop.DBus",
                                             "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                                             "string:org.menubus.MenuBus1"])
        let number = pid.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(number)/exe"),
                       home.appendingPathComponent(".local/bin/menubusd").path)
        if let daemon = pid_t(number), daemon > 0 { kill(daemon, SIGTERM) }
    }

    /// `make install` builds first when nothing is built, and under sudo
    /// it builds as the user who ran sudo. The toolchain is a stand-in that
    /// records who ran it, in a copy of the tree's build files.
    func testInstallBuildsFirstAndNotAsRootUnderSudo() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to act as sudo does") }
        let tree = try stagingPrefix()
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: tree, withIntermediateDirectories: true)
        for item in ["Makefile", "Package.swift", "dbus", "systemd", "docs", "data", "scripts", "po", "shims"] {
            try fileManager.copyItem(at: Repository.root.appendingPathComponent(item), to: tree.appendingPathComponent(item))
        }
        try fileManager.createDirectory(at: tree.appendingPathComponent("Sources/menubusd"), withIntermediateDirectories: true)
        try "// source\n".write(to: tree.appendingPathComponent("Sources/menubusd/main.swift"), atomically: true, encoding: .utf8)
        let log = tree.appendingPathComponent("swift.log")
        let fakeSwift = tree.appendingPathComponent("fake-swift")
        try """
            #!/bin/sh
            echo "$(id -un) $*" >> \(log.path)
            mkdir -p .build/release
            printf '#!/bin/sh\\necho daemon\\n' > .build/release/menubusd
            printf '#!/bin/sh\\necho "# completion $2 for menubus-cli, long enough to pass as one: ................................................................"\\n' > .build/release/menubus-cli
            chmod 755 .build/release/menubusd .build/release/menubus-cli
            """.write(to: fakeSwift, atomically: true, encoding: .utf8)
        chmod(fakeSwift.path, 0o755)
        chmod(tree.path, 0o777)
        chmod(log.deletingLastPathComponent().path, 0o777)
        let stage = tree.appendingPathComponent("stage")
        func install(_ extra: [String] = [], environment: [String: String] = [:]) throws -> ProcessResult {
            try runTool("make", ["install", "SWIFT=\(fakeSwift.path)", "DESTDIR=\(stage.path)", "PREFIX=/usr"] + extra,
                    environment: environment, in: tree)
        }
        let first = try install(environment: ["SUDO_USER": "nobody"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("building as nobody, not as root"), first.stdout)
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8), "nobody build -c release\n", "built once, as the sudo user")
        XCTAssertTrue(fileManager.isExecutableFile(atPath: stage.appendingPathComponent("usr/bin/menubusd").path))

        let again = try install(environment: ["SUDO_USER": "nobody"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count, 1, "up to date: no second build")

        // A source newer than the binaries builds again; without sudo, as the caller.
        try fileManager.setAttributes([.modificationDate: Date().addingTimeInterval(60)],
                                      ofItemAtPath: tree.appendingPathComponent("Sources/menubusd/main.swift").path)
        let third = try install(environment: ["SUDO_USER": ""])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").last, "root build -c release")
    }

    /// debian/ in git holds what people write; what debhelper generates on
    /// every build (maintainer-script snippets, substvars, stamps, the
    /// staging trees) is ignored, so a build leaves `git status` clean.
    func testGeneratedDebhelperFilesAreNotTrackedButIgnored() throws {
        let tracked = try runTool("git", ["ls-files", "debian"])
        guard tracked.status == 0 else { throw XCTSkip("not a git checkout: \(tracked.stderr)") }
        XCTAssertEqual(tracked.stdout.split(separator: "\n").map(String.init),
                       ["debian/changelog", "debian/control", "debian/copyright", "debian/libmenubus-gtk4-0.symbols",
                        "debian/menubus.lintian-overrides", "debian/rules", "debian/source/format"])
        let generated = ["debian/menubus.postinst.debhelper", "debian/menubus.postrm.debhelper", "debian/menubus.substvars",
                         "debian/files", "debian/debhelper-build-stamp", "debian/.debhelper/generated/menubus/installed-by-dh_installdocs",
                         "debian/menubus/usr/bin/menubusd", "debian/menubus-qt6-platformtheme/DEBIAN/control", "debian/tmp/x",
                         "debian/menubus.debhelper.log"]
        let ignored = try runTool("git", ["check-ignore", "--no-index"] + generated)
        XCTAssertEqual(ignored.stdout.split(separator: "\n").map(String.init), generated, ignored.stderr)
    }

    func testFirstCallStartsTheInstalledDaemonByDBusActivation() throws {
        let prefix = try stagingPrefix()
        XCTAssertEqual(try runTool("make", ["install", "PREFIX=\(prefix.path)", "BUILDDIR=\(Binaries.directory.path)"]).status, 0)
        let services = prefix.appendingPathComponent("share/dbus-1/services").path
        let bus = try PrivateBus(configExtra: "<servicedir>\(services)</servicedir>")
        defer {
            _ = try? runTool(prefix.appendingPathComponent("bin/menubus-cli").path, ["--address", bus.address, "status"])
            bus.stop()
        }
        // The first call that needs the daemon starts it; status only looks.
        let first = try runTool(prefix.appendingPathComponent("bin/menubus-cli").path, ["contexts"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(first.status, 0, first.stderr)
        let status = try runTool(prefix.appendingPathComponent("bin/menubus-cli").path, ["status"],
                             environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("menubusd \(MenuBusNames.softwareVersion), API version 1, pid "), status.stdout)
        // The daemon that answered is the installed one, started by the bus.
        let owner = try runTool("dbus-send", ["--bus=\(bus.address)", "--print-reply=literal", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                                          "string:org.menubus.MenuBus1"])
        let pid = owner.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        XCTAssertEqual(exe, prefix.appendingPathComponent("bin/menubusd").path)
        if let daemon = pid_t(pid), daemon > 0 { kill(daemon, SIGTERM) }
    }
}

/// scripts/setup, run with recording stand-ins for apt-get and dpkg-query
/// (so nothing is installed and the real dpkg lock is never touched).
final class SetupScriptTests: XCTestCase {
    func testAptGetWaitsForTheDpkgLockAndSaysSo() throws {
        guard getuid() == 0 else { throw XCTSkip("the root branch of scripts/setup runs apt-get directly") }
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-setup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        let log = bin.appendingPathComponent("apt-get.log")
        try "#!/bin/sh\necho \"$*\" >> \(log.path)\n".write(to: bin.appendingPathComponent("apt-get"), atomically: true, encoding: .utf8)
        try "#!/bin/sh\nexit 1\n".write(to: bin.appendingPathComponent("dpkg-query"), atomically: true, encoding: .utf8)
        for tool in ["apt-get", "dpkg-query"] {
            chmod(bin.appendingPathComponent(tool).path, 0o755)
        }
        let process = Process()
        process.executableURL = Repository.root.appendingPathComponent("scripts/setup")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["MENUBUS_DPKG_LOCK_TIMEOUT"] = "42"
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("dpkg lock") && stderr.contains("42s"), "it says what it waits for: \(stderr)")
        let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(calls.count, 2, "update, then install: \(calls)")
        for call in calls {
            XCTAssertTrue(call.hasPrefix("-o DPkg::Lock::Timeout=42 "), String(call))
        }
        XCTAssertTrue(calls.last?.contains("install -y --no-install-recommends") ?? false)
        XCTAssertTrue(calls.last?.contains(" debhelper ") ?? false, "the packaging tools are on the list")
    }
}
