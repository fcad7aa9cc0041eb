import Foundation
import MenuBusDBus
import MenuBusProtocol
import XCTest

/// The house rules of the shims (shims/), which run inside other people's
/// programs: files a reader takes in at once, one core every shim compiles,
/// the contract's names spelled once, and no call on a UI thread that
/// waits for D-Bus.
final class ShimLayoutTests: XCTestCase {
    /// Every C, C++ and header file under shims/ that goes into a shim
    /// (not the tests' programs, which play menubusd), with its text.
    static func shimSources() throws -> [(path: String, text: String)] {
        try allShimSources().filter { !$0.path.contains("/tests/") }
    }

    static func allShimSources() throws -> [(path: String, text: String)] {
        let root = Repository.root.appendingPathComponent("shims")
        let kinds: Set = ["c", "h", "cpp", "hpp"]
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { kinds.contains($0.pathExtension) } ?? []
        return try files.map { file in
            (String(file.path.dropFirst(Repository.root.path.count + 1)), try String(contentsOf: file, encoding: .utf8))
        }.sorted { $0.path < $1.path }
    }

    func testNoShimFileIsOverFiveHundredLines() throws {
        let sources = try Self.allShimSources()
        XCTAssertGreaterThan(sources.count, 10, "the shims' sources were not found")
        let long = sources.compactMap { file -> String? in
            let count = file.text.split(separator: "\n", omittingEmptySubsequences: false).count
            return count > 500 ? "\(file.path): \(count) lines" : nil
        }
        XCTAssertEqual(long, [])
    }

    /// GDBus's `_call_sync`, QtDBus's blocking calls and the replies they
    /// give: none in a shim, whose every call runs on the app's UI thread.
    func testNoShimCallsDBusSynchronously() throws {
        let pattern = #"_call_sync\b|_call_with_unix_fd_list_sync\b|send_message_with_reply_sync\b|QDBus::Block\b|QDBusReply\b|\.call\(|QDBusConnection::sessionBus\(\)\.call\b"#
        let found = try Self.shimSources().flatMap { file in
            file.text.split(separator: "\n").filter { line in
                let code = line.components(separatedBy: "//").first ?? ""
                return code.range(of: pattern, options: .regularExpression) != nil
            }.map { "\(file.path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(found, [])
    }

    /// The contract's names appear in one header every shim includes
    /// (shims/core/menubus-names.h), nowhere else under shims/.
    func testBusNamesAreSpelledOnceForEveryShim() throws {
        let names = "shims/core/menubus-names.h"
        let spelled = try Self.shimSources().filter { $0.path != names }.flatMap { file in
            file.text.split(separator: "\n").filter { $0.contains("\"org.menubus.") || $0.contains("\"/org/menubus/") }
                .map { "\(file.path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(spelled, [])
    }

    /// Each name in menubus-names.h is the contract's: the interfaces and
    /// paths of dbus/*.xml, the bus name of the service file, the service's
    /// own domain errors.
    func testTheNamesHeaderMatchesTheContract() throws {
        let header = try String(contentsOf: Repository.root.appendingPathComponent("shims/core/menubus-names.h"),
                                encoding: .utf8)
        var defines: [String: String] = [:]
        for match in header.matches(of: #/#define (MB_[A-Z_]+) (?:(MB_[A-Z_]+) )?"([^"]*)"/#) {
            defines[String(match.1)] = (match.2.map { defines[String($0)] ?? "?" } ?? "") + String(match.3)
        }
        XCTAssertEqual(defines["MB_BUS_NAME"], MenuBusNames.busName)
        XCTAssertEqual(defines["MB_MANAGER_PATH"], MenuBusNames.managerPath.rawValue)
        XCTAssertEqual(defines["MB_MANAGER_IFACE"], MenuBusNames.managerInterface)
        XCTAssertEqual(defines["MB_MENU_IFACE"], MenuBusNames.menuInterface)
        XCTAssertEqual(defines["MB_CLIENT_IFACE"], MenuBusNames.clientInterface)
        XCTAssertEqual(defines["MB_ERROR_PREFIX"], BusError.domainPrefix)
        let dbus = Repository.root.appendingPathComponent("dbus")
        let service = try String(contentsOf: dbus.appendingPathComponent("org.menubus.MenuBus1.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("Name=\(defines["MB_BUS_NAME"] ?? "?")\n"), service)
        for (file, key) in [("org.menubus.MenuBus1.xml", "MB_MANAGER_IFACE"), ("org.menubus.MenuBus1.Menu.xml", "MB_MENU_IFACE"),
                            ("org.menubus.MenuBus1.Client.xml", "MB_CLIENT_IFACE")] {
            let xml = try String(contentsOf: dbus.appendingPathComponent(file), encoding: .utf8)
            XCTAssertTrue(xml.contains("<interface name=\"\(defines[key] ?? "?")\""), "\(key) is not the interface of \(file)")
        }
        let manager = try String(contentsOf: dbus.appendingPathComponent("org.menubus.MenuBus1.xml"), encoding: .utf8)
        XCTAssertTrue(manager.contains("<node name=\"\(defines["MB_MANAGER_PATH"] ?? "?")\""))
        let errors = defines.filter { $0.key.hasPrefix("MB_ERROR_") && $0.key != "MB_ERROR_PREFIX" }
        XCTAssertGreaterThanOrEqual(errors.count, 5, "\(defines)")
        let known = Set(BusError.Domain.allCases.map(\.errorName))
        for (key, name) in errors {
            XCTAssertTrue(known.contains(name), "\(key) \(name) is no error of the service's")
        }
    }

    /// Every shim compiles the same core: the core's functions are in the
    /// GTK 3 module, the GTK 4 library and both Qt themes as `make shims`
    /// builds them (hidden, so read from the symbol table, not exported).
    func testEveryShimCompilesTheOneCore() throws {
        let built = Repository.root.appendingPathComponent(".build/shims")
        for library in ["gtk3/modules/libmenubus.so", "gtk4/libmenubus-gtk4.so.0", "gtk4-im/4.0.0/immodules/libim-menubus.so",
                        "qt5/platformthemes/libmenubus.so",
                        "qt6/platformthemes/libmenubus.so"] {
            let path = built.appendingPathComponent(library).path
            guard FileManager.default.fileExists(atPath: path) else {
                XCTFail("no \(path): run `make shims` to build it")
                continue
            }
            let nm = Process()
            nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
            nm.arguments = [path]
            let out = Pipe()
            nm.standardOutput = out
            try nm.run()
            let symbols = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            nm.waitUntilExit()
            for function in ["mb_shim_enabled", "mb_field_new", "mb_menu_present", "mb_items_check"] {
                XCTAssertTrue(symbols.contains(" \(function)\n"), "\(library) has no \(function): it does not compile the core")
            }
        }
    }
}
