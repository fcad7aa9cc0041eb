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

/// The installed Debian package (scripts/package --install, as CI runs it):
/// its files where Debian keeps them, binaries that need nothing of the
/// toolchain, D-Bus activation and the unit from the installed files.
/// Skipped when the menubus package is not installed.
final class InstalledPackageTests: BusTestCase {
    private func shell(_ command: String, environment: [String: String] = [:]) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                             stderr: String(decoding: e, as: UTF8.self))
    }

    /// The files of `package` (`dpkg -L`); skips when it is not installed.
    private func installedFiles(_ package: String = "menubus") throws -> [String] {
        let status = try shell("dpkg-query -W -f='${Status}' \(package) 2>/dev/null")
        guard status.stdout.contains("install ok installed") else {
            throw XCTSkip("the \(package) package is not installed (scripts/package --install)")
        }
        return try shell("dpkg -L \(package)").stdout.split(separator: "\n").map(String.init)
    }

    /// The directory the `swift` on PATH belongs to (/opt/swift for /opt/swift/usr/bin/swift).
    private func toolchainRoot() throws -> String {
        let swift = try shell("readlink -f \"$(command -v swift)\"").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !swift.isEmpty else { throw XCTSkip("no swift on PATH to hide") }
        var url = URL(fileURLWithPath: swift).deletingLastPathComponent()  // usr/bin
        if url.lastPathComponent == "bin" { url.deleteLastPathComponent() }
        if url.lastPathComponent == "usr" { url.deleteLastPathComponent() }
        return url.path
    }

    func testFilesAreWhereDebianKeepsThem() throws {
        let files = Set(try installedFiles())
        for path in ["/usr/bin/menubusd", "/usr/bin/menubus-cli",
                     try shell("pkg-config --variable=systemduserunitdir systemd").stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/menubusd.service",
                     "/usr/share/dbus-1/services/org.menubus.MenuBus1.service",
                     "/usr/share/dbus-1/interfaces/org.menubus.MenuBus1.xml",
                     "/usr/share/dbus-1/interfaces/org.menubus.MenuBus1.Menu.xml",
                     "/usr/share/man/man8/menubusd.8.gz", "/usr/share/man/man1/menubus-cli.1.gz",
                     "/usr/share/man/man8/menubus-provider.8.gz", "/usr/libexec/menubus/menubus-provider",
                     "/usr/share/bash-completion/completions/menubus-cli",
                     "/usr/share/zsh/vendor-completions/_menubus-cli", "/usr/share/doc/menubus/copyright"] {
            XCTAssertTrue(files.contains(path), "\(path) in dpkg -L menubus")
        }
        let man = try shell("man -l /usr/share/man/man8/menubusd.8.gz", environment: ["MANWIDTH": "80"])
        XCTAssertTrue(man.stdout.contains("SIGHUP") && man.stdout.contains("STATE_DIRECTORY"), man.stderr)
        XCTAssertFalse(files.contains("/usr/bin/menubus-provider"), "nobody runs the providers by hand: not on PATH")
        let providerMan = try shell("man -l /usr/share/man/man8/menubus-provider.8.gz", environment: ["MANWIDTH": "200"])
        XCTAssertTrue(providerMan.stdout.contains("/usr/libexec/menubus/menubus-provider PROVIDER"), providerMan.stdout)
    }

    /// menubus-provider is menubus-cli under a second name, in libexec: the
    /// service files start it from there, and started so it serves the
    /// bundled providers.
    func testTheBundledProvidersRunFromLibexec() throws {
        _ = try installedFiles()
        let provider = "/usr/libexec/menubus/menubus-provider"
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: provider), "../../bin/menubus-cli")
        for (service, argument) in [("TextTransforms", "text"), ("SearchWeb", "search-web"), ("Translate", "translate")] {
            let text = try String(contentsOfFile: "/usr/share/dbus-1/services/org.menubus.\(service).service", encoding: .utf8)
            XCTAssertTrue(text.contains("\nExec=\(provider) \(argument)\n"), text)
        }
        let help = try shell("\(provider) --help")
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.hasPrefix("Usage: menubus-provider PROVIDER"), help.stdout)
        _ = try startDaemon()
        let address = try bus.address
        let started = Process()
        started.executableURL = URL(fileURLWithPath: provider)
        started.arguments = ["text", "--address", address, "--idle-exit", "30"]
        try started.run()
        defer { started.terminate(); started.waitUntilExit() }
        let connection = try connect()
        XCTAssertTrue(eventually(timeout: 10) { self.nameHasOwner(connection, "org.menubus.TextTransforms") },
                      "the installed provider took its name")
    }

    /// The packages this tree builds, as debian/control names them, fit in
    /// 30 MiB installed: no Foundation and no ICU data in the binaries, and
    /// the Swift runtime in two of them, not three.
    func testThePackagesFitInThirtyMiBWithoutFoundationOrICU() throws {
        _ = try installedFiles()
        let control = try String(contentsOf: Repository.root.appendingPathComponent("debian/control"), encoding: .utf8)
        let packages = control.split(separator: "\n").filter { $0.hasPrefix("Package: ") }.map { $0.dropFirst(9) }
        XCTAssertEqual(packages.count, 7)
        var total = 0
        for package in packages {
            let size = try shell("dpkg-query -W -f='${Installed-Size}' \(package)")
            guard size.status == 0, let kib = Int(size.stdout) else { return XCTFail("\(package) is not installed: \(size.stderr)") }
            total += kib
        }
        XCTAssertLessThanOrEqual(total, 30 * 1024, "Installed-Size of \(packages.joined(separator: ", ")): \(total) KiB")
        for binary in ["/usr/bin/menubusd", "/usr/bin/menubus-cli"] {
            let needed = try shell("readelf -d \(binary)").stdout
            XCTAssertFalse(needed.contains("libFoundation") || needed.contains("libicu"), needed)
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: binary))
            for marker in ["FoundationEssentials", "FoundationInternationalization", "icudt"] {
                XCTAssertNil(bytes.range(of: Data(marker.utf8)), "\(binary) holds \(marker)")
            }
            XCTAssertTrue(needed.contains("BIND_NOW") || needed.contains("Flags: NOW"), "\(binary) is linked -z now: \(needed)")
        }
    }

    /// The .debs scripts/package built (in .build/debian) are lintian clean
    /// with every tag shown (`--pedantic -I`): what remains is overridden,
    /// each override with its reason in debian/*.lintian-overrides.
    func testTheBuiltPackagesAreLintianCleanWithPedanticAndInfoTags() throws {
        _ = try installedFiles()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian") else { throw XCTSkip("no lintian") }
        let version = try shell("dpkg-query -W -f='${Version}' menubus").stdout
        let folder = Repository.root.appendingPathComponent(".build/debian").path
        let debs = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".deb") && $0.contains("_\(version)_") && !$0.contains("-dbgsym_") }.sorted()
        guard !debs.isEmpty else { throw XCTSkip("no .deb of \(version) in .build/debian (scripts/package)") }
        let lintian = try shell("cd '\(folder)' && lintian --pedantic -I --tag-display-limit 0 \(debs.joined(separator: " "))")
        let said = (lintian.stdout + lintian.stderr).split(separator: "\n").filter { !$0.contains("running with root privileges") }
        XCTAssertEqual(said, [], "lintian --pedantic -I \(debs)")
        XCTAssertEqual(lintian.status, 0)
    }

    func testBinariesAreStrippedWithNoRunpathAndOnlyDebianLibraries() throws {
        _ = try installedFiles()
        let toolchain = try toolchainRoot()
        for binary in ["/usr/bin/menubusd", "/usr/bin/menubus-cli"] {
            let dynamic = try shell("readelf -d \(binary)").stdout
            XCTAssertFalse(dynamic.contains("RUNPATH") || dynamic.contains("RPATH"), "no library search path: \(dynamic)")
            XCTAssertFalse(dynamic.contains(toolchain))
            XCTAssertFalse(dynamic.contains("libswift"), "the Swift runtime is linked in: \(dynamic)")
            XCTAssertFalse(try shell("readelf -S \(binary)").stdout.contains(".debug_info"), "\(binary) is stripped")
            let ldd = try shell("ldd \(binary)")
            XCTAssertEqual(ldd.status, 0, ldd.stderr)
            XCTAssertFalse(ldd.stdout.contains("not found"), ldd.stdout)
            let libraries = ldd.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let arrow = line.range(of: "=> ") else {
                    let field = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
                    return field?.hasPrefix("/") == true ? field : nil
                }
                return line[arrow.upperBound...].split(separator: " ").first.map(String.init)
            }
            XCTAssertFalse(libraries.isEmpty)
            for library in libraries {
                XCTAssertFalse(library.hasPrefix(toolchain), library)
                // dpkg -S knows the file under its real or its /usr-merged name.
                let owner = try shell("dpkg -S '\(library)' || dpkg -S \"$(readlink -f '\(library)')\" || dpkg -S '/usr\(library)'")
                XCTAssertEqual(owner.status, 0, "\(library) belongs to a Debian package: \(owner.stderr)")
            }
        }
    }

    func testBinariesRunWithTheToolchainHidden() throws {
        _ = try installedFiles()
        guard getuid() == 0 else { throw XCTSkip("needs root for a mount namespace") }
        let toolchain = try toolchainRoot()
        let address = try bus.address
        // An empty directory over the toolchain, then the packaged daemon and
        // command line against the suite's bus, inside the same namespace.
        let script = """
            set -e
            mount -t tmpfs -o ro,size=1k empty "$TOOLCHAIN"
            test -z "$(ls -A "$TOOLCHAIN")"
            /usr/bin/menubusd --version
            /usr/bin/menubusd --address "$ADDRESS" --state-dir "$STATE" 2>/dev/null &
            daemon=$!
            i=0
            until /usr/bin/menubus-cli --address "$ADDRESS" status >/tmp/menubus-hidden-$$ 2>&1; do
                i=$((i + 1)); [ $i -lt 200 ] || { cat /tmp/menubus-hidden-$$; kill $daemon; exit 1; }
                sleep 0.05
            done
            cat /tmp/menubus-hidden-$$; rm -f /tmp/menubus-hidden-$$
            kill -TERM $daemon; wait $daemon
            """
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-hidden-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: state) }
        let result = try shell("unshare --mount --propagation private /bin/sh -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))'",
                               environment: ["TOOLCHAIN": toolchain, "ADDRESS": address, "STATE": state])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("menubusd \(MenuBusNames.softwareVersion)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("API version 1"), result.stdout)
    }

    func testInstalledActivationFileStartsThePackagedDaemon() throws {
        _ = try installedFiles()
        let services = "/usr/share/dbus-1/services"
        let activation = try String(contentsOfFile: services + "/org.menubus.MenuBus1.service", encoding: .utf8)
        XCTAssertTrue(activation.contains("Exec=/usr/bin/menubusd --idle-timeout 300\n"), activation)
        let activating = try PrivateBus(configExtra: "<servicedir>\(services)</servicedir>")
        defer { activating.stop() }
        // The first call that needs the daemon starts it; status only looks.
        let first = try shell("/usr/bin/menubus-cli contexts", environment: ["DBUS_SESSION_BUS_ADDRESS": activating.address])
        XCTAssertEqual(first.status, 0, first.stderr)
        let status = try shell("/usr/bin/menubus-cli status", environment: ["DBUS_SESSION_BUS_ADDRESS": activating.address])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("menubusd ") && status.stdout.contains("API version 1"), status.stdout)
        let pid = try shell("dbus-send --bus='\(activating.address)' --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID string:org.menubus.MenuBus1")
            .stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard let number = pid_t(pid), number > 0 else { return XCTFail("no pid for the activated daemon: \(pid)") }
        defer { kill(number, SIGTERM) }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(number)/exe"), "/usr/bin/menubusd")
        let commandLine = try String(contentsOfFile: "/proc/\(number)/cmdline", encoding: .utf8).split(separator: "\0")
        XCTAssertEqual(commandLine, ["/usr/bin/menubusd", "--idle-timeout", "300"], "activated with the idle timeout")
    }

    func testInstalledUnitPassesSystemdVerify() throws {
        _ = try installedFiles()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else { throw XCTSkip("no systemd-analyze") }
        let unit = try shell("pkg-config --variable=systemduserunitdir systemd").stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/menubusd.service"
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        XCTAssertTrue(text.contains("ExecStart=/usr/bin/menubusd --idle-timeout 300\n"), text)
        XCTAssertTrue(text.contains("StateDirectory=menubus\n") && text.contains("ProtectHome=read-only\n"))
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        let verify = try shell("systemd-analyze verify --user '\(unit)'", environment: ["XDG_RUNTIME_DIR": runtime.path])
        XCTAssertEqual(verify.status, 0, verify.stderr + verify.stdout)
        XCTAssertEqual(verify.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no findings")
    }

    // MARK: The GTK 3 module's package

    /// menubus-gtk3-module puts the module where GTK 3 looks without any
    /// GTK_PATH, depends on the daemon's package, and a GTK 3 program with
    /// GTK_MODULES=menubus loads it from there, saying nothing.
    func testTheGtk3ModulePackageIsLoadedByGtkFromWhereItInstalls() throws {
        let files = try installedFiles("menubus-gtk3-module")
        let libdir = try shell("pkg-config --variable=libdir gtk+-3.0").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let module = libdir + "/gtk-3.0/modules/libmenubus.so"
        XCTAssertTrue(files.contains(module), "\(module) in dpkg -L menubus-gtk3-module: \(files)")
        let depends = try shell("dpkg-query -W -f='${Depends}' menubus-gtk3-module").stdout
        XCTAssertTrue(depends.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("menubus ") },
                      "depends on menubus: \(depends)")
        XCTAssertFalse(try shell("readelf -d '\(module)'").stdout.contains("libswift"), "no Swift runtime in the module")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xvfb-run") else { throw XCTSkip("no xvfb-run (xvfb)") }
        let program = """
            import gi
            gi.require_version('Gtk', '3.0')
            from gi.repository import Gtk
            Gtk.init([])
            print('\\n'.join(line.split()[-1] for line in open('/proc/self/maps') if 'libmenubus' in line))
            """
        let bus = try self.bus
        let run = try shell("xvfb-run -a /usr/bin/python3 -c \"$PROGRAM\"",
                            environment: ["PROGRAM": program, "GTK_MODULES": "menubus", "GTK_PATH": "", "MENUBUS_DISABLE": "",
                                          "DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.split(separator: "\n").contains { $0 == module }, "GTK loaded \(module): \(run.stdout)")
        XCTAssertFalse(run.stderr.contains("menubus"), "nothing said about the module: \(run.stderr)")
    }

    // MARK: The GTK 4 library's packages

    /// libmenubus-gtk4-dev's pkg-config file builds the GTK 4 example as
    /// an app outside this tree would, against the installed library only.
    func testTheGtk4ExampleBuildsAgainstTheInstalledPackages() throws {
        _ = try installedFiles("libmenubus-gtk4-dev")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-gtk4-editor-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: output) }
        let folder = Repository.root.appendingPathComponent("examples/gtk4-editor")
        let source = ["main.c", "toolbar.c"].map { "'" + folder.appendingPathComponent($0).path + "'" }.joined(separator: " ")
        let build = try shell("cc -Wall -o '\(output)' \(source) $(pkg-config --cflags --libs menubus-gtk4)",
                              environment: ["PKG_CONFIG_PATH": ""])
        XCTAssertEqual(build.status, 0, build.stderr)
        let dynamic = try shell("readelf -d '\(output)'").stdout
        XCTAssertTrue(dynamic.contains("[libmenubus-gtk4.so.0]"), "links the library by its SONAME: \(dynamic)")
        XCTAssertFalse(dynamic.contains("RUNPATH") || dynamic.contains("RPATH"), dynamic)
        let resolved = try shell("ldd '\(output)'").stdout
        let library = resolved.split(separator: "\n").first { $0.contains("libmenubus-gtk4.so.0") } ?? ""
        XCTAssertTrue(library.contains("=> /usr/lib/") || library.contains("=> /lib/"), "the packaged library: \(library)")
        let owner = try shell("dpkg -S \"$(readlink -f /usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmenubus-gtk4.so.0)\"")
        XCTAssertTrue(owner.stdout.hasPrefix("libmenubus-gtk4-0"), owner.stdout + owner.stderr)
    }

    // MARK: The Qt themes' packages

    /// menubus-qt5-platformtheme and menubus-qt6-platformtheme put the theme
    /// in Qt's plugin folders, depend on the daemon's package and on the Qt
    /// ABI they were built against (they use Qt's private platform API), and
    /// need nothing outside Debian's Qt.
    func testTheQtThemePackagesPutThePluginWhereQtLooks() throws {
        for (package, version, abi) in [("menubus-qt5-platformtheme", 5, "qtbase-abi-"), ("menubus-qt6-platformtheme", 6, "qt6-base-abi")] {
            let files = try installedFiles(package)
            let libdir = try shell("pkg-config --variable=libdir Qt\(version)Core").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let plugin = libdir + "/qt\(version)/plugins/platformthemes/libmenubus.so"
            XCTAssertTrue(files.contains(plugin), "\(plugin) in dpkg -L \(package): \(files)")
            let depends = try shell("dpkg-query -W -f='${Depends}' \(package)").stdout
            XCTAssertTrue(depends.contains(abi), "\(package) depends on the Qt ABI: \(depends)")
            XCTAssertTrue(depends.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("menubus ") },
                          "\(package) depends on menubus: \(depends)")
            let ldd = try shell("ldd '\(plugin)'")
            XCTAssertEqual(ldd.status, 0, ldd.stderr)
            XCTAssertFalse(ldd.stdout.contains("not found"), ldd.stdout)
            // The shim core speaks D-Bus through GIO, as every shim does: the
            // plugin needs GIO and not QtDBus itself (Qt 6's Gui may bring QtDBus in).
            let needed = try shell("readelf -d '\(plugin)' | grep NEEDED")
            XCTAssertTrue(needed.stdout.contains("libgio-2.0"), needed.stdout)
            XCTAssertFalse(needed.stdout.contains("libQt\(version)DBus"), needed.stdout)
            XCTAssertFalse(ldd.stdout.contains("libswift"), "no Swift runtime in the plugin")
        }
    }
}
