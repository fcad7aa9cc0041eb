import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class MenuTreeTests: XCTestCase {
    func testBuildNestsChildrenUnderTheirParents() throws {
        let flat = [
            Fixtures.section("s"),
            Fixtures.submenu("m"),
            Fixtures.action("a", parent: "s"),
            Fixtures.action("b", parent: "m"),
            Fixtures.action("c", parent: "s"),
        ]
        let tree = try MenuTree.build(from: flat)
        XCTAssertEqual(tree.roots.map(\.element.id), ["s", "m"])
        XCTAssertEqual(tree.roots[0].children.map(\.element.id), ["a", "c"])
        XCTAssertEqual(tree.roots[1].children.map(\.element.id), ["b"])
    }

    func testFlattenPutsParentsBeforeChildrenAndKeepsSiblingOrder() throws {
        let flat = [
            Fixtures.section("s"),
            Fixtures.submenu("m"),
            Fixtures.action("a", parent: "s"),
            Fixtures.action("b", parent: "m"),
            Fixtures.action("c", parent: "s"),
        ]
        let flattened = try MenuTree.build(from: flat).flatten()
        XCTAssertEqual(flattened.ids, ["s", "a", "c", "m", "b"])
        XCTAssertEqual(try MenuTree.build(from: flattened).flatten(), flattened)
    }

    func testFlattenUnderAParentReparentsTheTopLevel() throws {
        let flattened = try MenuTree.build(from: [Fixtures.submenu("m"), Fixtures.action("a", parent: "m")])
            .flatten(under: "menubus:section:4")
        XCTAssertEqual(flattened.map(\.parent), ["menubus:section:4", "m"])
    }

    func testBuildRefusesABrokenParentWithTheValidationMessage() {
        let table: [([MenuElement], String)] = [
            ([Fixtures.action("a", parent: "m"), Fixtures.submenu("m")], "comes later"),
            ([Fixtures.action("a", parent: "x")], "not an element"),
            ([Fixtures.action("a"), Fixtures.action("b", parent: "a")], "only a menu"),
        ]
        for (flat, phrase) in table {
            XCTAssertThrowsError(try MenuTree.build(from: flat)) { error in
                guard let error = error as? ModelError else { return XCTFail("\(error)") }
                XCTAssertTrue(error.field.hasSuffix(".parent"))
                XCTAssertTrue(error.message.contains(phrase), error.message)
            }
        }
    }

    func testLenientBuildLeavesOutOrphansAndTheirChildren() {
        let tree = MenuTree(lenient: [
            Fixtures.action("a"),
            Fixtures.submenu("m", parent: "nowhere"),
            Fixtures.action("b", parent: "m"),
        ])
        XCTAssertEqual(tree.flatten().ids, ["a"])
    }
}
