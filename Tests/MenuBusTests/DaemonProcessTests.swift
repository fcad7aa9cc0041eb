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

/// menubusd as a process on a private bus: name, signals, bad input, the contract file.
final class DaemonProcessTests: BusTestCase {
    func testDaemonOwnsItsNameAndAnswersPing() throws {
        _ = try startDaemon()
        let client = try connect()
        XCTAssertTrue(nameHasOwner(client, MenuBusNames.busName))
        XCTAssertEqual(try callDaemon(client, interface: "org.freedesktop.DBus.Peer", "Ping"), [])
        let id = try callDaemon(client, interface: "org.freedesktop.DBus.Peer", "GetMachineId")
        XCTAssertEqual(id.first?.stringValue?.count, 32)
    }

    func testSecondInstanceIsRefusedAtOnce() throws {
        _ = try startDaemon()
        let second = try bus.run("menubusd", [], timeout: 10)
        XCTAssertEqual(second.status, 3)
        XCTAssertTrue(second.stderr.contains("already owned"), second.stderr)
        XCTAssertTrue(nameHasOwner(try connect(), MenuBusNames.busName), "the first instance keeps the name")
    }

    func testSigtermReleasesTheNameAndExitsZero() throws {
        let daemon = try startDaemon()
        let client = try connect()
        daemon.signal(SIGTERM)
        let result = try daemon.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(nameHasOwner(client, MenuBusNames.busName))
        XCTAssertTrue(result.stderr.contains("stopping on signal \(SIGTERM)"), "the stop is logged: \(result.stderr)")
    }

    func testSigintExitsZero() throws {
        let daemon = try startDaemon()
        daemon.signal(SIGINT)
        XCTAssertEqual(try daemon.wait(timeout: 10).status, 0)
    }

    func testVersionAndStatsProperties() throws {
        _ = try startDaemon()
        let client = try connect()
        let version = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "Get",
                                     [.string(MenuBusNames.managerInterface), .string("Version")])
        XCTAssertEqual(version, [.variant(.uint32(1))])
        let all = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "GetAll",
                                 [.string(MenuBusNames.managerInterface)])
        let properties = try [String: DBusValue](dbusValue: XCTUnwrap(all.first))
        XCTAssertEqual(properties["Version"], .uint32(1))
        let stats = try [String: DBusValue](dbusValue: XCTUnwrap(properties["Stats"]))
        XCTAssertEqual(Set(stats.keys), ["version", "pid", "uptime-seconds", "apps", "contexts", "documents", "presentations",
                                         "providers", "held-bytes", "undo-memory-bytes", "undo-disk-bytes", "rss-bytes"])
        XCTAssertEqual(stats["version"], .string(MenuBusNames.softwareVersion))
        guard case .uint32(let pid) = stats["pid"] else { return XCTFail("pid is not a u") }
        XCTAssertNotEqual(pid, UInt32(getpid()), "the daemon's own process, not the test's")
        XCTAssertEqual(kill(pid_t(pid), 0), 0, "a live process")
        for counter in ["apps", "contexts", "documents", "presentations", "providers"] {
            XCTAssertEqual(stats[counter], .uint32(0), counter)
        }
        for counter in ["held-bytes", "undo-memory-bytes", "undo-disk-bytes"] {
            XCTAssertEqual(stats[counter], .uint64(0), counter)
        }
        guard case .uint64(let rss) = stats["rss-bytes"] else { return XCTFail("rss-bytes is not a t") }
        XCTAssertGreaterThan(rss, 1 << 20, "a real resident size, not a placeholder")
        // Uptime changes every second without a signal: the introspection says so.
        let xml = try callDaemon(client, interface: "org.freedesktop.DBus.Introspectable", "Introspect", [])
        let text = xml.first?.stringValue ?? ""
        let declaration = try XCTUnwrap(text.range(of: #"(?s)<property name="Stats".*?</property>"#, options: .regularExpression))
        XCTAssertTrue(text[declaration].contains(#"EmitsChangedSignal" value="false""#), String(text[declaration]))
    }

    func testSetOnReadOnlyPropertyIsRefused() throws {
        _ = try startDaemon()
        let client = try connect()
        assertBusError(BusError.Standard.propertyReadOnly) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "Set",
                               [.string(MenuBusNames.managerInterface), .string("Version"), .variant(.uint32(7))])
        }
        assertBusError(BusError.Standard.unknownProperty) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "Get",
                               [.string(MenuBusNames.managerInterface), .string("Nope")])
        }
        assertBusError(BusError.Standard.unknownInterface) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "GetAll", [.string("org.example.Nope")])
        }
    }

    func testBadArgumentsAreAnsweredInvalidArgsAndTheDaemonLivesOn() throws {
        let daemon = try startDaemon()
        let client = try connect()
        let error = assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "Get", [.int32(5)])
        }
        XCTAssertTrue(error?.message.contains("expects arguments 'ss', got 'i'") ?? false, error?.message ?? "")
        assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "GetAll",
                               [.array("(ssa{sv})", []), .variant(.array("ay", [.bytes([1, 2])]))])
        }
        assertBusError(BusError.Standard.unknownMethod) { _ = try callDaemon(client, "NoSuchMethod") }
        assertBusError(BusError.Standard.unknownObject) {
            _ = try callDaemon(client, path: "/org/menubus/Nothing", "Register")
        }
        assertBusError(BusError.Standard.unknownInterface) {
            _ = try callDaemon(client, interface: "org.example.Missing", "Ping")
        }
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try callDaemon(client, interface: "org.freedesktop.DBus.Peer", "Ping"), [])
    }

    func testLargeAndDeepMessagesGetAnErrorNotACrash() throws {
        let daemon = try startDaemon()
        let client = try connect()
        var nested = DBusValue.string("deep")
        for _ in 0..<30 { nested = .variant(nested) }
        assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(client, interface: "org.freedesktop.DBus.Properties", "Get", [nested, .bytes(Array(repeating: 7, count: 8 << 20))])
        }
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try callDaemon(client, interface: "org.freedesktop.DBus.Peer", "Ping"), [])
    }

    func testServedIntrospectionEqualsTheContractFile() throws {
        _ = try startDaemon()
        let client = try connect()
        let reply = try callDaemon(client, interface: "org.freedesktop.DBus.Introspectable", "Introspect")
        let served = try XCTUnwrap(reply.first?.stringValue)
        let contract = try String(contentsOf: Repository.root.appendingPathComponent("dbus/org.menubus.MenuBus1.xml"), encoding: .utf8)
        let servedInterface = try XCTUnwrap(Repository.interfaceElement(MenuBusNames.managerInterface, in: served))
        let contractInterface = try XCTUnwrap(Repository.interfaceElement(MenuBusNames.managerInterface, in: contract))
        XCTAssertEqual(servedInterface, contractInterface)
        for standard in ["org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer"] {
            XCTAssertNotNil(Repository.interfaceElement(standard, in: served), standard)
        }
    }

    func testPresentedMenuServesTheMenuContractFile() throws {
        _ = try startDaemon()
        let app = try app()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "a", title: "A")])
        let menu = try app.present(contextId: "row", kind: .context)
        let reply = try callDaemon(try connect(), path: menu.path, interface: "org.freedesktop.DBus.Introspectable", "Introspect")
        let served = try XCTUnwrap(reply.first?.stringValue)
        for name in ["org.menubus.MenuBus1.Menu"] {
            XCTAssertEqual(Repository.interfaceElement(name, in: served), try Repository.contractInterface(name), name)
        }
        for other in ["com.canonical.dbusmenu", "org.gtk.Menus", "org.gtk.Actions"] {
            XCTAssertNotNil(Repository.interfaceElement(other, in: served), other)
        }
    }

    /// The desktop menu protocols as served, recorded in dbus/ (and not
    /// installed: their specifications belong to libdbusmenu and GLib).
    func testPresentedMenuServesTheDesktopMenuContractFiles() throws {
        _ = try startDaemon()
        let app = try app()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "a", title: "A")])
        let menu = try app.present(contextId: "row", kind: .context)
        let reply = try callDaemon(try connect(), path: menu.path, interface: "org.freedesktop.DBus.Introspectable", "Introspect")
        let served = try XCTUnwrap(reply.first?.stringValue)
        for name in ["com.canonical.dbusmenu", "org.gtk.Menus", "org.gtk.Actions"] {
            let contract = try XCTUnwrap(try Repository.contractInterface(name), name)
            XCTAssertEqual(Repository.interfaceElement(name, in: served), contract, name)
        }
    }

    func testClientLibraryServesTheClientAndProviderContractFiles() throws {
        let client = try MenuBusClient(address: try bus.address)
        XCTAssertEqual(Repository.interfaceElement("org.menubus.MenuBus1.Client", in: client.clientInterface().introspectionXML()),
                       try Repository.contractInterface("org.menubus.MenuBus1.Client"))
        XCTAssertEqual(Repository.interfaceElement("org.menubus.MenuBus1.Provider", in: client.providerInterface().introspectionXML()),
                       try Repository.contractInterface("org.menubus.MenuBus1.Provider"))
    }

    func testParentPathsIntrospectToTheirChildren() throws {
        _ = try startDaemon()
        let client = try connect()
        let reply = try callDaemon(client, path: "/org/menubus", interface: "org.freedesktop.DBus.Introspectable", "Introspect")
        XCTAssertTrue(reply.first?.stringValue?.contains("<node name=\"MenuBus1\"/>") ?? false)
    }

    /// Every presented menu is served by one declaration under
    /// `/org/menubus/MenuBus1/menu/`: a live menu's number is an object,
    /// any other path below answers `UnknownObject`, and introspection lists
    /// the live menus alone.
    func testMenuPathsAreTheLiveMenusAlone() throws {
        _ = try startDaemon()
        let app = try app()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "a", title: "A")])
        let first = try app.present(contextId: "row", kind: .context)
        let second = try app.present(contextId: "row", kind: .context)
        let client = try connect()
        let introspect = "org.freedesktop.DBus.Introspectable", properties = "org.freedesktop.DBus.Properties"
        let prefix = try callDaemon(client, path: "/org/menubus/MenuBus1/menu", interface: introspect, "Introspect")
        let number = { (path: ObjectPath) in String(path.rawValue.split(separator: "/").last ?? "") }
        for menu in [first, second] {
            XCTAssertTrue(prefix.first?.stringValue?.contains("<node name=\"\(number(menu.path))\"/>") ?? false,
                          prefix.first?.stringValue ?? "")
        }
        let parent = try callDaemon(client, path: "/org/menubus/MenuBus1", interface: introspect, "Introspect")
        XCTAssertTrue(parent.first?.stringValue?.contains("<node name=\"menu\"/>") ?? false)
        XCTAssertEqual(try callDaemon(client, path: first.path, interface: properties, "Get",
                                      [.string(MenuBusNames.menuInterface), .string("Kind")]),
                       [.variant(.string("context"))])
        XCTAssertEqual(try callDaemon(client, path: second.path, interface: properties, "Get",
                                      [.string(MenuBusNames.menuInterface), .string("Title")]),
                       [.variant(.string(""))])
        for other in ["/org/menubus/MenuBus1/menu/0\(number(first.path))", "\(first.path.rawValue)/1",
                      "/org/menubus/MenuBus1/menu/99999", "/org/menubus/MenuBus1/menu/x"] {
            assertBusError(BusError.Standard.unknownObject) {
                _ = try callDaemon(client, path: ObjectPath(stringLiteral: other), interface: MenuBusNames.menuInterface,
                                   "GetLayout")
            }
        }
        try app.dismiss(first)
        XCTAssertTrue(eventually {
            (try? self.callDaemon(client, path: first.path, interface: properties, "Get",
                                  [.string(MenuBusNames.menuInterface), .string("Kind")])) == nil
        })
        let after = try callDaemon(client, path: "/org/menubus/MenuBus1/menu", interface: introspect, "Introspect")
        XCTAssertFalse(after.first?.stringValue?.contains("<node name=\"\(number(first.path))\"/>") ?? true)
        XCTAssertTrue(after.first?.stringValue?.contains("<node name=\"\(number(second.path))\"/>") ?? false)
    }

    func testHelpVersionAndUsageErrors() throws {
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("--address"))
        let version = try bus.run("menubusd", ["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("menubusd "))
        let bad = try bus.run("menubusd", ["--frobnicate"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--frobnicate"))
    }

    func testUnreachableBusIsReportedAndExitsNonZero() throws {
        let result = try bus.run("menubusd", ["--address", "unix:path=/nonexistent/menubus-bus"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("cannot connect to the bus"), result.stderr)
    }
}

/// Files of the repository, found from this source file's path.
enum Repository {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The interface element of `dbus/NAME.xml`.
    static func contractInterface(_ name: String) throws -> String? {
        let file = try String(contentsOf: root.appendingPathComponent("dbus/\(name).xml"), encoding: .utf8)
        return interfaceElement(name, in: file)
    }

    /// The `<interface name="NAME">…</interface>` text, indentation normalised
    /// and DocString annotations left out (the committed files carry them for
    /// docs/API.md; the code does not serve them).
    static func interfaceElement(_ name: String, in xml: String) -> String? {
        guard let start = xml.range(of: "<interface name=\"\(name)\">") else { return nil }
        guard let end = xml.range(of: "</interface>", range: start.upperBound..<xml.endIndex) else { return nil }
        return withoutDocStrings(String(xml[start.lowerBound..<end.upperBound]))
            .split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: "\n")
    }

    /// `xml` without its `org.gtk.GDBus.DocString` annotations, an element
    /// left empty written self-closing again, as the code writes it
    /// (scripts/contractdocs.py's `without_docs` does the same).
    static func withoutDocStrings(_ xml: String) -> String {
        let annotations = #"\s*<annotation name="org\.gtk\.GDBus\.DocString(\.Short)?" value="[^"]*"/>"#
        let stripped = xml.replacingOccurrences(of: annotations, with: "", options: .regularExpression)
        return stripped.replacingOccurrences(of: #"<(method|signal|property|arg) ([^>]*[^/])>\s*</\1>"#, with: "<$1 $2/>",
                                             options: .regularExpression)
    }
}
