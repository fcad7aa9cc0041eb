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

/// Presented menus read and used by the desktop's own consumers, unmodified:
/// libdbusmenu-glib's `DbusmenuClient`, GLib's `GDBusMenuModel` and
/// `GDBusActionGroup`, and a GTK window under Xvfb. The consumers are the
/// Python scripts in `Tests/consumers` run by Debian's python3 with
/// python3-gi; `scripts/setup` installs what they need.
final class ConsumerTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon()
    }

    private func filesApp() throws -> MenuBusClient {
        try app("org.example.Files")
    }

    /// A file row's context menu with every shape the exports map: an icon
    /// and a shortcut, a checkmark, a single-selection submenu, a section
    /// with a disabled item, a destructive item.
    private static let fileRowItems = [
        MenuElement(id: "open-tab", title: "Open in New Tab", icon: "tab-new", shortcut: "<Control>t"),
        MenuElement(id: "pin", title: "Pin to_Top", state: .on),
        MenuElement(id: "sort", kind: .menu, title: "Sort By", options: [.singleSelection]),
        MenuElement(id: "sort-name", parent: "sort", title: "Name", state: .on),
        MenuElement(id: "sort-date", parent: "sort", title: "Date"),
        MenuElement(id: "sort-size", parent: "sort", title: "Size"),
        MenuElement(id: "sort-kind", parent: "sort", title: "Kind"),
        MenuElement(id: "manage", kind: .menu, options: [.inline]),
        MenuElement(id: "rename", parent: "manage", title: "Rename"),
        MenuElement(id: "archive", parent: "manage", title: "Archive", attributes: [.disabled]),
        MenuElement(id: "trash", parent: "manage", title: "Move to Trash", attributes: [.destructive]),
    ]

    private let richField = ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true,
                                        hasContent: true, richText: true)

    // MARK: libdbusmenu-glib

    func testDbusmenuClientReadsTheWholeTreeAndAClickReachesTheApp() throws {
        let app = try filesApp()
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let run = try runConsumer("dbusmenu_client.py", ["org.example.Files", "row", "context", "read", "Rename"],
                                  pumping: [app]) { $0.contains { $0.tag == "CLICKED" } && !actions.isEmpty }
        let tree = try XCTUnwrap(run.first("TREE"))
        let top = children(tree)
        XCTAssertEqual(top.map(label), ["Open in New Tab", "Pin to__Top", "Sort By", "-", "Rename", "Archive", "Move to Trash",
                                        "-", "Copy"],
                       "sections become separators; underscores are escaped for mnemonics")
        XCTAssertEqual(top[0]["icon-name"] as? String, "tab-new")
        XCTAssertEqual(top[0]["shortcut"] as? [[String]], [["Control", "t"]])
        XCTAssertNil(top[0]["toggle-type"], "a plain item sends only non-defaults")
        XCTAssertEqual(top[1]["toggle-type"] as? String, "checkmark")
        XCTAssertEqual(top[1]["toggle-state"] as? Int, 1)
        XCTAssertEqual(top[2]["children-display"] as? String, "submenu")
        let sort = children(top[2])
        XCTAssertEqual(sort.map(label), ["Name", "Date", "Size", "Kind"])
        XCTAssertEqual(sort.map { $0["toggle-type"] as? String }, Array(repeating: "radio", count: 4))
        XCTAssertEqual(sort.map { $0["toggle-state"] as? Int }, [1, 0, 0, 0])
        XCTAssertEqual(top[3]["type"] as? String, "separator")
        XCTAssertEqual(top[5]["enabled"] as? Bool, false)
        XCTAssertNil(top[4]["enabled"])
        XCTAssertNil(top[6]["disposition"], "no disposition: KDE's importer warns about it")
        XCTAssertEqual(actions.map(\.itemId), ["rename"], "the click came through as the app's own item")
        XCTAssertEqual(actions.first?.platformData["timestamp"], .uint32(0))
    }

    func testDbusmenuClientSeesASelectionChangeOnAnOpenEditMenu() throws {
        let app = try app("org.example.Editor")
        try app.publishContext("f", richField)
        try app.updateSelection("f", Selection(kind: .caret))
        let consumer = try startConsumer("dbusmenu_client.py", ["org.example.Editor", "f", "edit", "watch"])
        XCTAssertTrue(pumpClients([app], until: { consumer.lines.contains { $0.tag == "READY" } || !consumer.output.isRunning }),
                      consumer.diagnostics)
        let before = try XCTUnwrap(consumer.lines.first { $0.tag == "TREE" }?.json)
        XCTAssertEqual(children(before).map(label), ["Select", "Select All"])
        try app.updateSelection("f", Selection(kind: .range, length: 5, attributes: [.bold]))
        XCTAssertTrue(pumpClients([app], until: { !consumer.output.isRunning }), consumer.diagnostics)
        let after = try XCTUnwrap(consumer.lines.first { $0.tag == "CHANGED" }?.json, consumer.diagnostics)
        let top = children(after)
        XCTAssertEqual(top.map(label), ["Cut", "Copy", "Delete", "Select All", "-", "Format"])
        let format = children(top[5])
        XCTAssertEqual(format.map(label), ["Bold", "Italic", "Underline"])
        XCTAssertEqual(format.map { $0["toggle-state"] as? Int }, [1, 0, 0], "Bold is checked, the others keep an empty box")
    }

    // MARK: GLib's GDBusMenuModel and GDBusActionGroup

    func testGDBusMenuModelReadsSectionsAndSubmenusAndAnActivationReachesTheApp() throws {
        let app = try filesApp()
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let run = try runConsumer("gmenu_client.py", ["org.example.Files", "row", "context", "read", "Date"],
                                  pumping: [app]) { $0.contains { $0.tag == "ACTIVATED" } && !actions.isEmpty }
        let items = try XCTUnwrap(run.first("TREE")?["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["label"] as? String ?? "section" },
                       ["Open in New Tab", "Pin to__Top", "Sort By", "section", "section"])
        XCTAssertEqual(items[0]["icon"] as? String, "tab-new")
        XCTAssertEqual(items[0]["accel"] as? String, "<Control>t")
        XCTAssertNil(items[0]["state"], "a plain item has a stateless action")
        XCTAssertEqual(items[1]["state"] as? Bool, true, "a checkmark is a boolean state")
        let sort = try XCTUnwrap(items[2]["submenu"] as? [[String: Any]], "a submenu is its own linked menu")
        XCTAssertEqual(sort.map { $0["label"] as? String }, ["Name", "Date", "Size", "Kind"])
        XCTAssertEqual(Set(sort.compactMap { $0["action"] as? String }).count, 1, "radio items share one action")
        XCTAssertEqual(sort.map { $0["target"] as? String }, ["sort-name", "sort-date", "sort-size", "sort-kind"])
        XCTAssertEqual(sort.first?["state"] as? String, "sort-name")
        XCTAssertEqual(sort.first?["parameter"] as? String, "s")
        let manage = try XCTUnwrap(items[3]["section"] as? [[String: Any]])
        XCTAssertEqual(manage.map { $0["label"] as? String }, ["Rename", "Archive", "Move to Trash"])
        XCTAssertEqual(manage.map { $0["enabled"] as? Bool }, [true, false, true])
        let suggestions = try XCTUnwrap(items[4]["section"] as? [[String: Any]])
        XCTAssertEqual(suggestions.map { $0["label"] as? String }, ["Copy"])
        XCTAssertEqual(actions.map(\.itemId), ["sort-date"], "the radio action's target chose the item")
    }

    func testGDBusMenuModelSeesItemsUpdatedOnAnOpenMenu() throws {
        let app = try filesApp()
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let consumer = try startConsumer("gmenu_client.py", ["org.example.Files", "row", "context", "watch"])
        XCTAssertTrue(pumpClients([app], until: { consumer.lines.contains { $0.tag == "READY" } || !consumer.output.isRunning }),
                      consumer.diagnostics)
        var updated = Self.fileRowItems.filter { $0.id != "archive" }
        if let index = updated.firstIndex(where: { $0.id == "sort-name" }) { updated[index].state = .off }
        if let index = updated.firstIndex(where: { $0.id == "sort-size" }) { updated[index].state = .on }
        updated.append(MenuElement(id: "compress", parent: "manage", title: "Compress"))
        _ = try app.updateItems("row", updated)
        XCTAssertTrue(pumpClients([app], until: { !consumer.output.isRunning }), consumer.diagnostics)
        let items = try XCTUnwrap(consumer.lines.first { $0.tag == "CHANGED" }?.json?["items"] as? [[String: Any]],
                                  consumer.diagnostics)
        let manage = try XCTUnwrap(items[3]["section"] as? [[String: Any]])
        XCTAssertEqual(manage.map { $0["label"] as? String }, ["Rename", "Compress", "Move to Trash"])
        // The submenu's group and the actions change too; the consumer may print
        // before the last of them lands, so the radio state is checked through
        // its own read below.
        let reread = try runConsumer("gmenu_client.py", ["org.example.Files", "row", "context", "read"], pumping: [app])
        let sort = try XCTUnwrap((reread.first("TREE")?["items"] as? [[String: Any]])?[2]["submenu"] as? [[String: Any]])
        XCTAssertEqual(sort.first?["state"] as? String, "sort-size")
    }

    // MARK: A GTK window

    func testGtkMenuRendersAPresentedEditMenuAndAClickReachesTheApp() throws {
        try requireXvfb()
        let app = try app("org.example.Editor")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        try app.publishContext("doc", richField, items: [
            MenuElement(id: "comment", title: "Add Comment", icon: "insert-text", shortcut: "<Control><Alt>m"),
        ])
        try app.updateSelection("doc", Selection(kind: .range, length: 11, attributes: [.bold],
                                                 pasteboardTypes: ["text/plain"]))
        let translator = try MenuBusClient(address: try bus.address)
        try translator.registerProvider(ProviderInfo(id: "org.example.Translator", title: "Translate",
                                                            icon: "preferences-desktop-locale", role: .translate)) { text, _ in text }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-gtk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let screenshot = directory.appendingPathComponent("edit-menu.png")
        let run = try runConsumer("gtk_render.py", ["org.example.Editor", "doc", "edit", screenshot.path,
                                                    "--open", "Format", "--click", "Copy"],
                                  pumping: [app, translator], launcher: Self.xvfb) {
            $0.contains { $0.tag == "ACTIVATED" } && !commands.isEmpty
        }
        let labels = try XCTUnwrap(run.first("SHOWN")?["labels"] as? [String])
        XCTAssertEqual(labels, ["Cut", "Copy", "Paste", "Delete", "Select All", "-", "Format", "Translate", "-", "Add Comment"])
        XCTAssertEqual(run.first("SHOWN")?["submenu"] as? [String], ["[x] Bold", "Italic", "Underline"],
                       "GTK draws the bold selection's state as a checked item")
        let png = try Data(contentsOf: screenshot)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG file")
        XCTAssertGreaterThan(png.count, 10_000, "a screen with a window and a menu, not a blank one")
        XCTAssertEqual(commands.map(\.name), ["copy"], "the GtkMenuItem's click came through as Copy")
        if let keep = ProcessInfo.processInfo.environment["MENUBUS_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: screenshot, to: URL(fileURLWithPath: keep))
        }
    }

    // MARK: The protocols' edges, as real consumers exercise them

    private func present(_ connection: Connection, owner: String, contextId: String, kind: String) throws -> ObjectPath {
        let reply = try callDaemon(connection, "PresentMenu", [.string(owner), .string(contextId), .string(kind), .array("{sv}", [])])
        guard case .objectPath(let path)? = reply.first else { throw TestFailure("PresentMenu returned \(reply)") }
        return path
    }

    private func dbusmenu(_ connection: Connection, _ path: ObjectPath, _ member: String,
                          _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try callDaemon(connection, path: path, interface: MenuBusNames.dbusMenuInterface, member, arguments)
    }

    private func layoutRevision(_ connection: Connection, _ path: ObjectPath) throws -> UInt32 {
        guard case .uint32(let revision)? = try dbusmenu(connection, path, "GetLayout",
                                                          [.int32(0), .int32(-1), .array("s", [])]).first else {
            throw TestFailure("GetLayout returned no revision")
        }
        return revision
    }

    /// The dbusmenu id of the top-level item labelled `label`.
    private func dbusmenuId(_ connection: Connection, _ path: ObjectPath, label: String) throws -> Int32 {
        let reply = try dbusmenu(connection, path, "GetLayout", [.int32(0), .int32(1), .array("s", [.string("label")])])
        guard reply.count == 2, case .structure(let root) = reply[1], case .array(_, let children) = root[2] else {
            throw TestFailure("GetLayout returned \(reply)")
        }
        for child in children {
            guard case .variant(.structure(let fields)) = child, case .int32(let id) = fields[0] else { continue }
            if fields[1] == DBusValue.array("{sv}", [.dictEntry(.string("label"), .variant(.string(label)))]) { return id }
        }
        throw TestFailure("no item labelled \(label)")
    }

    func testDbusmenuAnswersVersionThreeAndNamesUnknownIds() throws {
        let app = try app("org.example.Editor")
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        try app.publishContext("f", richField)
        try app.updateSelection("f", Selection(kind: .range, length: 3))
        let shell = try connect()
        let path = try present(shell, owner: "org.example.Editor", contextId: "f", kind: "edit")
        let properties = try callDaemon(shell, path: path, interface: "org.freedesktop.DBus.Properties", "GetAll",
                                        [.string(MenuBusNames.dbusMenuInterface)])
        let values = Dictionary(uniqueKeysWithValues: (properties.first?.dictEntries ?? []).compactMap { entry in
            entry.key.stringValue.map { ($0, entry.value.unwrapped) }
        })
        XCTAssertEqual(values["Version"], .uint32(3), "3: EventGroup and AboutToShowGroup exist")
        XCTAssertEqual(values["TextDirection"], .string("ltr"))
        XCTAssertEqual(values["Status"], .string("normal"))
        XCTAssertEqual(values["IconThemePath"], .array("s", []))
        for (member, arguments) in [("GetLayout", [DBusValue.int32(4242), .int32(-1), .array("s", [])]),
                                    ("GetProperty", [.int32(4242), .string("label")]),
                                    ("AboutToShow", [.int32(4242)]),
                                    ("Event", [.int32(4242), .string("clicked"), .variant(.int32(0)), .uint32(0)])] {
            let error = assertBusError(BusError.Standard.invalidArgs) { _ = try dbusmenu(shell, path, member, arguments) }
            XCTAssertTrue(error?.message.contains("4242") ?? false, "\(member): \(error?.message ?? "")")
        }
        XCTAssertEqual(try dbusmenu(shell, path, "AboutToShow", [.int32(0)]), [.boolean(false)])
        XCTAssertEqual(try dbusmenu(shell, path, "AboutToShowGroup", [.array("i", [.int32(0), .int32(4242)])]),
                       [.array("i", []), .array("i", [.int32(4242)])])
        let copy = try dbusmenuId(shell, path, label: "Copy")
        // Consumers send event data as int32 0, "" or a byte: every type is accepted.
        for data in [DBusValue.int32(0), .string(""), .byte(0), .array("s", [])] {
            XCTAssertEqual(try dbusmenu(shell, path, "Event", [.int32(copy), .string("hovered"), .variant(data), .uint32(0)]), [])
        }
        assertBusError(BusError.Standard.invalidArgs) {
            _ = try dbusmenu(shell, path, "EventGroup", [.array("(isvu)", [
                .structure([.int32(4242), .string("clicked"), .variant(.int32(0)), .uint32(0)])])])
        }
        XCTAssertEqual(try dbusmenu(shell, path, "EventGroup", [.array("(isvu)", [
            .structure([.int32(copy), .string("opened"), .variant(.string("")), .uint32(0)]),
            .structure([.int32(4242), .string("opened"), .variant(.string("")), .uint32(0)])])]),
                       [.array("i", [.int32(4242)])], "unknown ids come back as errors; the rest is delivered")
        XCTAssertTrue(commands.isEmpty, "hovered and opened choose nothing")
        let flood = DBusValue.array("(isvu)", Array(repeating: .structure([.int32(copy), .string("hovered"),
                                                                            .variant(.int32(0)), .uint32(0)]), count: 1_001))
        assertBusError(BusError.Domain.limitExceeded.errorName) { _ = try dbusmenu(shell, path, "EventGroup", [flood]) }
        XCTAssertEqual(try dbusmenu(shell, path, "Event", [.int32(copy), .string("clicked"), .variant(.byte(0)), .uint32(7)]), [])
        XCTAssertTrue(pumpClients([app]) { !commands.isEmpty })
        XCTAssertEqual(commands.map(\.name), ["copy"])
    }

    func testGetLayoutNeverReturnsARevisionBelowTheLastLayoutUpdated() throws {
        let app = try app("org.example.Editor")
        try app.publishContext("f", richField)
        try app.updateSelection("f", Selection(kind: .caret))
        let shell = try connect()
        let path = try present(shell, owner: "org.example.Editor", contextId: "f", kind: "edit")
        var signalled: [UInt32] = []
        var propertyUpdates = 0
        shell.subscribe(interface: MenuBusNames.dbusMenuInterface, member: "LayoutUpdated", path: path) { message in
            if case .uint32(let revision)? = try? message.arguments().first { signalled.append(revision) }
        }
        shell.subscribe(interface: MenuBusNames.dbusMenuInterface, member: "ItemsPropertiesUpdated", path: path) { _ in
            propertyUpdates += 1
        }
        _ = try layoutRevision(shell, path)
        for round in 0..<40 {
            let selection = round % 2 == 0 ? Selection(kind: .range, length: UInt32(round + 1)) : Selection(kind: .caret)
            try app.updateSelection("f", selection)
            shell.loop.run(until: { false }, timeout: 0.005)
            let revision = try layoutRevision(shell, path)
            XCTAssertGreaterThanOrEqual(revision, signalled.max() ?? 0, "round \(round)")
        }
        XCTAssertFalse(signalled.isEmpty)
        XCTAssertEqual(signalled, signalled.sorted(), "revisions only grow")

        // A change of states alone is a property update, not a new layout.
        try app.updateSelection("f", Selection(kind: .range, length: 2, attributes: [.bold]))
        try drain([shell], through: path)
        let layoutsBefore = signalled.count, updatesBefore = propertyUpdates
        try app.updateSelection("f", Selection(kind: .range, length: 2, attributes: [.italic]))
        try drain([shell], through: path)
        XCTAssertGreaterThan(propertyUpdates, updatesBefore, "Bold and Italic changed state")
        XCTAssertEqual(signalled.count, layoutsBefore, "nothing moved, so no LayoutUpdated")
    }

    /// Delivers every signal a change caused: a call on the menu brings its
    /// exports up to date (signals go before the reply), then a round trip
    /// from each connection orders them before its queue is dispatched.
    private func drain(_ connections: [Connection], through path: ObjectPath) throws {
        guard let first = connections.first else { return }
        _ = try callDaemon(first, path: path, interface: MenuBusNames.gtkActionsInterface, "List")
        for connection in connections {
            _ = try callDaemon(connection, interface: "org.freedesktop.DBus.Peer", "Ping")
            connection.loop.run(until: { false }, timeout: 0.01)
        }
    }

    func testGtkMenusChangedGoesOnlyToSubscribersOfTheChangedGroup() throws {
        let app = try filesApp()
        let items = [MenuElement(id: "a", title: "A"), MenuElement(id: "more", kind: .menu, title: "More"),
                     MenuElement(id: "b", parent: "more", title: "B")]
        try app.publishContext("row", ContextInfo(kind: .item), items: items)
        let shell = try connect(), other = try connect()
        let path = try present(shell, owner: "org.example.Files", contextId: "row", kind: "context")
        func start(_ connection: Connection, _ groups: [UInt32]) throws -> [DBusValue] {
            try callDaemon(connection, path: path, interface: MenuBusNames.gtkMenusInterface, "Start",
                           [.array("u", groups.map(DBusValue.uint32))])
        }
        func end(_ connection: Connection, _ groups: [UInt32]) throws {
            _ = try callDaemon(connection, path: path, interface: MenuBusNames.gtkMenusInterface, "End",
                               [.array("u", groups.map(DBusValue.uint32))])
        }
        var shellChanges: [[DBusValue]] = [], otherChanges: [[DBusValue]] = []
        shell.subscribe(interface: MenuBusNames.gtkMenusInterface, member: "Changed", path: path) {
            shellChanges.append((try? $0.arguments()) ?? [])
        }
        other.subscribe(interface: MenuBusNames.gtkMenusInterface, member: "Changed", path: path) {
            otherChanges.append((try? $0.arguments()) ?? [])
        }
        let root = try start(shell, [0])
        guard case .array(_, let rows)? = root.first, case .structure(let first)? = rows.first,
              case .array(_, let rootItems) = first[2],
              case .array(_, let entries) = rootItems[1],
              let link = entries.compactMap({ entry -> DBusValue? in
                  guard case .dictEntry(.string(":submenu"), .variant(let value)) = entry else { return nil }
                  return value
              }).first,
              case .structure(let groupAndMenu) = link, case .uint32(let submenuGroup) = groupAndMenu[0] else {
            return XCTFail("no submenu link in \(root)")
        }
        _ = try start(shell, [0])
        _ = try start(other, [submenuGroup])
        func update(_ titles: (String, String)) throws {
            var edited = items
            edited[0].title = titles.0
            edited[2].title = titles.1
            _ = try app.updateItems("row", edited)
            try drain([shell, other], through: path)
        }

        try update(("A2", "B"))
        XCTAssertEqual(shellChanges.count, 1, "the root group changed and the shell holds it")
        XCTAssertTrue(otherChanges.isEmpty, "the other consumer holds only the submenu's group")
        guard case .array(_, let changeRows)? = shellChanges.first?.first, case .structure(let change)? = changeRows.first else {
            return XCTFail("no change rows")
        }
        XCTAssertEqual(Array(change.prefix(4)), [.uint32(0), .uint32(0), .uint32(0), .uint32(1)],
                       "only the renamed item: position 0, one removed")

        try update(("A2", "B2"))
        XCTAssertEqual(otherChanges.count, 1)
        XCTAssertEqual(shellChanges.count, 1)

        try end(shell, [0])
        try update(("A3", "B2"))
        XCTAssertEqual(shellChanges.count, 2, "two Starts, one End: still subscribed")
        try end(shell, [0])
        try update(("A4", "B2"))
        XCTAssertEqual(shellChanges.count, 2, "unsubscribed")
    }

    // MARK: Properties

    func testTextDirectionComesFromThePresentersOption() throws {
        let app = try filesApp()
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let shell = try connect()
        func direction(_ options: [DBusValue]) throws -> DBusValue? {
            let reply = try callDaemon(shell, "PresentMenu", [.string("org.example.Files"), .string("row"), .string("context"),
                                                              .array("{sv}", options)])
            guard case .objectPath(let path)? = reply.first else { return nil }
            return try callDaemon(shell, path: path, interface: "org.freedesktop.DBus.Properties", "Get",
                                  [.string(MenuBusNames.dbusMenuInterface), .string("TextDirection")]).first?.unwrapped
        }
        XCTAssertEqual(try direction([.dictEntry(.string("text-direction"), .variant(.string("rtl")))]), .string("rtl"))
        XCTAssertEqual(try direction([.dictEntry(.string("text-direction"), .variant(.string("ltr")))]), .string("ltr"))
        XCTAssertEqual(try direction([]), .string(TextDirection.presentationDefault().rawValue))
        for bad in [DBusValue.string("up"), .int32(1)] {
            let error = assertBusError(BusError.Standard.invalidArgs) {
                _ = try direction([.dictEntry(.string("text-direction"), .variant(bad))])
            }
            XCTAssertTrue(error?.message.contains("text-direction") ?? false, error?.message ?? "")
        }
    }

    // MARK: AboutToShow while deferred elements load

    /// A menu whose "Open Recent" submenu is filled late; the app answers
    /// only while it is pumped.
    private func presentWithDeferredSubmenu(_ shell: Connection) throws -> (MenuBusClient, ObjectPath, Int32) {
        let app = try filesApp()
        app.provideElements = { _, _ in [MenuElement(id: "recent-1", title: "Report.pdf")] }
        try app.publishContext("row", ContextInfo(kind: .item), items: [
            MenuElement(id: "open", title: "Open"),
            MenuElement(id: "recent", kind: .menu, title: "Open Recent"),
            MenuElement(id: "recent-files", parent: "recent", kind: .deferred, cached: false),
        ])
        let path = try present(shell, owner: "org.example.Files", contextId: "row", kind: "context")
        return (app, path, try dbusmenuId(shell, path, label: "Open Recent"))
    }

    private func callAsync(_ connection: Connection, _ path: ObjectPath, _ member: String, _ arguments: [DBusValue],
                           _ done: @escaping ([DBusValue]?) -> Void) {
        connection.call(destination: MenuBusNames.busName, path: path, interface: MenuBusNames.dbusMenuInterface,
                        member: member, arguments: arguments, timeout: 10) { done(try? $0.get()) }
    }

    func testAboutToShowWaitsForTheMenusDeferredElementsThenAsksForARefresh() throws {
        let shell = try connect()
        let (app, path, recent) = try presentWithDeferredSubmenu(shell)
        var order: [String] = []
        shell.subscribe(interface: MenuBusNames.dbusMenuInterface, member: "LayoutUpdated", path: path) { _ in
            order.append("LayoutUpdated")
        }
        var answer: [DBusValue]?
        callAsync(shell, path, "AboutToShow", [.int32(recent)]) {
            answer = $0
            order.append("answer")
        }
        XCTAssertEqual(try dbusmenu(shell, path, "AboutToShow", [.int32(0)]), [.boolean(false)],
                       "nothing of the top level is loading")
        shell.loop.run(until: { answer != nil }, timeout: 0.3)
        XCTAssertNil(answer, "the answer waits while the submenu's element loads")
        let deadline = Date().addingTimeInterval(DBusMenuExport.aboutToShowWait / 2)
        while (answer == nil || order.count < 2) && Date() < deadline {
            _ = app.run(until: { false }, timeout: 0.01)
            shell.loop.run(until: { answer != nil && order.count >= 2 }, timeout: 0.01)
        }
        XCTAssertEqual(answer, [.boolean(true)], "needUpdate: the consumer refreshes before it shows the menu")
        XCTAssertEqual(order, ["answer", "LayoutUpdated"], "the answer goes before the signal, so one refresh does")
        let layout = try dbusmenu(shell, path, "GetLayout", [.int32(recent), .int32(1), .array("s", [.string("label")])])
        guard case .structure(let fields)? = layout.last, case .array(_, let children) = fields[2] else {
            return XCTFail("no layout")
        }
        let whole = try dbusmenu(shell, path, "GetLayout", [.int32(0), .int32(-1), .array("s", [])])
        XCTAssertEqual(children.count, 1, "\(whole)")
        XCTAssertTrue("\(children)".contains("Report.pdf"))
        XCTAssertEqual(try dbusmenu(shell, path, "AboutToShow", [.int32(recent)]), [.boolean(false)], "nothing loads now")
    }

    func testAboutToShowGroupAnswersWithinTwoSecondsWhenTheAppDoesNotAnswer() throws {
        let shell = try connect()
        let (app, path, recent) = try presentWithDeferredSubmenu(shell)
        defer { withExtendedLifetime(app) {} }
        var answer: [DBusValue]?
        let started = Date()
        callAsync(shell, path, "AboutToShowGroup", [.array("i", [.int32(0), .int32(recent), .int32(4242)])]) { answer = $0 }
        XCTAssertTrue(shell.loop.run(until: { answer != nil }, timeout: DBusMenuExport.aboutToShowWait + 1))
        let waited = Date().timeIntervalSince(started)
        XCTAssertEqual(answer, [.array("i", [.int32(recent)]), .array("i", [.int32(4242)])])
        XCTAssertGreaterThan(waited, DBusMenuExport.aboutToShowWait * 0.8, "it waited for the element")
        XCTAssertLessThan(waited, DBusMenuExport.aboutToShowWait + 0.8, "but not past the bound")
        XCTAssertTrue(daemon.isRunning)
    }

    // MARK: Closing

    /// A presented file-row menu whose consumer read it in both protocols
    /// and subscribed to the root and the submenu's group.
    private func presentAndRead(_ shell: Connection) throws -> (path: ObjectPath, app: MenuBusClient) {
        let app = try filesApp()
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let path = try present(shell, owner: "org.example.Files", contextId: "row", kind: "context")
        _ = try layoutRevision(shell, path)
        _ = try callDaemon(shell, path: path, interface: MenuBusNames.gtkMenusInterface, "Start", [.array("u", [.uint32(0), .uint32(1)])])
        _ = try callDaemon(shell, path: path, interface: MenuBusNames.gtkActionsInterface, "DescribeAll")
        return (path, app)
    }

    func testAClosingMenuShowsEmptyInEveryProtocolThenGoes() throws {
        let shell = try connect()
        let (path, app) = try presentAndRead(shell)
        defer { withExtendedLifetime(app) {} }
        let revision = try layoutRevision(shell, path)
        var events: [String] = []
        var menuRows: [DBusValue] = [], removedActions: [DBusValue] = []
        var layoutUpdated: [DBusValue] = []
        shell.subscribe(interface: MenuBusNames.menuInterface, member: "Closed", path: path) { _ in events.append("Closed") }
        shell.subscribe(interface: MenuBusNames.dbusMenuInterface, member: "LayoutUpdated", path: path) {
            events.append("LayoutUpdated")
            layoutUpdated = (try? $0.arguments()) ?? []
        }
        shell.subscribe(interface: MenuBusNames.gtkMenusInterface, member: "Changed", path: path) {
            events.append("Menus.Changed")
            if case .array(_, let rows)? = try? $0.arguments().first { menuRows += rows }
        }
        shell.subscribe(interface: MenuBusNames.gtkActionsInterface, member: "Changed", path: path) {
            events.append("Actions.Changed")
            if case .array(_, let names)? = try? $0.arguments().first { removedActions += names }
        }
        guard case .array(_, let actions)? = try callDaemon(shell, path: path, interface: MenuBusNames.gtkActionsInterface,
                                                            "List").first else { return XCTFail("no actions") }
        _ = try callDaemon(shell, path: path, interface: MenuBusNames.menuInterface, "Dismiss")
        XCTAssertTrue(shell.loop.run(until: { events.count >= 4 }, timeout: 5), "\(events)")
        XCTAssertEqual(events, ["Closed", "LayoutUpdated", "Menus.Changed", "Actions.Changed"])
        XCTAssertEqual(layoutUpdated.last, .int32(0), "the root changed")
        guard case .uint32(let closingRevision)? = layoutUpdated.first else { return XCTFail("no revision") }
        XCTAssertGreaterThan(closingRevision, revision)
        let empty = try dbusmenu(shell, path, "GetLayout", [.int32(0), .int32(-1), .array("s", [])])
        XCTAssertEqual(empty.first, .uint32(closingRevision))
        guard case .structure(let root)? = empty.last else { return XCTFail("no layout") }
        XCTAssertEqual(root[2], .array("v", []), "an empty root")
        let emptied = menuRows.compactMap { row -> [DBusValue]? in
            guard case .structure(let fields) = row else { return nil }
            return [fields[2], fields[4]]
        }
        XCTAssertEqual(emptied.count, 4, "the root, its two sections and the submenu each lose every item: \(menuRows)")
        XCTAssertTrue(emptied.allSatisfy { $0 == [.uint32(0), .array("a{sv}", [])] })
        XCTAssertEqual(Set(removedActions), Set(actions), "every action removed")
        assertBusError(BusError.Standard.unknownObject) {
            _ = try callDaemon(shell, path: path, interface: MenuBusNames.menuInterface, "GetLayout")
        }
        assertBusError(BusError.Standard.unknownObject) {
            _ = try dbusmenu(shell, path, "Event", [.int32(0), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        }
        // Then the object goes.
        XCTAssertTrue(eventually(timeout: 5) {
            (try? dbusmenu(shell, path, "GetLayout", [.int32(0), .int32(-1), .array("s", [])])) == nil
        })
        let gone = assertBusError(BusError.Standard.unknownObject) {
            _ = try callDaemon(shell, path: path, interface: "org.freedesktop.DBus.Introspectable", "Introspect")
        }
        XCTAssertTrue(gone?.message.contains("No object") ?? false, "\(String(describing: gone))")
    }

    func testDbusmenuClosedOnTheRootEndsThePresentationButAClickRightAfterStillCounts() throws {
        let shell = try connect()
        let (path, app) = try presentAndRead(shell)
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        var closed = false
        shell.subscribe(interface: MenuBusNames.menuInterface, member: "Closed", path: path) { _ in closed = true }
        let rename = try dbusmenuId(shell, path, label: "Rename")
        // As KDE's importer does: the popup hides (closed), then the click goes.
        _ = try dbusmenu(shell, path, "Event", [.int32(0), .string("closed"), .variant(.string("")), .uint32(0)])
        _ = try dbusmenu(shell, path, "Event", [.int32(rename), .string("clicked"), .variant(.string("")), .uint32(0)])
        XCTAssertTrue(pumpClients([app], timeout: 5) { !actions.isEmpty })
        XCTAssertEqual(actions.map(\.itemId), ["rename"])

        let (second, secondApp) = try presentAndRead(shell)
        defer { withExtendedLifetime(secondApp) {} }
        var secondClosed = false
        shell.subscribe(interface: MenuBusNames.menuInterface, member: "Closed", path: second) { _ in secondClosed = true }
        _ = try dbusmenu(shell, second, "Event", [.int32(0), .string("closed"), .variant(.string("")), .uint32(0)])
        XCTAssertTrue(shell.loop.run(until: { secondClosed }, timeout: 5), "closed on the root ends it as Dismiss does")
        XCTAssertTrue(closed)
    }

    func testTheLastGtkSubscriberEndingItsSubscriptionEndsThePresentation() throws {
        let shell = try connect(), other = try connect()
        let (path, app) = try presentAndRead(shell)
        defer { withExtendedLifetime(app) {} }
        var closed = false
        shell.subscribe(interface: MenuBusNames.menuInterface, member: "Closed", path: path) { _ in closed = true }
        _ = try callDaemon(other, path: path, interface: MenuBusNames.gtkMenusInterface, "Start", [.array("u", [.uint32(0)])])
        _ = try callDaemon(shell, path: path, interface: MenuBusNames.gtkMenusInterface, "End", [.array("u", [.uint32(0), .uint32(1)])])
        shell.loop.run(until: { closed }, timeout: PresentedMenus.consumerCloseDelay * 2)
        XCTAssertFalse(closed, "another consumer still holds the root")
        _ = try callDaemon(other, path: path, interface: MenuBusNames.gtkMenusInterface, "End", [.array("u", [.uint32(0)])])
        XCTAssertTrue(shell.loop.run(until: { closed }, timeout: 5))
    }

    func testGtkActionsRefuseUnknownActionsAndWrongParameters() throws {
        let app = try filesApp()
        try app.publishContext("row", ContextInfo(kind: .file), items: Self.fileRowItems)
        let shell = try connect()
        let path = try present(shell, owner: "org.example.Files", contextId: "row", kind: "context")
        func actions(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
            try callDaemon(shell, path: path, interface: MenuBusNames.gtkActionsInterface, member, arguments)
        }
        guard case .array(_, let names)? = try actions("List").first else { return XCTFail("no list") }
        let choice = try XCTUnwrap(names.compactMap(\.stringValue).first { $0.hasPrefix("choice-") })
        let none = DBusValue.array("{sv}", [])
        let refusals: [(String, [DBusValue])] = [
            ("Describe", [.string("item-4242")]),
            ("Activate", [.string("item-4242"), .array("v", []), none]),
            ("Activate", [.string(choice), .array("v", [.variant(.int32(1))]), none]),
            ("Activate", [.string(choice), .array("v", []), none]),
            ("SetState", [.string(choice), .variant(.boolean(true)), none]),
            ("SetState", [.string("item-4242"), .variant(.string("x")), none]),
        ]
        for (member, arguments) in refusals {
            assertBusError(BusError.Standard.invalidArgs) { _ = try actions(member, arguments) }
        }
        guard case .array(_, let all)? = try actions("DescribeAll").first else { return XCTFail("no descriptions") }
        XCTAssertEqual(all.count, names.count)
        XCTAssertTrue(daemon.isRunning)
    }
}
