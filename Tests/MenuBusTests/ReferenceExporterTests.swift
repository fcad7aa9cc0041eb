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

/// MenuBus's `org.gtk.Menus` change signals beside those of GLib's own
/// exporter (Tests/consumers/glib_exporter.py) making the same change to
/// the same menu: MenuBus touches the same menus at the same positions,
/// with no more rows, items or signals.
final class ReferenceExporterTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon()
    }

    private static let items = [
        MenuElement(id: "open", title: "Open"),
        MenuElement(id: "rename", title: "Rename"),
        MenuElement(id: "edit", kind: .menu, options: [.inline]),
        MenuElement(id: "copy", parent: "edit", title: "Copy"),
        MenuElement(id: "paste", parent: "edit", title: "Paste"),
        MenuElement(id: "more", kind: .menu, title: "More"),
        MenuElement(id: "alpha", parent: "more", title: "Alpha"),
        MenuElement(id: "beta", parent: "more", title: "Beta"),
    ]

    /// The same menu in glib_exporter.py's form.
    private static let reference = """
        [{"label": "Open", "action": "open"}, {"label": "Rename", "action": "rename"},
         {"section": [{"label": "Copy", "action": "copy"}, {"label": "Paste", "action": "paste"}]},
         {"label": "More", "submenu": [{"label": "Alpha", "action": "alpha"}, {"label": "Beta", "action": "beta"}]}]
        """.replacingOccurrences(of: "\n", with: " ")

    /// One `Changed` row without its items: (group, menu, position, removed, added count).
    private struct Row: Hashable, CustomStringConvertible {
        let group: UInt32, menu: UInt32, position: UInt32, removed: UInt32, added: Int
        var description: String { "(\(group), \(menu), \(position), -\(removed), +\(added))" }
    }

    private static func rows(_ message: Message) -> [Row] {
        guard case .array(_, let rows)? = try? message.arguments().first else { return [] }
        return rows.compactMap { row in
            guard case .structure(let fields) = row, fields.count == 5, case .uint32(let group) = fields[0],
                  case .uint32(let menu) = fields[1], case .uint32(let position) = fields[2],
                  case .uint32(let removed) = fields[3], case .array(_, let added) = fields[4] else { return nil }
            return Row(group: group, menu: menu, position: position, removed: removed, added: added.count)
        }
    }

    /// The group a `:submenu` link in the root names.
    private func submenuGroup(_ start: [DBusValue]) -> UInt32? {
        guard case .array(_, let rows)? = start.first else { return nil }
        for row in rows {
            guard case .structure(let fields) = row, fields[1] == .uint32(0), case .array(_, let items) = fields[2] else { continue }
            for item in items {
                guard case .array(_, let entries) = item else { continue }
                for entry in entries {
                    if case .dictEntry(.string(":submenu"), .variant(.structure(let link))) = entry,
                       case .uint32(let group) = link[0] { return group }
                }
            }
        }
        return nil
    }

    func testMenusChangedIsNoLargerThanGLibsExporterMakingTheSameChange() throws {
        let app = try app("org.example.Files")
        try app.publishContext("row", ContextInfo(kind: .item), items: Self.items)
        let shell = try connect()
        let reply = try callDaemon(shell, "PresentMenu", [.string("org.example.Files"), .string("row"), .string("context"),
                                                          .array("{sv}", [])])
        guard case .objectPath(let ours)? = reply.first else { return XCTFail("PresentMenu returned \(reply)") }
        let referenceName = "org.menubus.Test.GLibExporter", referencePath: ObjectPath = "/org/example/Reference"
        let input = Pipe()
        let glib = try startConsumer("glib_exporter.py", [referenceName, referencePath.description, Self.reference],
                                     input: input)
        XCTAssertTrue(eventually(timeout: 15) { glib.count("READY") == 1 || !glib.process.isRunning }, glib.diagnostics)

        // Signals in arrival order, per exporter: "menus" rows, "actions" markers.
        var signals: [ObjectPath: [(member: String, rows: [Row])]] = [:]
        for path in [ours, referencePath] {
            shell.subscribe(interface: MenuBusNames.gtkMenusInterface, member: "Changed", path: path) {
                signals[path, default: []].append(("menus", Self.rows($0)))
            }
            shell.subscribe(interface: MenuBusNames.gtkActionsInterface, member: "Changed", path: path) { _ in
                signals[path, default: []].append(("actions", []))
            }
        }
        func start(_ destination: String, _ path: ObjectPath, _ groups: [UInt32]) throws -> [DBusValue] {
            try shell.callBlocking(destination: destination, path: path, interface: MenuBusNames.gtkMenusInterface,
                                   member: "Start", arguments: [.array("u", groups.map(DBusValue.uint32))], timeout: 10)
        }
        func describeAll(_ destination: String, _ path: ObjectPath) throws {
            _ = try shell.callBlocking(destination: destination, path: path, interface: MenuBusNames.gtkActionsInterface,
                                       member: "DescribeAll", timeout: 10)
        }
        let ourGroup = try XCTUnwrap(submenuGroup(try start(MenuBusNames.busName, ours, [0])))
        let theirGroup = try XCTUnwrap(submenuGroup(try start(referenceName, referencePath, [0])))
        _ = try start(MenuBusNames.busName, ours, [ourGroup])
        _ = try start(referenceName, referencePath, [theirGroup])
        try describeAll(MenuBusNames.busName, ours)
        try describeAll(referenceName, referencePath)

        var current = Self.items
        @discardableResult
        func change(_ name: String, _ edit: (inout [MenuElement]) -> Void, reference command: String) throws -> [String] {
            signals = [:]
            edit(&current)
            _ = try app.updateItems("row", current)
            let done = glib.count("DONE") + 1
            glib.send(command)
            XCTAssertTrue(eventually(timeout: 10) { glib.count("DONE") == done || !glib.process.isRunning }, glib.diagnostics)
            // A call on each brings menubusd's exports up to date; a round trip
            // to each delivers what it sent before.
            for (destination, path) in [(MenuBusNames.busName, ours), (referenceName, referencePath)] {
                try describeAll(destination, path)
                _ = try shell.callBlocking(destination: destination, path: "/", interface: "org.freedesktop.DBus.Peer",
                                           member: "Ping", timeout: 10)
            }
            shell.loop.run(until: { false }, timeout: 0.05)
            let mine = signals[ours] ?? [], theirs = signals[referencePath] ?? []
            let myRows = mine.flatMap(\.rows), theirRows = theirs.flatMap(\.rows)
            let detail = "\(name): MenuBus \(myRows), GLib \(theirRows)"
            // The submenu's group is numbered by each exporter; compare it as one.
            func place(_ row: Row, submenu: UInt32) -> String {
                "\(row.group == submenu ? "submenu" : String(row.group))/\(row.menu)@\(row.position)"
            }
            XCTAssertFalse(myRows.isEmpty, detail)
            XCTAssertEqual(Set(myRows.map { place($0, submenu: ourGroup) }), Set(theirRows.map { place($0, submenu: theirGroup) }),
                           "the same menus at the same positions: \(detail)")
            XCTAssertLessThanOrEqual(myRows.count, theirRows.count, detail)
            XCTAssertLessThanOrEqual(myRows.reduce(0) { $0 + Int($1.removed) }, theirRows.reduce(0) { $0 + Int($1.removed) }, detail)
            XCTAssertLessThanOrEqual(myRows.reduce(0) { $0 + $1.added }, theirRows.reduce(0) { $0 + $1.added }, detail)
            XCTAssertLessThanOrEqual(mine.filter { $0.member == "menus" }.count, theirs.filter { $0.member == "menus" }.count, detail)
            return mine.map(\.member)
        }

        try change("rename at the top", { $0[1].title = "Rename File" },
                   reference: #"{"op": "set", "path": [1], "entry": {"label": "Rename File", "action": "rename"}}"#)
        let added = try change("add to the section", { $0.insert(MenuElement(id: "delete", parent: "edit", title: "Delete"), at: 5) },
                   reference: #"{"op": "insert", "path": [2, 2], "entry": {"label": "Delete", "action": "delete"}}"#)
        XCTAssertEqual(added, ["actions", "menus"], "the new item's action arrives before the item")
        try change("rename in the submenu", { $0[$0.count - 1].title = "Gamma" },
                   reference: #"{"op": "set", "path": [3, 1], "entry": {"label": "Gamma", "action": "beta"}}"#)
        let removed = try change("remove at the top", { $0.removeFirst() }, reference: #"{"op": "remove", "path": [0]}"#)
        XCTAssertEqual(removed, ["menus"], "the item goes; its action stays, as the GLib app's does")
        let back = try change("the same item back", { $0.insert(MenuElement(id: "open", title: "Open"), at: 0) },
                              reference: #"{"op": "insert", "path": [0], "entry": {"label": "Open", "action": "open"}}"#)
        XCTAssertEqual(back, ["menus"], "the item comes back to the action it had, with no Actions.Changed before it")
        XCTAssertTrue(daemon.isRunning)
    }
}
