import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel

/// `omit-commands`: a presenter whose toolkit draws some standard commands
/// itself (GTK 4's text widgets, with MenuBus's menu as their
/// `extra-menu`) gets a menu without them, in every protocol, for the life
/// of the presentation; with the real menubusd.
final class OmitCommandsTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon(["--deferred-timeout", "2"])
    }

    /// What GTK 4 keeps in a text widget's own menu.
    private static let gtk4 = ["cut", "copy", "paste", "delete", "select-all"]
    private static let gtk4Ids = Set(gtk4.map { "menubus:" + $0 })

    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    /// A selection for which the edit menu has all five of them.
    private let selection = Selection(kind: .range, length: 5, text: "hello", pasteboardTypes: ["text/plain"])

    private func omitting(_ names: [String]) -> DBusValue {
        .array("{sv}", [WireValue.entry("omit-commands", .array("s", names.map(DBusValue.string)))])
    }

    private func present(_ connection: Connection, owner: String, contextId: String = "body", kind: String = "edit",
                         options: DBusValue) throws -> PresentedMenu {
        let reply = try callDaemon(connection, "PresentMenu", [.string(owner), .string(contextId), .string(kind), options])
        guard case .objectPath(let path)? = reply.first else { throw TestFailure("PresentMenu returned \(reply)") }
        return PresentedMenu(path: path)
    }

    /// Labels of every menu of `org.gtk.Menus` group 0 (the top level and its sections).
    private func gtkLabels(_ connection: Connection, _ menu: PresentedMenu) throws -> [String] {
        let reply = try callDaemon(connection, path: menu.path, interface: MenuBusNames.gtkMenusInterface, "Start",
                                   [.array("u", [.uint32(0)])])
        _ = try callDaemon(connection, path: menu.path, interface: MenuBusNames.gtkMenusInterface, "End",
                           [.array("u", [.uint32(0)])])
        guard case .array(_, let rows)? = reply.first else { throw TestFailure("Start returned \(reply)") }
        var labels: [String] = []
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 3, case .array(_, let items) = fields[2] else { continue }
            for item in items {
                guard case .array(_, let entries) = item else { continue }
                for case .dictEntry(.string("label"), .variant(.string(let label))) in entries { labels.append(label) }
            }
        }
        return labels
    }

    /// Labels of the whole `com.canonical.dbusmenu` layout.
    private func dbusMenuLabels(_ connection: Connection, _ menu: PresentedMenu) throws -> [String] {
        let reply = try callDaemon(connection, path: menu.path, interface: MenuBusNames.dbusMenuInterface, "GetLayout",
                                   [.int32(0), .int32(-1), .array("s", [])])
        var labels: [String] = []
        func walk(_ value: DBusValue) {
            switch value {
            case .dictEntry(.string("label"), .variant(.string(let label))): labels.append(label)
            case .structure(let members): members.forEach(walk)
            case .array(_, let items): items.forEach(walk)
            case .variant(let inner): walk(inner)
            default: break
            }
        }
        reply.forEach(walk)
        return labels
    }

    func testOmittedCommandsAreInNoProtocolAndActivatingOneIsNoSuchItem() throws {
        let app = try app()
        try app.publishContext("body", field, items: [MenuElement(id: "insert-date", title: "Insert Date")])
        try app.updateSelection("body", selection)
        let presenter = try client(), raw = try connect()
        let full = try presenter.editMenu(owner: app.uniqueName, contextId: "body")
        XCTAssertTrue(Self.gtk4Ids.isSubset(of: Set(full.elements.map(\.id))), "\(full.elements.map(\.id))")

        let menu = try present(raw, owner: app.uniqueName, options: omitting(Self.gtk4))
        let layout = try presenter.layout(of: menu)
        XCTAssertEqual(layout.elements.filter { !$0.isSection }.map(\.id), ["insert-date"])
        XCTAssertEqual(try gtkLabels(raw, menu), ["Insert Date"])
        XCTAssertEqual(try dbusMenuLabels(raw, menu), ["Insert Date"])
        let actions = try callDaemon(raw, path: menu.path, interface: MenuBusNames.gtkActionsInterface, "List")
        XCTAssertFalse("\(actions)".contains("copy"), "\(actions)")
        for id in Self.gtk4Ids {
            assertBusError(BusError.Domain.noSuchItem.errorName) {
                _ = try self.callDaemon(raw, path: menu.path, interface: MenuBusNames.menuInterface, "Activate",
                                        [.string(id), .array("{sv}", [])])
            }
        }
        // The read-once menus take the option too, and a read without it is whole again.
        let read = try callDaemon(raw, "GetEditMenu", [.string(app.uniqueName), .string("body"), omitting(Self.gtk4)])
        guard read.count == 2 else { return XCTFail("GetEditMenu returned \(read)") }
        let readIds = try Wire.decodeComposedMenu(read[1], field: "items").filter { !$0.isSection }.map(\.id)
        XCTAssertEqual(readIds, ["insert-date"])
        XCTAssertEqual(try presenter.editMenu(owner: app.uniqueName, contextId: "body"), full)
    }

    func testLiveUpdatesKeepLeavingThemOut() throws {
        let app = try app()
        app.provideElements = { _, _ in
            [MenuElement(id: "app-copy", title: "Copy Plain", command: .copy), MenuElement(id: "stats", title: "Word Count")]
        }
        try app.publishContext("body", field, items: [MenuElement(id: "later", kind: .deferred, cached: false)])
        try app.updateSelection("body", Selection(kind: .caret))
        let presenter = try client(), raw = try connect()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try present(raw, owner: app.uniqueName, options: omitting(["copy", "select", "select-all"]))
        func shown() throws -> [String] { try presenter.layout(of: menu).elements.filter { !$0.isSection }.map(\.id) }
        func settle(_ expected: [String]) -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                app.run(until: { false }, timeout: 0.005)
                presenter.run(until: { false }, timeout: 0.005)
                if (try? shown()) == expected { return true }
            }
            return false
        }
        XCTAssertTrue(settle(["stats"]), "provided content leaves out the app's Copy: \((try? shown()) ?? [])")

        try app.updateSelection("body", selection)
        XCTAssertTrue(settle(["menubus:cut", "menubus:paste", "menubus:delete", "stats"]), "\((try? shown()) ?? [])")
        try app.updateItems("body", [MenuElement(id: "mine", title: "Copy Link", command: .copy),
                                     MenuElement(id: "later", kind: .deferred, cached: false)])
        XCTAssertTrue(settle(["menubus:cut", "menubus:paste", "menubus:delete", "stats"]), "\((try? shown()) ?? [])")
        XCTAssertFalse(layouts.isEmpty)
        let omitted: Set<StandardCommand> = [.copy, .select, .selectAll]
        for layout in layouts {
            XCTAssertFalse(layout.elements.contains { $0.command.map(omitted.contains) == true },
                           "LayoutChanged \(layout.revision): \(layout.elements.map(\.id))")
        }
    }

    func testAMenuOfOnlyOmittedCommandsIsNotPresented() throws {
        let app = try app()
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", selection)
        let raw = try connect()
        assertBusError(BusError.Domain.nothingToShow.errorName) {
            _ = try self.present(raw, owner: app.uniqueName, options: self.omitting(Self.gtk4 + ["undo"]))
        }
    }

    func testBadOmitCommandsAreRefusedNamingTheField() throws {
        let app = try app()
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", selection)
        let raw = try connect()
        func refused(_ name: String, _ options: DBusValue) -> BusError? {
            assertBusError(name) { _ = try self.present(raw, owner: app.uniqueName, options: options) }
        }
        let invalid = BusError.Standard.invalidArgs
        let unknown = refused(invalid, omitting(["cut", "copy", "frobnicate"]))
        XCTAssertTrue(unknown?.message.hasPrefix("options.omit-commands[2]: unknown standard command 'frobnicate'") ?? false,
                      unknown?.message ?? "")
        let wrongType = refused(invalid, .array("{sv}", [WireValue.entry("omit-commands", .string("copy"))]))
        XCTAssertEqual(wrongType?.message, "options.omit-commands: expected 'as', got 's'")
        let many = refused(BusError.Domain.limitExceeded.errorName, omitting(Array(repeating: "copy", count: 65)))
        XCTAssertTrue(many?.message.hasPrefix("options.omit-commands") ?? false, many?.message ?? "")
        XCTAssertNotNil(try? present(raw, owner: app.uniqueName, options: omitting(Array(repeating: "copy", count: 64))))
        let read = assertBusError(invalid) {
            _ = try self.callDaemon(raw, "GetContextMenu", [.string(app.uniqueName), .string("body"), self.omitting(["Copy"])])
        }
        XCTAssertTrue(read?.message.hasPrefix("options.omit-commands[0]") ?? false, read?.message ?? "")
    }
}
