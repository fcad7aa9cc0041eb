import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class ElementValidationTests: XCTestCase {
    private typealias E = MenuElement

    /// One element of each kind, every property its kind may have.
    private static let wellFormed: [MenuElement] = [
        Fixtures.section("main"),
        Fixtures.action("copy-link", parent: "main"),
        Fixtures.submenu("sort", parent: "main", options: [.singleSelection]),
        Fixtures.action("by-name", parent: "sort", state: .on),
        E(id: "recent", kind: .deferred, cached: false),
        E(id: "palette", kind: .menu, title: "Colors", options: [.palette], elementSize: .small),
        E(id: "x_1.2:3-4", parent: "palette", title: "Red"),
    ]

    func testAWellFormedMenuIsValid() throws {
        let menu = Self.wellFormed
        XCTAssertNoThrow(try ElementValidation.validate(menu))
        XCTAssertTrue(ElementValidation.problems(in: menu).isEmpty)
    }

    /// Each row: a list, the field the first fault names, and its kind.
    func testEveryRuleNamesItsField() {
        let long = String(repeating: "a", count: 129)
        let table: [(String, [MenuElement], String, ModelError.Kind)] = [
            ("empty id", [E(id: "", title: "A")], "items[0].id", .invalidArgument),
            ("space in id", [E(id: "a b", title: "A")], "items[0].id", .invalidArgument),
            ("slash in id", [E(id: "a/b", title: "A")], "items[0].id", .invalidArgument),
            ("non-ASCII id", [E(id: "café", title: "A")], "items[0].id", .invalidArgument),
            ("129-byte id", [E(id: long, title: "A")], "items[0].id", .limitExceeded),
            ("reserved id", [E(id: "menubus:copy", title: "Copy")], "items[0].id", .invalidArgument),
            ("duplicate id", [E(id: "a", title: "A"), E(id: "a", title: "B")], "items[1].id", .invalidArgument),
            ("missing parent", [E(id: "a", parent: "nowhere", title: "A")], "items[0].parent", .invalidArgument),
            ("forward parent", [E(id: "a", parent: "m", title: "A"), Fixtures.submenu("m")],
             "items[0].parent", .invalidArgument),
            ("own parent", [E(id: "m", parent: "m", kind: .menu, title: "M")], "items[0].parent", .invalidArgument),
            ("parent is an action", [E(id: "a", title: "A"), E(id: "b", parent: "a", title: "B")],
             "items[1].parent", .invalidArgument),
            ("parent is deferred", [E(id: "d", kind: .deferred), E(id: "b", parent: "d", title: "B")],
             "items[1].parent", .invalidArgument),
            ("action without title", [E(id: "a")], "items[0].properties.title", .invalidArgument),
            ("submenu without title", [E(id: "m", kind: .menu)], "items[0].properties.title", .invalidArgument),
            ("options on an action", [E(id: "a", title: "A", options: [.inline])],
             "items[0].properties.options", .invalidArgument),
            ("element size on an action", [E(id: "a", title: "A", elementSize: .large)],
             "items[0].properties.element-size", .invalidArgument),
            ("cached on an action", [E(id: "a", title: "A", cached: false)],
             "items[0].properties.cached", .invalidArgument),
            ("4097-byte title", [E(id: "a", title: String(repeating: "x", count: 4097))],
             "items[0].properties.title", .limitExceeded),
            ("4097-byte subtitle", [E(id: "a", title: "A", subtitle: String(repeating: "é", count: 2049))],
             "items[0].properties.subtitle", .limitExceeded),
            ("4097-byte icon", [E(id: "a", title: "A", icon: String(repeating: "x", count: 4097))],
             "items[0].properties.icon", .limitExceeded),
            ("4097-byte shortcut", [E(id: "a", title: "A", shortcut: String(repeating: "x", count: 4097))],
             "items[0].properties.shortcut", .limitExceeded),
            ("1001 elements", (0...1000).map { E(id: "a\($0)", title: "A") }, "items", .limitExceeded),
        ]
        for (name, elements, field, kind) in table {
            do {
                try ElementValidation.validate(elements)
                XCTFail("\(name): no error")
            } catch {
                XCTAssertEqual(error.field, field, name)
                XCTAssertEqual(error.kind, kind, name)
                XCTAssertFalse(error.message.isEmpty, name)
            }
        }
    }

    func testBoundsAreInclusive() {
        let menu = [
            E(id: String(repeating: "a", count: 128), title: String(repeating: "x", count: 4096)),
        ] + (1..<1000).map { E(id: "a\($0)", title: "A") }
        XCTAssertEqual(menu.count, 1000)
        XCTAssertNoThrow(try ElementValidation.validate(menu))
    }

    func testTitlesAreOptionalForSectionsAndDeferredElements() {
        XCTAssertNoThrow(try ElementValidation.validate([Fixtures.section("s"), E(id: "d", kind: .deferred)]))
    }

    func testComposedMenusMayUseReservedIds() {
        XCTAssertNoThrow(try ElementValidation.validate([E(id: "menubus:copy", title: "Copy")], allowReserved: true))
    }

    func testAForwardParentIsWordedAsSuch() {
        let menu = [E(id: "a", parent: "m", title: "A"), Fixtures.submenu("m")]
        XCTAssertThrowsError(try ElementValidation.validate(menu)) { error in
            guard let error = error as? ModelError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.message.contains("comes later, at items[1]"), error.message)
        }
    }

    func testProblemsListsEveryFaultWithItsElement() {
        let menu = [E(id: "a"), E(id: "a", title: "A"), E(id: "b", parent: "zz", title: "B")]
        let problems = ElementValidation.problems(in: menu)
        XCTAssertEqual(problems.map(\.index), [0, 1, 2])
        XCTAssertEqual(problems.map(\.error.field),
                       ["items[0].properties.title", "items[1].id", "items[2].parent"])
    }

    func testLimitsOnlyCheckSkipsTheRules() {
        XCTAssertNoThrow(try ElementValidation.checkLimits([E(id: "a b", parent: "x")]))
        XCTAssertThrowsError(try ElementValidation.checkLimits([E(id: "a", title: String(repeating: "x", count: 4097))]))
    }

    func testContextSelectionAndProviderBounds() {
        let many = (0...64).map { "text/x-\($0)" }
        XCTAssertThrowsError(try ContextInfo(contentTypes: many).validate()) { error in
            XCTAssertEqual((error as? ModelError)?.field, "context.content-types")
            XCTAssertEqual((error as? ModelError)?.kind, .limitExceeded)
        }
        XCTAssertThrowsError(try ContextInfo(title: String(repeating: "x", count: 4097)).validate()) { error in
            XCTAssertEqual((error as? ModelError)?.field, "context.title")
        }
        XCTAssertThrowsError(try Selection(pasteboardTypes: many).validate()) { error in
            XCTAssertEqual((error as? ModelError)?.field, "selection.pasteboard-types")
        }
        XCTAssertNoThrow(try Selection(text: String(repeating: "x", count: 65_536)).validate())
        XCTAssertThrowsError(try Selection(text: String(repeating: "x", count: 65_537)).validate()) { error in
            XCTAssertEqual((error as? ModelError)?.field, "selection.text")
        }
        XCTAssertNoThrow(try ProviderInfo(id: String(repeating: "p", count: 111), title: "P").validate())
        XCTAssertThrowsError(try ProviderInfo(id: String(repeating: "p", count: 112), title: "P").validate()) { error in
            XCTAssertEqual((error as? ModelError)?.field, "providerId")
            XCTAssertEqual((error as? ModelError)?.kind, .limitExceeded)
        }
        XCTAssertThrowsError(try ProviderInfo(id: "a b", title: "P").validate())
    }

    /// The ASCII shortcut of the blank-title check answers as the whole
    /// Unicode test does, for every first byte and for wider whitespace.
    func testABlankTitleIsWhitespaceOnlyWhateverItStartsWith() {
        func reference(_ title: String) -> Bool { title.allSatisfy(\.isWhitespace) }
        for byte in UInt8(0)..<0x80 {
            let scalar = Unicode.Scalar(byte)
            for title in [String(scalar), String(scalar) + " ", String(scalar) + "x"] {
                XCTAssertEqual(ElementValidation.isBlank(title), reference(title), "\(byte)")
            }
        }
        for title in ["\u{A0}", " \u{2003}\t", "\u{2003}x", "\u{85}", "Ä", ""] {
            XCTAssertEqual(ElementValidation.isBlank(title), reference(title), title)
        }
    }

    /// A list of the same ids, parents and kinds as one that passed is
    /// checked only where it changed, with the outcome a full check has:
    /// the same first fault, or none.
    func testASameShapeListIsJudgedAsTheFullCheckJudgesIt() throws {
        var valid = Self.wellFormed
        valid[6].shortcut = "<Control>r"
        try ElementValidation.validate(valid)
        let long = String(repeating: "x", count: Limits.maxStringBytes + 1)
        let edits: [(String, (inout MenuElement) -> Void)] = [
            ("a new title", { $0.title = "Copy Link to Page" }),
            ("an empty title", { $0.title = "" }),
            ("a blank title", { $0.title = " \u{2003}" }),
            ("no title", { $0.title = nil }),
            ("a long title", { $0.title = long }),
            ("a long subtitle", { $0.subtitle = long }),
            ("a long icon", { $0.icon = long }),
            ("a bad shortcut", { $0.shortcut = "<Nope>" }),
            ("options", { $0.options = [.palette] }),
            ("an element size", { $0.elementSize = .large }),
            ("cached false", { $0.cached = false }),
            ("disabled", { $0.attributes = [.disabled] }),
            ("a state", { $0.state = .mixed }),
        ]
        var passed = 0, refused = 0
        for index in valid.indices {
            for (name, edit) in edits {
                var changed = valid
                edit(&changed[index])
                changed[(index + 3) % valid.count].subtitle = "Also changed"
                var full: ModelError?
                do { try ElementValidation.validate(changed) } catch { full = error }
                var quick: ModelError?
                do {
                    let sameShape = try ElementValidation.validate(changed, sameShapeAs: valid)
                    XCTAssertTrue(sameShape, "\(name) at \(index)")
                } catch {
                    quick = error
                }
                XCTAssertEqual(quick, full, "\(name) at \(index)")
                if full == nil { passed += 1 } else { refused += 1 }
            }
        }
        XCTAssertGreaterThan(passed, 20, "edits that keep the list valid")
        XCTAssertGreaterThan(refused, 20, "edits that break a rule")
        var moved = valid
        moved.swapAt(5, 6)
        XCTAssertFalse(try ElementValidation.validate(moved, sameShapeAs: valid), "another order is another shape")
        var reparented = valid
        reparented[1].parent = ""
        XCTAssertFalse(try ElementValidation.validate(reparented, sameShapeAs: valid))
        var rekinded = valid
        rekinded[4].kind = .action
        XCTAssertFalse(try ElementValidation.validate(rekinded, sameShapeAs: valid))
        XCTAssertFalse(try ElementValidation.validate(Array(valid.dropLast()), sameShapeAs: valid))
    }

    /// Another spelling Swift holds equal ("K" and U+212A KELVIN SIGN, "é"
    /// and "e" + U+0301) is still checked as a change.
    func testAnEquivalentSpellingIsCheckedAgain() {
        let valid = [MenuElement(id: "K", title: "Caf\u{E9}")]
        let kelvin = [MenuElement(id: "\u{212A}", title: "Caf\u{E9}")]
        XCTAssertEqual(kelvin, valid, "Swift holds them equal")
        XCTAssertFalse(try ElementValidation.validate(kelvin, sameShapeAs: valid), "another id is another shape")
        XCTAssertThrowsError(try ElementValidation.validate(kelvin), "which the full check refuses") {
            XCTAssertEqual(($0 as? ModelError)?.field, "items[0].id")
        }
        let decomposed = [MenuElement(id: "K", title: "Cafe\u{301}")]
        XCTAssertTrue(try ElementValidation.validate(decomposed, sameShapeAs: valid))
        XCTAssertFalse(decomposed[0].isIdentical(to: valid[0]))
        XCTAssertTrue(valid[0].isIdentical(to: MenuElement(id: "K", title: "Caf\u{E9}")))
    }
}
