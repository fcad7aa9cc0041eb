import XCTest
import MenuBusModelFixtures
import MenuBusRandomFixtures
@testable import MenuBusService
@testable import MenuBusDBus
@testable import MenuBusModel

/// A revision that changes only what items show is patched into the
/// mappings consumers hold (`ElementPatch`, `MenuExport.patched`); a patch
/// must be exactly the full mapping, and its signalled change exactly the
/// full comparison's.
final class ExportPatchTests: XCTestCase {
    func testSeparatorsKeepTheirNumbersWhenTheGtkExportRetains() {
        var ids = ExportIDs()
        for index in 0...ExportIDs.keyBound { _ = ids.item("gone\(index)") }
        let separator = ids.item(ExportIDs.separatorKey("s")), top = ids.item(ExportIDs.separatorKey(""))
        let orphan = ids.item(ExportIDs.separatorKey("gone0"))
        ids.retain(["s", "a"])
        XCTAssertEqual(ids.existingItem(ExportIDs.separatorKey("s")), separator, "its anchor is in the menu")
        XCTAssertEqual(ids.existingItem(ExportIDs.separatorKey("")), top, "the top is always")
        XCTAssertNil(ids.existingItem(ExportIDs.separatorKey("gone0")), "its anchor went (number \(orphan))")
        XCTAssertNil(ids.existingItem("gone1"))
    }

    func testAPatchTakesAtMostMaxChangedElements() {
        let menu = (0...ElementPatch.maxChanged).map { Fixtures.action("a\($0)") }
        var renamed = menu
        for index in renamed.indices { renamed[index].title = "B" }
        XCTAssertNil(ElementPatch(from: menu, title: nil, to: renamed, title: nil), "the menu is mapped in full")
        XCTAssertEqual(ElementPatch(from: menu, title: nil, to: Array(renamed.prefix(ElementPatch.maxChanged)) + [menu.last!],
                                    title: nil)?.changed.count, ElementPatch.maxChanged)
    }

    func testAPatchIsOnlyForTheSameStructure() {
        let menu = [Fixtures.action("a"), Fixtures.submenu("m"), Fixtures.action("b", parent: "m")]
        var renamed = menu
        renamed[2].title = "Bee"
        XCTAssertEqual(ElementPatch(from: menu, title: nil, to: renamed, title: nil)?.changed, [2])
        XCTAssertEqual(ElementPatch(from: menu, title: nil, to: menu, title: nil)?.changed, [])
        XCTAssertNil(ElementPatch(from: menu, title: nil, to: renamed, title: "Title"), "a new title")
        XCTAssertNil(ElementPatch(from: menu, title: nil, to: Array(menu.dropLast()), title: nil), "an item fewer")
        for change in [{ (element: inout MenuElement) in element.attributes.insert(.hidden) },
                       { $0.parent = "" }, { $0.kind = .menu }, { $0.command = .copy }, { $0.id = "c" },
                       { $0.options.insert(.singleSelection) }] {
            var other = menu
            change(&other[2])
            XCTAssertNil(ElementPatch(from: menu, title: nil, to: other, title: nil), "\(other[2])")
        }
    }

    func testARenameIsPatchedInBothProtocolsAndSignalledAsOneItem() throws {
        let menu = (0..<12).map { Fixtures.action("item\($0)") }
        let state = PresentationExports()
        state.startRevision(1, elements: menu, title: nil)
        let before = state.dbusMenuLayout(), gtkBefore = state.gMenuLayout()
        var renamed = menu
        renamed[5].title = "Renamed"
        state.startRevision(2, elements: renamed, title: nil)
        let layout = state.dbusMenuLayout()
        let id = try XCTUnwrap(state.ids.existingItem("item5"))
        XCTAssertEqual(layout.patchedItems, [id])
        let changes = DBusMenuChanges(from: before, toPatch: layout)
        XCTAssertEqual(changes.updated.map(\.id), [id])
        XCTAssertEqual(changes.updated.first?.properties, [ExportProperty("label", .string("Renamed"))])
        XCTAssertTrue(changes.layoutParents.isEmpty)
        let patch = try XCTUnwrap(state.patch)
        var copy = state.ids
        XCTAssertEqual(GMenuLayout.patched(gtkBefore, patch, title: nil, ids: &copy), state.gMenuLayout(),
                       "the org.gtk.Menus export is patched too")
        let rows = state.gMenuLayout().changes(from: gtkBefore, in: [0])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.signature, "(uuuuaa{sv})")
        guard case .structure(let fields)? = rows.first else { return XCTFail("no row") }
        XCTAssertEqual(Array(fields.prefix(4)), [.uint32(0), .uint32(0), .uint32(5), .uint32(1)], "one item at 5")
    }

    func testARadioChoiceAndANewCheckmarkAreMappedInFullWhereTheyMustBe() {
        let menu = [Fixtures.submenu("m", options: [.singleSelection]),
                    Fixtures.action("r1", parent: "m", state: .on), Fixtures.action("r2", parent: "m"),
                    Fixtures.action("plain")]
        var ids = ExportIDs()
        let gtk = GMenuLayout(menu, ids: &ids)
        let layout = DBusMenuLayout(menu, ids: &ids)
        var moved = menu
        moved[1].state = .off
        moved[2].state = .on
        let radio = ElementPatch(from: menu, title: nil, to: moved, title: nil)!
        XCTAssertNil(GMenuLayout.patched(gtk, radio, title: nil, ids: &ids), "the choice action is shared")
        var full = ids
        XCTAssertEqual(DBusMenuLayout.patched(layout, radio, ids: &ids)?.nodes, DBusMenuLayout(moved, ids: &full).nodes,
                       "each dbusmenu radio item has its own state")
        var checked = menu
        checked[3].state = .on
        let check = ElementPatch(from: menu, title: nil, to: checked, title: nil)!
        XCTAssertNil(DBusMenuLayout.patched(layout, check, ids: &ids), "toggle-type is fixed when an item is created")
        full = ids
        XCTAssertEqual(GMenuLayout.patched(gtk, check, title: nil, ids: &ids),
                       GMenuLayout(checked, ids: &full, previous: gtk))
    }

    /// An item shown as radio keeps that toggle after its menu stops being
    /// single-selection; turned on, it becomes a checkmark with an action
    /// of its own: org.gtk.Menus maps that in full (the patch would keep the
    /// old choice action live), dbusmenu too (its `toggle-type` changes).
    func testAToggleKeptAsRadioThatBecomesACheckmarkIsMappedInFull() {
        let radio = [Fixtures.submenu("m", options: [.singleSelection]), Fixtures.action("a", parent: "m")]
        var ids = ExportIDs()
        _ = DBusMenuLayout(radio, ids: &ids)
        _ = GMenuLayout(radio, ids: &ids)
        let plain = [Fixtures.submenu("m"), Fixtures.action("a", parent: "m")]
        let layout = DBusMenuLayout(plain, ids: &ids)
        let gtk = GMenuLayout(plain, ids: &ids)
        XCTAssertEqual(gtk.items(.init(group: 1, menu: 0))?.first?.value(named: "target"), .string("a"), "still radio")
        var on = plain
        on[1].state = .on
        let patch = ElementPatch(from: plain, title: nil, to: on, title: nil)!
        XCTAssertNil(DBusMenuLayout.patched(layout, patch, ids: &ids))
        XCTAssertNil(GMenuLayout.patched(gtk, patch, title: nil, ids: &ids))
    }

    /// Random menus (sections, submenus, single-selection menus, hidden and
    /// deferred elements, a title, an empty one or none), each changed many
    /// times, mostly in what its items show and sometimes in structure (a
    /// menu made single-selection or not, an item moved or hidden), so
    /// toggles and actions kept from an earlier structure meet the patch:
    /// every patch equals the full mapping, and the change signalled from
    /// it the full comparison's.
    func testRandomPatchesEqualFullMappings() {
        var random = SplitMix(seed: 0x7061_7463_6865_73)
        var patched = (dbusmenu: 0, gmenu: 0), rounds = 0
        for menuNumber in 0..<150 {
            var menu = Self.randomMenu(&random)
            let title: String? = [nil, "Title", ""][random.next(upTo: 3)]
            var ids = ExportIDs()
            var layout = DBusMenuLayout(menu, title: title, ids: &ids)
            var gtk = GMenuLayout(menu, title: title, ids: &ids)
            for change in 0..<12 {
                let old = menu
                let round = "menu \(menuNumber), change \(change)"
                let structural = random.next(upTo: 4) == 0
                if structural {
                    Self.randomStructuralChange(&menu, &random)
                } else {
                    for _ in 0..<(1 + random.next(upTo: 3)) { Self.randomShownChange(&menu[random.next(upTo: menu.count)], &random) }
                }
                let patch = ElementPatch(from: old, title: title, to: menu, title: title)
                if !structural { XCTAssertNotNil(patch, "a change of what items show keeps the structure: \(round)") }
                var full = ids
                let fullLayout = DBusMenuLayout(menu, title: title, ids: &full)
                let fullGtk = GMenuLayout(menu, title: title, ids: &full, previous: gtk)
                if let patch {
                    rounds += 1
                    var patchIDs = ids
                    if let patchedLayout = DBusMenuLayout.patched(layout, patch, ids: &patchIDs) {
                        patched.dbusmenu += 1
                        XCTAssertEqual(patchedLayout.nodes, fullLayout.nodes, round)
                        XCTAssertEqual(DBusMenuChanges(from: layout, toPatch: patchedLayout),
                                       DBusMenuChanges(from: layout, to: fullLayout), round)
                    }
                    if let patchedGtk = GMenuLayout.patched(gtk, patch, title: title, ids: &patchIDs) {
                        patched.gmenu += 1
                        XCTAssertEqual(patchedGtk, fullGtk, round)
                    }
                }
                layout = fullLayout
                gtk = fullGtk
                ids = full
            }
        }
        // Most changes are patched; the rest (radio choices, new toggles) are not.
        XCTAssertGreaterThan(patched.dbusmenu, rounds / 2, "of \(rounds)")
        XCTAssertGreaterThan(patched.gmenu, rounds / 2, "of \(rounds)")
    }

    /// A change of structure: a menu made single-selection or not, an item
    /// moved under an earlier menu or to the top, or hidden or shown.
    private static func randomStructuralChange(_ menu: inout [MenuElement], _ random: inout SplitMix) {
        let index = random.next(upTo: menu.count)
        switch random.next(upTo: 3) {
        case 0:
            guard let target = menu.indices.filter({ menu[$0].kind == .menu }).randomElement(using: &random) else { return }
            if menu[target].has(.singleSelection) { menu[target].options.remove(.singleSelection) }
            else { menu[target].options.insert(.singleSelection) }
        case 1:
            guard menu[index].kind == .action else { return }
            let earlier = menu[..<index].filter { $0.kind == .menu }.map(\.id)
            menu[index].parent = (earlier + [""]).randomElement(using: &random) ?? ""
        default:
            if menu[index].has(.hidden) { menu[index].attributes.remove(.hidden) } else { menu[index].attributes.insert(.hidden) }
        }
    }

    private static func randomMenu(_ random: inout SplitMix) -> [MenuElement] {
        var elements: [MenuElement] = []
        var containers = [""]
        for index in 0..<(3 + random.next(upTo: 14)) {
            let parent = containers[random.next(upTo: containers.count)]
            var element: MenuElement
            switch random.next(upTo: 10) {
            case 0:
                element = Fixtures.section("s\(index)", parent: parent)
                if random.next(upTo: 2) == 0 { element.title = "Section \(index)" }
                if random.next(upTo: 4) == 0 { element.options.insert(.singleSelection) }
            case 1:
                element = Fixtures.submenu("m\(index)", parent: parent,
                                           options: random.next(upTo: 3) == 0 ? [.singleSelection] : [])
            case 2:
                element = MenuElement(id: "d\(index)", parent: parent, kind: .deferred)
            default:
                element = Fixtures.action("a\(index)", parent: parent)
                if random.next(upTo: 5) == 0 { element.command = .bold }
            }
            if random.next(upTo: 8) == 0 { element.attributes.insert(.hidden) }
            Self.randomShownChange(&element, &random)
            // Composition leaves nothing inside a deferred element; the
            // exports skip what is, so the patch must too.
            if element.kind == .menu || (element.kind == .deferred && random.next(upTo: 2) == 0) {
                containers.append(element.id)
            }
            elements.append(element)
        }
        return elements  // parents before their children, as composition leaves them
    }

    /// One change of what an item shows.
    private static func randomShownChange(_ element: inout MenuElement, _ random: inout SplitMix) {
        switch random.next(upTo: 6) {
        case 0: element.title = ["Cut", "Copy_", "Paste…", "", "Ünïcode", "A"][random.next(upTo: 6)]
        case 1: element.icon = [nil, "edit-copy", "", "document-save"][random.next(upTo: 4)]
        case 2: element.shortcut = [nil, "<Control>c", "<Shift><Alt>F4", "nonsense<"][random.next(upTo: 4)]
        case 3: element.state = MenuElement.State.allCases[random.next(upTo: 3)]
        case 4:
            if element.has(.disabled) { element.attributes.remove(.disabled) } else { element.attributes.insert(.disabled) }
        default: element.subtitle = "Subtitle \(random.next(upTo: 9))"
        }
    }
}
