import XCTest
import MenuBusModelFixtures
import MenuBusRandomFixtures
import MenuBusWireFixtures
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusProtocol
@testable import MenuBusService

/// `UpdateItems`' elements read straight from the call's bytes
/// (`Wire.readElements`, then `Wire.checkElements`) come out as decoding the
/// call's values does (`Wire.decodeElements`): the same elements, the same
/// fault, and the fast read gives up only on lists the values' path
/// refuses (which then names the fault). Both byte orders.
final class ElementBodyReadingTests: XCTestCase {
    /// The call's body in either byte order, through libdbus's loader.
    private func message(_ items: DBusValue, bigEndian: Bool) throws -> Message {
        var body = WireEncoder(big: bigEndian)
        body.encode(.string("context"))
        body.encode(items)
        return try WireEncoder.message(signature: "sa(ssa{sv})", body: body.bytes, big: bigEndian)
            .withUnsafeBytes { try Message(marshalled: $0) }
    }

    private func assertSameOutcome(_ items: DBusValue, previous: [MenuElement]? = nil, _ label: String,
                                   line: UInt = #line) throws {
        let slow = Result { () throws(BusError) in try Wire.decodeElements(items, previous: previous) }
        for bigEndian in [false, true] {
            let read = try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) { cursor in
                _ = try cursor.string()
                let start = cursor.bytesRead
                return (Wire.readElements(&cursor), cursor.bytesRead - start)
            }
            let label = "\(label)\(bigEndian ? ", big-endian" : "")"
            guard let elements = read.0 else {
                if case .success = slow { XCTFail("\(label): the fast read gave up on a list decoding accepts", line: line) }
                continue
            }
            XCTAssertEqual(read.1, try items.validate(checking: false), "\(label): bytes counted", line: line)
            // Read again reusing a held list: the same elements, the held
            // one at its index only where it is byte for byte what was read.
            for held in [elements, previous ?? [], Array(elements.reversed())] {
                let again = try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) { cursor in
                    _ = try cursor.string()
                    return Wire.readElements(&cursor, reusing: held)
                }
                XCTAssertEqual(again, elements, "\(label): read reusing \(held.count) held elements", line: line)
                for (index, element) in (again ?? []).enumerated() where held.indices.contains(index) {
                    // (Equal is not always reused: a key given twice is read twice.)
                    XCTAssertTrue(!element.sharesStorage(with: held[index]) || Self.bytewiseEqual(element, held[index]),
                                  "\(label): element \(index) reused only when equal byte for byte", line: line)
                }
            }
            let fast = Result { () throws(BusError) in try Wire.checkElements(elements, previous: previous) }
            switch (fast, slow) {
            case (.success(let a), .success(let b)): XCTAssertEqual(a, b, label, line: line)
            case (.failure(let a), .failure(let b)):
                XCTAssertEqual(a.name, b.name, label, line: line)
                XCTAssertEqual(a.message, b.message, label, line: line)
            default: XCTFail("\(label): fast \(fast), values \(slow)", line: line)
            }
        }
    }

    /// Equal, and every string the same bytes (not only canonically equal).
    private static func bytewiseEqual(_ a: MenuElement, _ b: MenuElement) -> Bool {
        let strings: [(MenuElement) -> String?] = [\.id, \.parent, \.title, \.subtitle, \.icon, \.shortcut]
        return a == b && strings.allSatisfy { field in field(a).map { Array($0.utf8) } == field(b).map { Array($0.utf8) } }
    }

    /// Canonically equivalent strings are equal to Swift but not the same
    /// bytes: the app's new spelling is what is read, never the held one.
    func testAnotherSpellingOfTheSameTextIsReadAsSent() throws {
        let held = [MenuElement(id: "K", title: "Caf\u{E9}")]
        let items = DBusValue.array("(ssa{sv})", [Self.element("\u{212A}", [Self.entry("title", .string("Cafe\u{301}"))])])
        for bigEndian in [false, true] {
            let read = try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) { cursor in
                _ = try cursor.string()
                return Wire.readElements(&cursor, reusing: held)
            }
            let element = try XCTUnwrap(read?.first)
            XCTAssertEqual(element, held[0], "Swift holds them equal")
            XCTAssertFalse(element.sharesStorage(with: held[0]))
            XCTAssertEqual(Array(element.id.utf8), Array("\u{212A}".utf8))
            XCTAssertEqual(element.title.map { Array($0.utf8) }, Array("Cafe\u{301}".utf8))
        }
    }

    /// Read with the spans of an earlier read (`ElementSpans`): the elements
    /// decoding gives, counted as reading them counts (values and bytes),
    /// and those whose bytes did not change are the earlier ones, unread.
    func testElementsWhoseBytesDidNotChangeAreTakenUnread() throws {
        func element(_ index: Int, title: String? = nil) -> DBusValue {
            var entries = [Self.entry("title", .string(title ?? "Item \(index)"))]
            if index % 3 == 0, index < 78 {
                let key = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index / 3)))
                entries.append(Self.entry("shortcut", .string("<Control>\(key)")))
            }
            if index % 4 == 1 { entries.append(Self.entry("x-note", .array("x", [.int64(Int64(index))]))) }
            if index % 5 == 2 { entries.append(Self.entry("attributes", Self.strings(["disabled"]))) }
            if index % 7 == 3 { entries.append(Self.entry("x-flag", .byte(UInt8(index)))) }
            return Self.element("e\(index)", entries)
        }
        let base = (0..<30).map { element($0) }
        func read(_ items: [DBusValue], bigEndian: Bool = false, previous: [MenuElement] = [], spans: ElementSpans? = nil,
                  maxValues: Int = 1_000_000) throws -> (elements: [MenuElement], spans: ElementSpans?, bytes: Int, values: Int)? {
            try message(.array("(ssa{sv})", items), bigEndian: bigEndian).withBodyCursor(maxValues: maxValues) { cursor in
                _ = try cursor.string()
                let (start, left) = (cursor.bytesRead, cursor.valuesLeft)
                guard let read = Wire.readElements(&cursor, reusing: previous, spans: spans) else { return nil }
                return (read.elements, read.spans, cursor.bytesRead - start, left - cursor.valuesLeft)
            }
        }
        let first = try XCTUnwrap(try read(base))
        XCTAssertEqual(first.spans?.count, 30)
        var renamed = base, inserted = base, removed = base
        renamed[12] = element(12, title: "Renamed")
        inserted.insert(element(99), at: 7)
        removed.remove(at: 20)
        let cases: [(String, [DBusValue], Bool, [Int])] = [
            ("the same", base, false, Array(0..<30)),
            ("one renamed", renamed, false, (0..<30).filter { $0 != 12 }),
            ("one inserted", inserted, false, Array(0..<7)),
            ("one removed", removed, false, Array(0..<20)),
            ("the other byte order", base, true, []),
        ]
        for (label, items, bigEndian, unread) in cases {
            let plain = try XCTUnwrap(try read(items, bigEndian: bigEndian), label)
            let again = try XCTUnwrap(try read(items, bigEndian: bigEndian, previous: first.elements, spans: first.spans), label)
            XCTAssertEqual(again.elements, try Wire.decodeElements(.array("(ssa{sv})", items)), label)
            XCTAssertEqual(again.bytes, plain.bytes, "\(label): bytes counted")
            XCTAssertEqual(again.bytes, try DBusValue.array("(ssa{sv})", items).validate(checking: false), label)
            XCTAssertEqual(again.values, plain.values, "\(label): values counted")
            // Which were taken unread shows when the held elements are not
            // what their bytes say (the server pairs spans only with the
            // elements read from them: `HeldItemSpans`).
            let marked = first.elements.map { element -> MenuElement in
                var element = element
                element.subtitle = "marked"
                return element
            }
            let taken = try XCTUnwrap(try read(items, bigEndian: bigEndian, previous: marked, spans: first.spans), label)
            XCTAssertEqual(taken.elements.indices.filter { taken.elements[$0].subtitle == "marked" }, unread,
                           "\(label): the unchanged elements are taken unread")
            XCTAssertEqual(taken.values, plain.values, "\(label): values counted")
            // The spans kept now are those of what was just read.
            let third = try XCTUnwrap(try read(items, bigEndian: bigEndian, previous: marked.prefix(items.count) + [],
                                               spans: again.spans), label)
            XCTAssertEqual(third.elements.indices.filter { third.elements[$0].subtitle != "marked" },
                           Array(items.count > 30 ? 30..<items.count : 0..<0),
                           "\(label): read a third time, every element is taken unread")
        }
        // The call's limit on values holds for elements taken unread.
        XCTAssertNil(try read(base, previous: first.elements, spans: first.spans, maxValues: first.values))
        XCTAssertNotNil(try read(base, previous: first.elements, spans: first.spans, maxValues: first.values + 1))
    }

    /// Spans are never taken across byte orders, even where the bytes are
    /// the same (an element of empty strings and no properties is all
    /// zeros in both).
    func testSpansOfOneByteOrderServeNoOtherEvenWhereTheBytesAgree() throws {
        let items = DBusValue.array("(ssa{sv})", [Self.element("", []), Self.element("", [])])
        func read(bigEndian: Bool, previous: [MenuElement] = [], spans: ElementSpans? = nil)
            throws -> (elements: [MenuElement], spans: ElementSpans?)? {
            try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) { cursor in
                _ = try cursor.string()
                return Wire.readElements(&cursor, reusing: previous, spans: spans)
            }
        }
        let little = try XCTUnwrap(try read(bigEndian: false))
        let marked = little.elements.map { element -> MenuElement in
            var element = element
            element.subtitle = "marked"
            return element
        }
        let sameOrder = try XCTUnwrap(try read(bigEndian: false, previous: marked, spans: little.spans))
        XCTAssertEqual(sameOrder.elements.map(\.subtitle), ["marked", "marked"], "taken unread in the same order")
        let otherOrder = try XCTUnwrap(try read(bigEndian: true, previous: marked, spans: little.spans))
        XCTAssertEqual(otherOrder.elements.map(\.subtitle), [nil, nil], "read again in the other")
    }

    /// A list past `ElementSpans.maxBytes` keeps no spans; its elements are
    /// still read.
    func testALargeListKeepsNoSpans() throws {
        let title = String(repeating: "t", count: 1000)
        let items = DBusValue.array("(ssa{sv})", (0..<80).map { Self.element("e\($0)", [Self.entry("title", .string(title))]) })
        let read = try message(items, bigEndian: false).withBodyCursor(maxValues: .max) { cursor in
            _ = try cursor.string()
            return Wire.readElements(&cursor, reusing: [], spans: nil)
        }
        XCTAssertEqual(read?.elements.count, 80)
        XCTAssertNil(read?.spans)
    }

    private static func entry(_ key: String, _ value: DBusValue) -> DBusValue {
        .dictEntry(.string(key), .variant(value))
    }

    private static func element(_ id: String, in parent: String = "", _ entries: [DBusValue]) -> DBusValue {
        .structure([.string(id), .string(parent), .array("{sv}", entries)])
    }

    private static func strings(_ values: [String]) -> DBusValue {
        .array("s", values.map(DBusValue.string))
    }

    func testEveryKeyAndFaultComesOutAsDecodingTheValues() throws {
        let long = String(repeating: "x", count: Limits.maxStringBytes + 1)
        let base: [DBusValue] = [
            Self.element("section", [Self.entry("type", .string("menu")), Self.entry("options", Self.strings(["inline"]))]),
            Self.element("copy", in: "section", [Self.entry("title", .string("Copy")), Self.entry("shortcut", .string("<Control>c")),
                                             Self.entry("command", .string("copy")), Self.entry("icon", .string("edit-copy"))]),
            Self.element("sort", [Self.entry("type", .string("menu")), Self.entry("title", .string("Sort By")),
                                  Self.entry("options", Self.strings(["single-selection"])),
                                  Self.entry("element-size", .string("small"))]),
            Self.element("name", in: "sort", [Self.entry("title", .string("Name")), Self.entry("state", .string("on")),
                                          Self.entry("subtitle", .string("A to Z")),
                                          Self.entry("attributes", Self.strings(["disabled", "keeps-menu-presented"]))]),
            Self.element("later", [Self.entry("type", .string("deferred")), Self.entry("cached", .boolean(true))]),
        ]
        try assertSameOutcome(.array("(ssa{sv})", base), "the base list")
        try assertSameOutcome(.array("(ssa{sv})", []), "no elements")
        // Each row replaces the entries of element 1 ("copy").
        let rows: [(String, [DBusValue])] = [
            ("unknown keys of every type", [Self.entry("title", .string("Copy")), Self.entry("x-int", .int32(3)),
                                            Self.entry("x-dict", .array("{sv}", [Self.entry("a", .variant(.byte(1)))])),
                                            Self.entry("x-struct", .structure([.uint64(1), .string("s")])),
                                            Self.entry("", .boolean(true)), Self.entry("x-bytes", .bytes([1, 2, 3]))]),
            ("a title of another type", [Self.entry("title", .int32(1))]),
            ("a title in a variant", [Self.entry("title", .variant(.string("Copy")))]),
            ("an unknown type", [Self.entry("type", .string("button")), Self.entry("title", .string("Copy"))]),
            ("an unknown state", [Self.entry("title", .string("Copy")), Self.entry("state", .string("maybe"))]),
            ("an unknown attribute", [Self.entry("title", .string("Copy")), Self.entry("attributes", Self.strings(["bold"]))]),
            ("attributes of another type", [Self.entry("title", .string("Copy")), Self.entry("attributes", .string("disabled"))]),
            ("too many attributes", [Self.entry("title", .string("Copy")),
                                     Self.entry("attributes", Self.strings(Array(repeating: "disabled", count: 33)))]),
            ("as many attributes as allowed", [Self.entry("title", .string("Copy")),
                                               Self.entry("attributes", Self.strings(Array(repeating: "hidden", count: 32)))]),
            ("an unknown command", [Self.entry("title", .string("Copy")), Self.entry("command", .string("teleport"))]),
            ("options on an action", [Self.entry("title", .string("Copy")), Self.entry("options", Self.strings(["inline"]))]),
            ("an unknown option", [Self.entry("title", .string("Copy")), Self.entry("options", Self.strings(["round"]))]),
            ("an unknown element size", [Self.entry("title", .string("Copy")), Self.entry("element-size", .string("huge"))]),
            ("cached on an action", [Self.entry("title", .string("Copy")), Self.entry("cached", .boolean(true))]),
            ("cached of another type", [Self.entry("title", .string("Copy")), Self.entry("cached", .string("yes"))]),
            ("no title", []),
            ("an empty title", [Self.entry("title", .string(""))]),
            ("a title too long", [Self.entry("title", .string(long))]),
            ("a bad shortcut", [Self.entry("title", .string("Copy")), Self.entry("shortcut", .string("<Nope>"))]),
            ("a key given twice", [Self.entry("title", .string("Copy")), Self.entry("title", .string("Copy Again"))]),
            ("too many entries", (0..<65).map { Self.entry("x-\($0)", .int32(Int32($0))) } + [Self.entry("title", .string("C"))]),
            ("as many entries as allowed", (0..<63).map { Self.entry("x-\($0)", .int32(Int32($0))) }
                + [Self.entry("title", .string("C"))]),
        ]
        for (name, entries) in rows {
            var items = base
            items[1] = Self.element("copy", in: "section", entries)
            try assertSameOutcome(.array("(ssa{sv})", items), name)
        }
        // Rules between elements, and the check against what the app sent before.
        var duplicate = base
        duplicate[2] = Self.element("copy", [Self.entry("title", .string("Again"))])
        try assertSameOutcome(.array("(ssa{sv})", duplicate), "a duplicate id")
        var orphan = base
        orphan[1] = Self.element("copy", in: "nowhere", [Self.entry("title", .string("Copy"))])
        try assertSameOutcome(.array("(ssa{sv})", orphan), "an unknown parent")
        try assertSameOutcome(.array("(ssa{sv})", [Self.element("menubus:x", [Self.entry("title", .string("X"))])]),
                              "a reserved id")
        let previous = try Wire.decodeElements(.array("(ssa{sv})", base))
        var renamed = base
        renamed[1] = Self.element("copy", in: "section", [Self.entry("title", .string("Copy Link"))])
        try assertSameOutcome(.array("(ssa{sv})", renamed), previous: previous, "one title changed")
        renamed[1] = Self.element("copy", in: "section", [Self.entry("title", .string(" "))])
        try assertSameOutcome(.array("(ssa{sv})", renamed), previous: previous, "one title blanked")
        let tooMany = (0...Limits.maxElementsPerMenu).map { Self.element("e\($0)", [Self.entry("title", .string("E"))]) }
        try assertSameOutcome(.array("(ssa{sv})", tooMany), "more elements than a menu may hold")
    }

    /// Lists made of the known keys with values of the right and wrong types,
    /// valid and invalid words, unknown keys and nested values.
    func testRandomListsComeOutAsDecodingTheValues() throws {
        var random = SplitMix(seed: 0x626F_6479)
        let keys = ["type", "title", "subtitle", "icon", "attributes", "state", "shortcut", "command", "options",
                    "element-size", "cached", "x-other", ""]
        let words = ["menu", "action", "deferred", "on", "off", "mixed", "disabled", "hidden", "inline", "copy",
                     "single-selection", "small", "large", "<Control>c", "Copy", "", " ", "menubus:x", "bogus"]
        func value(_ depth: Int = 0) -> DBusValue {
            switch random.next(upTo: depth > 1 ? 5 : 7) {
            case 0, 1: return .string(words[random.next(upTo: words.count)])
            case 2: return Self.strings((0..<random.next(upTo: 4)).map { _ in words[random.next(upTo: words.count)] })
            case 3: return .boolean(random.next(upTo: 2) == 0)
            case 4: return .int32(Int32(random.next(upTo: 9)))
            case 5: return .variant(value(depth + 1))
            default: return .array("{sv}", [Self.entry("k", value(depth + 1))])
            }
        }
        let ids = ["a", "b", "c", "d", "menubus:z", "a b"]
        var accepted = 0
        for round in 0..<400 {
            let items: [DBusValue] = (0..<random.next(upTo: 5)).map { _ in
                let entries = (0..<random.next(upTo: 4)).map { _ in Self.entry(keys[random.next(upTo: keys.count)], value()) }
                let parent = random.next(upTo: 3) == 0 ? ids[random.next(upTo: 4)] : ""
                return Self.element(ids[random.next(upTo: ids.count)], in: parent, entries)
            }
            let list = DBusValue.array("(ssa{sv})", items)
            try assertSameOutcome(list, "round \(round)")
            if (try? Wire.decodeElements(list)) != nil { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 20, "some random lists are valid")
    }

    /// The handler's own read of an `UpdateItems` body: the context id, the
    /// elements decoding gives, and the items charged what the values'
    /// count charges, up to the most elements a menu may hold.
    func testUpdateItemsIsReadFromItsBodyAndChargedAsItsValues() throws {
        for count in [0, 12, Limits.maxElementsPerMenu] {
            let items = DBusValue.array("(ssa{sv})", (0..<count).map {
                Self.element("e\($0)", [Self.entry("title", .string("Element \($0)")), Self.entry("x-note", .int32(1))])
            })
            for bigEndian in [false, true] {
                let read = try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) {
                    try Contexts.readUpdateItems(&$0)
                }
                let (contextId, elements, bytes, _) = try XCTUnwrap(read, "\(count) elements")
                XCTAssertEqual(contextId, "context")
                XCTAssertEqual(elements, try Wire.decodeElements(items), "\(count) elements")
                XCTAssertEqual(bytes, Ledger.cost(items), "\(count) elements")
                // The context's held elements are reused where they read the same.
                var held = elements
                if count > 0 { held[count / 2].title = "Changed" }
                let again = try message(items, bigEndian: bigEndian).withBodyCursor(maxValues: .max) { cursor in
                    try Contexts.readUpdateItems(&cursor) { $0 == "context" ? (held, nil) : ([], nil) }
                }
                let reread = try XCTUnwrap(again?.1)
                XCTAssertEqual(reread, elements)
                XCTAssertEqual(reread.indices.filter { !reread[$0].sharesStorage(with: held[$0]) }, count > 0 ? [count / 2] : [],
                               "only the changed element is new")
                XCTAssertEqual(again?.2, bytes, "charged the same")
            }
        }
    }

    func testTheCallsLimitOnValuesHoldsWhileReading() throws {
        let items = DBusValue.array("(ssa{sv})", (0..<20).map { Self.element("e\($0)", [Self.entry("title", .string("E"))]) })
        let message = try message(items, bigEndian: false)
        // 1 for the context id, 1 for the array, then 8 per element (struct,
        // id, parent, dict, entry, key, variant, title).
        let read = try message.withBodyCursor(maxValues: 2 + 8 * 19) { cursor -> [MenuElement]? in
            _ = try cursor.string()
            return Wire.readElements(&cursor)
        }
        XCTAssertNil(read, "past the call's limit the fast read gives up")
        XCTAssertThrowsError(try MessageReader.arguments(of: message, maxValues: 2 + 8 * 19)) {
            XCTAssertEqual(($0 as? BusError)?.domain, .limitExceeded, "and reading the values names it")
        }
        let enough = try message.withBodyCursor(maxValues: 2 + 8 * 20) { cursor -> [MenuElement]? in
            _ = try cursor.string()
            return Wire.readElements(&cursor)
        }
        XCTAssertEqual(enough?.count, 20)
        XCTAssertNoThrow(try MessageReader.arguments(of: message, maxValues: 2 + 8 * 20))
    }
}
