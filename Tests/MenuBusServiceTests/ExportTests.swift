import XCTest
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel

/// The mappings of composed menus to `com.canonical.dbusmenu` and to GLib's
/// menu-model export, as plain values: no bus.
final class ExportTests: XCTestCase {
    // MARK: Building blocks

    private func item(_ id: String, in parent: String = "", _ title: String? = nil) -> MenuElement {
        MenuElement(id: id, parent: parent, title: title ?? id)
    }

    private func section(_ id: String, in parent: String = "", title: String? = nil,
                         options: Set<MenuElement.MenuOption> = []) -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, title: title, options: options.union([.inline]))
    }

    private func submenu(_ id: String, in parent: String = "", options: Set<MenuElement.MenuOption> = []) -> MenuElement {
        MenuElement(id: id, parent: parent, kind: .menu, title: id.capitalized, options: options)
    }

    /// Labels of an item's children in a dbusmenu layout, "-" for separators.
    private func labels(_ layout: DBusMenuLayout, under id: Int32 = DBusMenuLayout.rootId) -> [String] {
        (layout.node(id)?.children ?? []).map { child in
            guard let node = layout.node(child) else { return "?" }
            if node.properties.value(named: "type") == .string("separator") { return "-" }
            return node.properties.value(named: "label")?.stringValue ?? "?"
        }
    }

    private func dbusMenu(_ elements: [MenuElement]) -> DBusMenuLayout {
        var ids = ExportIDs()
        return DBusMenuLayout(elements, ids: &ids)
    }

    private func idOf(_ elementId: String, in layout: DBusMenuLayout) -> Int32? {
        layout.nodes.first { $0.value.elementId == elementId }?.key
    }

    // MARK: dbusmenu: sections and separators

    func testSectionsBecomeSeparatorsBetweenGroupsOnly() {
        let rows: [(String, [MenuElement], [String])] = [
            ("loose items", [item("a"), item("b")], ["a", "b"]),
            ("two sections", [section("s1"), item("a", in: "s1"), item("b", in: "s1"), section("s2"), item("c", in: "s2")],
             ["a", "b", "-", "c"]),
            ("a section between items", [item("a"), section("s"), item("b", in: "s"), item("c")], ["a", "-", "b", "-", "c"]),
            ("an empty section adds nothing", [section("s1"), item("a", in: "s1"), section("s2"), section("s3"),
                                               item("b", in: "s3")], ["a", "-", "b"]),
            ("a section inside a section", [section("s"), item("a", in: "s"), section("t", in: "s"), item("b", in: "t"),
                                            item("c", in: "s")], ["a", "-", "b", "-", "c"]),
            ("a section at the end", [item("a"), section("s"), item("b", in: "s")], ["a", "-", "b"]),
            ("only hidden items need no separator",
             [section("s"), MenuElement(id: "x", parent: "s", title: "x", attributes: [.hidden]), item("a")], ["x", "a"]),
            ("unresolved deferred elements are skipped", [item("a"), MenuElement(id: "d", kind: .deferred), item("b")],
             ["a", "b"]),
        ]
        for (name, elements, expected) in rows {
            XCTAssertEqual(labels(dbusMenu(elements)), expected, name)
        }
    }

    func testSubmenuHoldsItsSectionsWithSeparators() throws {
        let layout = dbusMenu([item("a"), submenu("more"), section("s1", in: "more"), item("b", in: "s1"),
                               section("s2", in: "more"), item("c", in: "s2")])
        XCTAssertEqual(labels(layout), ["a", "More"])
        let more = try XCTUnwrap(idOf("more", in: layout))
        XCTAssertEqual(labels(layout, under: more), ["b", "-", "c"])
        XCTAssertEqual(layout.node(more)?.properties.value(named: "children-display"), .string("submenu"))
        XCTAssertEqual(layout.node(more)?.isAction, false)
        XCTAssertEqual(layout.node(0)?.properties, [ExportProperty("children-display", .string("submenu"))])
    }

    // MARK: dbusmenu: properties

    func testItemPropertiesAreOnlyTheNonDefaultsAndAlwaysALabel() {
        let format = submenu("format")
        let choices = submenu("choices", options: [.singleSelection])
        let danger = submenu("danger", options: [.destructive])
        let rows: [(String, MenuElement, MenuElement?, [ExportProperty])] = [
            ("plain", MenuElement(id: "x", title: "Copy"), nil, [ExportProperty("label", .string("Copy"))]),
            ("untitled", MenuElement(id: "x"), nil, [ExportProperty("label", .string(""))]),
            ("underscores doubled", MenuElement(id: "x", title: "snake_case"), nil,
             [ExportProperty("label", .string("snake__case"))]),
            ("disabled", MenuElement(id: "x", title: "T", attributes: [.disabled]), nil,
             [ExportProperty("label", .string("T")), ExportProperty("enabled", .boolean(false))]),
            ("hidden", MenuElement(id: "x", title: "T", attributes: [.hidden]), nil,
             [ExportProperty("label", .string("T")), ExportProperty("visible", .boolean(false))]),
            ("icon", MenuElement(id: "x", title: "T", icon: "edit-copy"), nil,
             [ExportProperty("label", .string("T")), ExportProperty("icon-name", .string("edit-copy"))]),
            ("shortcut", MenuElement(id: "x", title: "T", shortcut: "<Primary><Shift>z"), nil,
             [ExportProperty("label", .string("T")),
              ExportProperty("shortcut", .array("as", [.array("s", [.string("Control"), .string("Shift"), .string("z")])]))]),
            ("shortcut dbusmenu cannot express", MenuElement(id: "x", title: "T", shortcut: "<Hyper>x"), nil,
             [ExportProperty("label", .string("T"))]),
            ("on", MenuElement(id: "x", title: "T", state: .on), nil,
             [ExportProperty("label", .string("T")), ExportProperty("toggle-type", .string("checkmark")),
              ExportProperty("toggle-state", .int32(1))]),
            ("mixed", MenuElement(id: "x", title: "T", state: .mixed), nil,
             [ExportProperty("label", .string("T")), ExportProperty("toggle-type", .string("checkmark")),
              ExportProperty("toggle-state", .int32(-1))]),
            ("a toggle command while off", MenuElement(id: "menubus:bold", parent: "format", title: "Bold", command: .bold), format,
             [ExportProperty("label", .string("Bold")), ExportProperty("toggle-type", .string("checkmark")),
              ExportProperty("toggle-state", .int32(0))]),
            ("a choice", MenuElement(id: "x", parent: "choices", title: "T"), choices,
             [ExportProperty("label", .string("T")), ExportProperty("toggle-type", .string("radio")),
              ExportProperty("toggle-state", .int32(0))]),
            ("the chosen one", MenuElement(id: "x", parent: "choices", title: "T", state: .on), choices,
             [ExportProperty("label", .string("T")), ExportProperty("toggle-type", .string("radio")),
              ExportProperty("toggle-state", .int32(1))]),
            ("destructive: no disposition, which KDE's importer warns about",
             MenuElement(id: "x", title: "T", attributes: [.destructive]), nil, [ExportProperty("label", .string("T"))]),
            ("in a destructive menu", MenuElement(id: "x", parent: "danger", title: "T"), danger,
             [ExportProperty("label", .string("T"))]),
        ]
        for (name, element, parent, expected) in rows {
            XCTAssertEqual(DBusMenuLayout.properties(of: element, parent: parent), expected, name)
        }
    }

    func testAcceleratorsConvertToDbusmenuShortcuts() {
        let rows: [(String, Accelerator?)] = [
            ("<Control>c", Accelerator(modifiers: ["Control"], key: "c")),
            ("<Ctrl><Alt>Delete", Accelerator(modifiers: ["Control", "Alt"], key: "Delete")),
            ("<Primary><Primary>v", Accelerator(modifiers: ["Control"], key: "v")),
            ("<Super>space", Accelerator(modifiers: ["Super"], key: "space")),
            ("<Mod1>F4", Accelerator(modifiers: ["Alt"], key: "F4")),
            ("F2", Accelerator(modifiers: [], key: "F2")),
            ("<Control>", nil),
            ("<Control", nil),
            ("<Meta>q", nil),
            ("", nil),
            ("<CONTROL><shift>Z", Accelerator(modifiers: ["Control", "Shift"], key: "Z")),
            ("<Control>  plus ", Accelerator(modifiers: ["Control"], key: "plus")),
            ("<Control>é", Accelerator(modifiers: ["Control"], key: "é")),
            ("<Contrôl>c", nil),
            ("<Control>a>b", nil),
            ("<Control>   ", nil),
            ("<>c", nil),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(Accelerator(gtk: text), expected, text)
        }
    }

    // MARK: dbusmenu: ids, queries and changes

    func testIdsStayWithTheirElementsAndAreNeverReused() throws {
        var ids = ExportIDs()
        let first = DBusMenuLayout([item("a"), item("b"), section("s"), item("c", in: "s")], ids: &ids)
        let second = DBusMenuLayout([item("a"), section("s"), item("c", in: "s"), item("d")], ids: &ids)
        let third = DBusMenuLayout([item("b"), item("a")], ids: &ids)
        XCTAssertEqual(idOf("a", in: first), idOf("a", in: second))
        XCTAssertEqual(idOf("c", in: first), idOf("c", in: second))
        XCTAssertEqual(idOf("b", in: first), idOf("b", in: third), "an element that comes back keeps its id")
        let everyId = Set(first.nodes.keys).union(second.nodes.keys)
        let d = try XCTUnwrap(idOf("d", in: second))
        XCTAssertFalse(first.nodes.keys.contains(d), "a new element gets a number never used before")
        XCTAssertEqual(everyId.count, 7, "root, a, b, c, d and two separators, each its own number")
    }

    func testIdsOfAPresentationWhoseAppKeepsSendingNewIdsStayBounded() {
        var ids = ExportIDs()
        var highest: Int32 = 0
        for round in 0..<(ExportIDs.keyBound / 100 + 2) {
            let elements = (0..<100).map { item("round\(round)-\($0)") }
            let layout = DBusMenuLayout(elements, ids: &ids)
            let lowest = layout.nodes.keys.filter { $0 != 0 }.min() ?? 0
            XCTAssertGreaterThan(lowest, highest, "numbers only grow, even after forgetting")
            highest = layout.nodes.keys.max() ?? 0
        }
        XCTAssertLessThanOrEqual(ids.count, ExportIDs.keyBound + 100)
    }

    func testGtkExportAloneAlsoKeepsItsIdsBounded() {
        var ids = ExportIDs()
        for round in 0..<(ExportIDs.keyBound / 100 + 5) {
            let elements = (0..<50).flatMap { index in
                [MenuElement(id: "r\(round)-s\(index)", kind: .menu, options: [.inline]),
                 MenuElement(id: "r\(round)-i\(index)", parent: "r\(round)-s\(index)", title: "Item")]
            }
            _ = GMenuLayout(elements, ids: &ids)
        }
        XCTAssertLessThanOrEqual(ids.count, ExportIDs.keyBound + 100)
    }

    func testGetLayoutHonoursParentDepthAndPropertyNames() throws {
        let layout = dbusMenu([item("a"), submenu("more"), item("b", in: "more")])
        let more = try XCTUnwrap(idOf("more", in: layout))
        func childCount(_ value: DBusValue?) -> Int? {
            guard case .structure(let fields)? = value, case .array(_, let children) = fields[2] else { return nil }
            return children.count
        }
        XCTAssertEqual(childCount(layout.layout(0, depth: -1, names: [])), 2)
        XCTAssertEqual(childCount(layout.layout(0, depth: 0, names: [])), 0)
        XCTAssertEqual(childCount(layout.layout(more, depth: 1, names: [])), 1)
        guard case .structure(let fields)? = layout.layout(0, depth: 1, names: []),
              case .array(_, let children) = fields[2], case .variant(.structure(let submenuFields)) = children[1] else {
            return XCTFail("not a layout")
        }
        XCTAssertEqual(childCount(.structure(submenuFields)), 0, "depth 1 stops below the root's children")
        guard case .structure(let filtered)? = layout.layout(more, depth: 0, names: ["children-display", "nothing"]) else {
            return XCTFail("not a layout")
        }
        XCTAssertEqual(filtered[1], .array("{sv}", [.dictEntry(.string("children-display"), .variant(.string("submenu")))]))
        XCTAssertNil(layout.layout(999, depth: -1, names: []))
    }

    func testGroupPropertiesSkipUnknownIdsAndGetPropertyFallsBackToDefaults() throws {
        let layout = dbusMenu([item("a")])
        let a = try XCTUnwrap(idOf("a", in: layout))
        XCTAssertEqual(layout.groupProperties([a, 999], names: ["label"]),
                       .array("(ia{sv})", [.structure([.int32(a), .array("{sv}", [.dictEntry(.string("label"), .variant(.string("a")))])])]))
        XCTAssertEqual(layout.property(a, "label"), .string("a"))
        XCTAssertEqual(layout.property(a, "enabled"), .boolean(true))
        XCTAssertEqual(layout.property(a, "type"), .string("standard"))
        XCTAssertNil(layout.property(a, "frobnicate"))
        XCTAssertNil(layout.property(999, "label"))
        guard case .array(_, let rows) = layout.groupProperties(Array(repeating: a, count: 1_000), names: []) else {
            return XCTFail("not rows")
        }
        XCTAssertEqual(rows.count, 1, "an id asked for many times is answered once")
    }

    func testChangesSayWhatADbusmenuConsumerMustRefetch() throws {
        var ids = ExportIDs()
        let base = [item("a"), submenu("more"), item("b", in: "more"), item("c", in: "more")]
        let before = DBusMenuLayout(base, ids: &ids)
        let a = try XCTUnwrap(idOf("a", in: before)), more = try XCTUnwrap(idOf("more", in: before))

        var disabled = base
        disabled[0].attributes = [.disabled]
        let propertiesOnly = DBusMenuChanges(from: before, to: DBusMenuLayout(disabled, ids: &ids))
        XCTAssertEqual(propertiesOnly.layoutParents, [], "a property change is not a layout change")
        XCTAssertEqual(propertiesOnly.updated.map(\.id), [a])
        XCTAssertEqual(propertiesOnly.updated.first?.properties, [ExportProperty("enabled", .boolean(false))])
        XCTAssertTrue(propertiesOnly.removed.isEmpty)

        let enabledAgain = DBusMenuChanges(from: DBusMenuLayout(disabled, ids: &ids), to: DBusMenuLayout(base, ids: &ids))
        XCTAssertEqual(enabledAgain.removed.map(\.id), [a])
        XCTAssertEqual(enabledAgain.removed.first?.names, ["enabled"], "back to the default: removed, not sent")

        let inSubmenu = DBusMenuChanges(from: before, to: DBusMenuLayout(Array(base.dropLast()), ids: &ids))
        XCTAssertEqual(inSubmenu.layoutParents, [more], "only the submenu's children changed")

        let atTop = DBusMenuChanges(from: before, to: DBusMenuLayout(base + [item("z")], ids: &ids))
        XCTAssertEqual(atTop.layoutParents, [0])

        XCTAssertFalse(DBusMenuChanges(from: before, to: DBusMenuLayout(base, ids: &ids)).propertiesChanged)
        XCTAssertEqual(DBusMenuChanges(from: before, to: DBusMenuLayout(base, ids: &ids)).layoutParents, [])
    }

    // MARK: GMenuModel

    private func gtk(_ elements: [MenuElement], ids: inout ExportIDs) -> GMenuLayout {
        GMenuLayout(elements, ids: &ids)
    }

    /// The (group, menu) of a `:section` or `:submenu` link.
    private func link(_ value: DBusValue?) -> (group: UInt32, menu: UInt32)? {
        guard case .structure(let fields)? = value, fields.count == 2,
              case .uint32(let group) = fields[0], case .uint32(let menu) = fields[1] else { return nil }
        return (group, menu)
    }

    func testSectionsAreLinkedMenusOfTheGroupAndSubmenusHaveTheirOwnGroup() throws {
        var ids = ExportIDs()
        let export = gtk([item("a"), section("s", title: "Recent"), item("b", in: "s"), submenu("more"),
                          section("t", in: "more"), item("c", in: "t"),
                          MenuElement(id: "gone", title: "Gone", attributes: [.hidden])], ids: &ids)
        let root = try XCTUnwrap(export.items(.init(group: 0, menu: 0)))
        XCTAssertEqual(root.count, 3, "hidden items are left out")
        XCTAssertEqual(root[0], [ExportProperty("label", .string("a")), ExportProperty("action", .string("menubus.item-1"))])
        let sectionLink = try XCTUnwrap(link(root[1].value(named: ":section")))
        XCTAssertEqual(root[1].value(named: "label"), .string("Recent"))
        XCTAssertEqual(sectionLink.group, 0, "a section stays in its parent's group")
        XCTAssertEqual(export.items(.init(group: 0, menu: sectionLink.menu))?.first?.value(named: "label"), .string("b"))
        let submenuLink = try XCTUnwrap(link(root[2].value(named: ":submenu")))
        let group = submenuLink.group
        XCTAssertNotEqual(group, 0)
        XCTAssertEqual(submenuLink.menu, 0)
        XCTAssertEqual(root[2].value(named: "label"), .string("More"))
        guard case .array(_, let rows) = export.startRows([0]) else { return XCTFail("not rows") }
        XCTAssertEqual(rows.count, 2, "Start([0]) returns the root and its section, not the submenu's group")
        guard case .array(_, let submenuRows) = export.startRows([group, 77]) else { return XCTFail("not rows") }
        XCTAssertEqual(submenuRows.count, 2, "the submenu and its section; an unknown group adds nothing")
        guard case .array(_, let repeated) = export.startRows(Array(repeating: 0, count: 1_000)) else { return XCTFail("not rows") }
        XCTAssertEqual(repeated.count, 2, "a group asked for many times is answered once")
    }

    func testSubscriptionsAreCountedPerGroupAndSubscriberAndGoWithThePeer() {
        let exports = PresentationExports()
        exports.subscribe(":1.1", to: 0)
        exports.subscribe(":1.1", to: 0)
        exports.subscribe(":1.1", to: 3)
        exports.subscribe(":1.2", to: 3)
        exports.unsubscribe(":1.1", from: 0)
        XCTAssertEqual(exports.groupsBySubscriber, [":1.1": [0, 3], ":1.2": [3]], "two Starts, one End: still held")
        exports.unsubscribe(":1.1", from: 0)
        exports.unsubscribe(":1.9", from: 3)
        XCTAssertEqual(exports.groupsBySubscriber, [":1.1": [3], ":1.2": [3]])
        exports.dropSubscriber(":1.1")
        XCTAssertEqual(exports.groupsBySubscriber, [":1.2": [3]], "a peer that left holds nothing")
    }

    func testItemsCarryTargetIconAndAccel() throws {
        var ids = ExportIDs()
        let export = gtk([submenu("sort", options: [.singleSelection]),
                          MenuElement(id: "name", parent: "sort", title: "Name", state: .on),
                          MenuElement(id: "date", parent: "sort", title: "Date"),
                          MenuElement(id: "x", title: "Copy", icon: "edit-copy", shortcut: "<Control>c")], ids: &ids)
        let root = try XCTUnwrap(export.items(.init(group: 0, menu: 0)))
        XCTAssertEqual(root[1].value(named: "icon"), .string("edit-copy"))
        XCTAssertEqual(root[1].value(named: "accel"), .string("<Control>c"))
        let group = try XCTUnwrap(link(root[0].value(named: ":submenu"))).group
        let choices = try XCTUnwrap(export.items(.init(group: group, menu: 0)))
        XCTAssertEqual(choices.map { $0.value(named: "target") }, [.string("name"), .string("date")])
        XCTAssertEqual(Set(choices.map { $0.value(named: "action") }).count, 1, "one radio action")
    }

    func testChangedCoversOnlyDifferingMenusOfSubscribedGroups() throws {
        var ids = ExportIDs()
        let base = [section("s"), item("a", in: "s"), item("b", in: "s"), submenu("more"), item("c", in: "more")]
        let before = gtk(base, ids: &ids)
        var edited = base
        edited[2].title = "B"
        edited[4].title = "C"
        let after = gtk(edited, ids: &ids)
        let sectionMenu = ids.menu(forSection: "s"), moreGroup = ids.group(forSubmenu: "more")
        XCTAssertEqual(after.changes(from: before, in: [0]).count, 1, "only the section changed in group 0")
        guard case .structure(let fields) = after.changes(from: before, in: [0])[0] else { return XCTFail("not a row") }
        XCTAssertEqual(Array(fields.prefix(4)), [.uint32(0), .uint32(sectionMenu), .uint32(1), .uint32(1)],
                       "only the renamed item, at its position")
        XCTAssertEqual(after.changes(from: before, in: [moreGroup]).count, 1)
        XCTAssertEqual(after.changes(from: before, in: []).count, 0, "nothing for groups nobody subscribed to")
        XCTAssertEqual(after.changes(from: after, in: [0, moreGroup]).count, 0)
    }

    func testTheContextsTitleIsTheRootLabelAndAGMenuSectionLabel() throws {
        var ids = ExportIDs()
        let elements = [item("a"), section("s", title: "Recent"), item("b", in: "s")]
        let layout = DBusMenuLayout(elements, title: "Report_2.pdf", ids: &ids)
        XCTAssertEqual(layout.node(0)?.properties.value(named: "label"), .string("Report__2.pdf"))
        XCTAssertEqual(labels(layout), ["a", "-", "b"], "a section's title has no place in dbusmenu")
        let export = GMenuLayout(elements, title: "Report_2.pdf", ids: &ids)
        let root = try XCTUnwrap(export.items(.init(group: 0, menu: 0)))
        XCTAssertEqual(root.count, 1)
        XCTAssertEqual(root[0].value(named: "label"), .string("Report__2.pdf"))
        let top = try XCTUnwrap(link(root[0].value(named: ":section")))
        let items = try XCTUnwrap(export.items(.init(group: 0, menu: top.menu)))
        XCTAssertEqual(items.map { $0.value(named: "label") }, [.string("a"), .string("Recent")],
                       "the top level, its section keeping its title")
        guard case .array(_, let rows) = export.startRows([0]) else { return XCTFail("not rows") }
        XCTAssertEqual(rows.count, 3, "the title's menu, the top level and the section")
        let untitled = GMenuLayout(elements, ids: &ids)
        XCTAssertEqual(untitled.items(.init(group: 0, menu: 0))?.count, 2, "no title, no wrapping section")
    }

    // MARK: org.gtk.Actions

    private var actionsMenu: [MenuElement] {
        [MenuElement(id: "plain", title: "Plain"),
         MenuElement(id: "check", title: "Check", state: .on),
         MenuElement(id: "off", title: "Off", attributes: [.disabled]),
         submenu("sort", options: [.singleSelection]),
         MenuElement(id: "name", parent: "sort", title: "Name"),
         MenuElement(id: "date", parent: "sort", title: "Date", state: .on),
         MenuElement(id: "size", parent: "sort", title: "Size", attributes: [.disabled])]
    }

    func testActionsDescribeStatesAsGtkDrawsThem() throws {
        var ids = ExportIDs()
        let actions = gtk(actionsMenu, ids: &ids).actions
        let plain = ids.item("plain"), check = ids.item("check"), off = ids.item("off")
        let sort = ids.item("sort"), size = ids.item("size")
        let rows: [(String, DBusValue)] = [
            ("item-\(plain)", .structure([.boolean(true), .signature(""), .array("v", [])])),
            ("item-\(check)", .structure([.boolean(true), .signature(""), .array("v", [.variant(.boolean(true))])])),
            ("item-\(off)", .structure([.boolean(false), .signature(""), .array("v", [])])),
            ("choice-\(sort)", .structure([.boolean(true), .signature("s"), .array("v", [.variant(.string("date"))])])),
            ("item-\(size)", .structure([.boolean(false), .signature("s"), .array("v", [.variant(.string(""))])])),
        ]
        for (name, description) in rows {
            XCTAssertEqual(actions.action(name)?.description, description, name)
        }
        XCTAssertEqual(actions.names.count, rows.count)
    }

    func testActivationAndSetStateRouteToItemsOrRefuse() throws {
        var ids = ExportIDs()
        let actions = gtk(actionsMenu, ids: &ids).actions
        let plain = "item-\(ids.item("plain"))", check = "item-\(ids.item("check"))", choice = "choice-\(ids.item("sort"))"
        XCTAssertEqual(try actions.activation(plain, parameters: []), "plain")
        XCTAssertEqual(try actions.activation(check, parameters: []), "check")
        XCTAssertEqual(try actions.activation(choice, parameters: [.string("name")]), "name")
        XCTAssertEqual(try actions.stateChange(check, to: .boolean(false)), "check", "unchecking chooses the item")
        XCTAssertNil(try actions.stateChange(check, to: .boolean(true)), "already in that state")
        XCTAssertEqual(try actions.stateChange(choice, to: .string("name")), "name")
        XCTAssertNil(try actions.stateChange(choice, to: .string("date")))
        let refused: [(String, () throws -> Void)] = [
            ("unknown action", { _ = try actions.activation("item-999", parameters: []) }),
            ("parameter to a plain action", { _ = try actions.activation(plain, parameters: [.string("x")]) }),
            ("no parameter to a choice", { _ = try actions.activation(choice, parameters: []) }),
            ("wrong parameter type", { _ = try actions.activation(choice, parameters: [.int32(1)]) }),
            ("a choice the menu does not have", { _ = try actions.activation(choice, parameters: [.string("size")]) }),
            ("state of a stateless action", { _ = try actions.stateChange(plain, to: .boolean(true)) }),
            ("state of the wrong type", { _ = try actions.stateChange(check, to: .string("on")) }),
        ]
        for (name, body) in refused {
            XCTAssertThrowsError(try body(), name) { XCTAssertTrue($0 is GtkActions.Refusal, name) }
        }
    }

    func testActionChangesCarryEnabledStateRemovalsAndReshapes() throws {
        var ids = ExportIDs()
        let before = gtk(actionsMenu, ids: &ids).actions
        var edited = actionsMenu
        edited[0].state = .on                        // plain: gains a state (reshaped)
        edited[1].attributes = [.disabled]           // check: enabled changes
        edited[1].state = .off                       // check: stays a checkmark, now false
        edited.remove(at: 2)                         // off: removed
        edited[3].state = .on                        // name: the radio state moves (index after removal)
        edited[4].state = .off
        let after = gtk(edited, ids: &ids).actions
        let changes = after.changes(from: before)
        let arguments = try XCTUnwrap(changes.before)
        let plain = "item-\(ids.item("plain"))", check = "item-\(ids.item("check"))", off = "item-\(ids.item("off"))"
        let choice = "choice-\(ids.item("sort"))"
        XCTAssertEqual(arguments[0], .array("s", [.string(plain)]), "a reshape is removed and added in one signal")
        XCTAssertEqual(arguments[1], .array("{sb}", [.dictEntry(.string(check), .boolean(false))]))
        XCTAssertEqual(arguments[2], .array("{sv}", [.dictEntry(.string(check), .variant(.boolean(false))),
                                                     .dictEntry(.string(choice), .variant(.string("name")))]),
                       "a checkmark turned off keeps its boolean state")
        XCTAssertEqual(arguments[3], .array("{s(bgav)}", [.dictEntry(.string(plain),
                                                                     .structure([.boolean(true), .signature(""),
                                                                                 .array("v", [.variant(.boolean(true))])]))]))
        XCTAssertEqual(changes.after, [.array("s", [.string(off)]), .array("{sb}", []), .array("{sv}", []),
                                       .array("{s(bgav)}", [])], "a gone action goes after the menu change")
        XCTAssertNil(after.changes(from: after).before)
        XCTAssertNil(after.changes(from: after).after)
    }

    func testAnActionWhoseItemLeftStaysRetiredSoItsItemComesBackWithoutAnActionsChange() throws {
        var ids = ExportIDs()
        let shown = gtk(actionsMenu, ids: &ids)
        let plain = "item-\(ids.item("plain"))"
        var without = actionsMenu
        without.remove(at: 0)
        let retired = GMenuLayout(without, ids: &ids, previous: shown)
        let changes = retired.actions.changes(from: shown.actions)
        XCTAssertNil(changes.before)
        XCTAssertNil(changes.after, "the action stays while its item is away, as a GLib app's does")
        XCTAssertNotNil(retired.actions.action(plain))
        XCTAssertThrowsError(try retired.actions.activation(plain, parameters: [])) {
            XCTAssertEqual(($0 as? GtkActions.Refusal)?.message, "action '\(plain)' belongs to an item no longer in the menu")
        }
        var withoutCheck = actionsMenu
        withoutCheck.remove(at: 1)
        let check = "item-\(ids.item("check"))"
        let checkRetired = GMenuLayout(withoutCheck, ids: &ids, previous: shown)
        XCTAssertThrowsError(try checkRetired.actions.stateChange(check, to: .boolean(false)), "no state change either") {
            XCTAssertEqual(($0 as? GtkActions.Refusal)?.message, "action '\(check)' belongs to an item no longer in the menu")
        }
        let back = GMenuLayout(actionsMenu, ids: &ids, previous: retired)
        XCTAssertNil(back.actions.changes(from: retired.actions).before, "the item comes back to the action it had")
        XCTAssertEqual(try back.actions.activation(plain, parameters: []), "plain")
        let closed = GMenuLayout([], ids: &ids).actions.changes(from: retired.actions)
        XCTAssertEqual(closed.after?.first, .array("s", retired.actions.names.map(DBusValue.string)),
                       "a menu that closes removes its retired actions with the rest")
        var disabled = actionsMenu
        disabled[0].attributes = [.disabled]
        let changed = GMenuLayout(disabled, ids: &ids, previous: retired)
        XCTAssertEqual(changed.actions.changes(from: retired.actions).before?[1],
                       .array("{sb}", [.dictEntry(.string(plain), .boolean(false))]), "coming back changed, it says so first")

        // A menu that keeps sending new ids keeps only the newest retired actions.
        var previous = shown
        for round in 0..<(GtkActions.maxRetired + 20) {
            previous = GMenuLayout([MenuElement(id: "new-\(round)", title: "New")], ids: &ids, previous: previous)
        }
        XCTAssertEqual(previous.actions.names.count, GtkActions.maxRetired + 1)
        XCTAssertEqual(previous.actions.names.first, "item-\(ids.item("new-\(GtkActions.maxRetired + 19)"))")
        XCTAssertNotNil(previous.actions.action("item-\(ids.item("new-\(GtkActions.maxRetired + 18)"))"))
        XCTAssertNil(previous.actions.action(plain), "the longest retired went")
    }

    // MARK: Minimal changes

    func testACheckmarkKeepsItsToggleTypeForItsLifeAndSendsStateZeroWhenOff() throws {
        var ids = ExportIDs()
        let on = [MenuElement(id: "pin", title: "Pin", state: .on), item("other")]
        var off = on
        off[0].state = .off
        let first = DBusMenuLayout(on, ids: &ids)
        let pin = try XCTUnwrap(idOf("pin", in: first))
        let second = DBusMenuLayout(off, ids: &ids)
        let toOff = DBusMenuChanges(from: first, to: second)
        XCTAssertEqual(toOff.updated.map(\.id), [pin])
        XCTAssertEqual(toOff.updated.first?.properties, [ExportProperty("toggle-state", .int32(0))])
        XCTAssertTrue(toOff.removed.isEmpty, "toggle-type and toggle-state are never removed")
        XCTAssertEqual(toOff.layoutParents, [])
        let third = DBusMenuLayout(on, ids: &ids)
        let toOn = DBusMenuChanges(from: second, to: third)
        XCTAssertEqual(toOn.updated.first?.properties, [ExportProperty("toggle-state", .int32(1))])
        XCTAssertEqual(toOn.layoutParents, [])
    }

    func testAnItemBecomingAToggleIsRecreatedThroughItsParentsLayout() throws {
        var ids = ExportIDs()
        let base = [item("a"), submenu("more"), item("b", in: "more"), item("c", in: "more")]
        let before = DBusMenuLayout(base, ids: &ids)
        let more = try XCTUnwrap(idOf("more", in: before))
        var checked = base
        checked[2].state = .on
        checked[3].title = "C2"
        checked[0].title = "A2"
        let changes = DBusMenuChanges(from: before, to: DBusMenuLayout(checked, ids: &ids))
        XCTAssertEqual(changes.layoutParents, [more], "toggle-type is fixed at creation: the parent is refetched")
        XCTAssertEqual(changes.updated.map(\.id), [try XCTUnwrap(idOf("a", in: before))],
                       "items under a refetched parent need no property update")
        XCTAssertFalse(changes.updated.contains { $0.properties.contains { $0.name == "toggle-type" } })
    }

    func testLayoutUpdatedNamesEachChangedParentButNotOnesInsideAnother() throws {
        var ids = ExportIDs()
        let base = [submenu("one"), item("a", in: "one"), submenu("two"), item("b", in: "two"), item("c")]
        let before = DBusMenuLayout(base, ids: &ids)
        let one = try XCTUnwrap(idOf("one", in: before)), two = try XCTUnwrap(idOf("two", in: before))
        let both = DBusMenuChanges(from: before, to: DBusMenuLayout(base + [item("a2", in: "one"), item("b2", in: "two")],
                                                                    ids: &ids))
        XCTAssertEqual(both.layoutParents, [one, two].sorted())
        let withTop = DBusMenuChanges(from: before, to: DBusMenuLayout(base + [item("a2", in: "one"), item("d")], ids: &ids))
        XCTAssertEqual(withTop.layoutParents, [0], "the root's refetch covers the submenu")
    }

    func testGtkChangedIsTheSmallestChangeAtItsPosition() throws {
        var ids = ExportIDs()
        let base = [item("a"), item("b"), item("c"), section("s"), item("d", in: "s"), submenu("more"), item("e", in: "more")]
        let before = gtk(base, ids: &ids)
        func rows(_ elements: [MenuElement], groups: Set<UInt32> = [0]) -> [[DBusValue]] {
            var copy = ids
            let after = GMenuLayout(elements, ids: &copy)
            return after.changes(from: before, in: groups).map { row in
                guard case .structure(let fields) = row else { return [] }
                guard case .array(_, let added) = fields[4] else { return Array(fields.prefix(4)) }
                return Array(fields.prefix(4)) + [.uint32(UInt32(added.count))]
            }
        }
        var renamed = base
        renamed[1].title = "B2"
        XCTAssertEqual(rows(renamed), [[.uint32(0), .uint32(0), .uint32(1), .uint32(1), .uint32(1)]],
                       "a rename is a one-item change at its position")
        var inSection = base
        inSection.insert(item("d2", in: "s"), at: 5)
        let sectionMenu = ids.menu(forSection: "s")
        XCTAssertEqual(rows(inSection), [[.uint32(0), .uint32(sectionMenu), .uint32(1), .uint32(0), .uint32(1)]],
                       "a new item in a section leaves the section's link alone")
        var inSubmenu = base
        inSubmenu[6].title = "E2"
        let group = ids.group(forSubmenu: "more")
        XCTAssertEqual(rows(inSubmenu), [], "the root and its submenu link are untouched")
        XCTAssertEqual(rows(inSubmenu, groups: [0, group]), [[.uint32(group), .uint32(0), .uint32(0), .uint32(1), .uint32(1)]])
        let dropped = base.filter { $0.id != "c" }
        XCTAssertEqual(rows(dropped), [[.uint32(0), .uint32(0), .uint32(2), .uint32(1), .uint32(0)]])
    }
}
