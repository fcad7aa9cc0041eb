import XCTest
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
import MenuBusModelFixtures

/// The marshalled GetContextMenu / GetEditMenu replies menubusd reuses:
/// reused only for an equal menu, within the entry and byte budget, and
/// dropped with their owner.
final class ComposedMenuRepliesTests: XCTestCase {
    private func key(_ owner: String, _ context: String = "text", locale: String = "") -> ComposedMenuReplies.Key {
        ComposedMenuReplies.Key(owner: owner, contextId: context, kind: .edit, locale: locale)
    }

    private func menu(_ titles: [String]) -> [MenuElement] {
        titles.enumerated().map { MenuElement(id: "item\($0.offset)", title: $0.element) }
    }

    func testAnEqualMenuGetsTheSameReplyAndAnyChangeANewOne() throws {
        let cache = ComposedMenuReplies()
        let first = try cache.reply(for: key(":1.1"), revision: 3, menu: menu(["Cut", "Copy"]))
        XCTAssertTrue(try cache.reply(for: key(":1.1"), revision: 3, menu: menu(["Cut", "Copy"])) === first)
        XCTAssertEqual(cache.hits, 1)
        let rows: [(String, ComposedMenuReplies.Key, UInt32, [MenuElement])] = [
            ("another revision", key(":1.1"), 4, menu(["Cut", "Copy"])),
            ("another title", key(":1.1"), 4, menu(["Cut", "コピー"])),
            ("another item", key(":1.1"), 4, menu(["Cut", "コピー", "Paste"])),
            ("another owner", key(":1.2"), 4, menu(["Cut", "コピー", "Paste"])),
            ("another locale", key(":1.2", locale: "ja"), 4, menu(["Cut", "コピー", "Paste"])),
        ]
        var previous = first
        for (label, key, revision, elements) in rows {
            let reply = try cache.reply(for: key, revision: revision, menu: elements)
            XCTAssertFalse(reply === previous, label)
            previous = reply
        }
        XCTAssertEqual(cache.hits, 1)
        // Each key keeps one reply: the replaced ones' bytes are gone.
        XCTAssertEqual(cache.count, 3)
    }

    func testTheReplyCarriesTheRevisionAndTheEncodedMenu() throws {
        let elements = menu(["Undo Typing", "Cut"])
        let reply = try ComposedMenuReplies().reply(for: key(":1.1"), revision: 7, menu: elements)
        XCTAssertEqual(reply.signature, "ua(ssa{sv})")
        XCTAssertGreaterThan(reply.marshalledBytes, "Undo Typing".utf8.count + "Cut".utf8.count)
        XCTAssertLessThan(reply.marshalledBytes, 4096)
    }

    func testEntriesStayWithinTheirCountAndTheLeastRecentlyUsedGoFirst() throws {
        let cache = ComposedMenuReplies()
        let kept = try cache.reply(for: key(":1.0"), revision: 1, menu: menu(["Copy"]))
        for index in 1...(ComposedMenuReplies.maxEntries + 10) {
            _ = try cache.reply(for: key(":1.\(index)"), revision: 1, menu: menu(["Copy"]))
            // Used again and again: never the oldest.
            XCTAssertTrue(try cache.reply(for: key(":1.0"), revision: 1, menu: menu(["Copy"])) === kept)
        }
        XCTAssertEqual(cache.count, ComposedMenuReplies.maxEntries)
        XCTAssertLessThanOrEqual(cache.bytes, ComposedMenuReplies.maxBytes)
    }

    func testBytesStayWithinTheBudgetAndAHugeReplyIsNotKept() throws {
        let cache = ComposedMenuReplies()
        // About 100 KiB each: the byte budget binds before the entry count.
        let big = menu((0..<100).map { "\($0) " + String(repeating: "x", count: 1000) })
        for index in 0..<40 {
            _ = try cache.reply(for: key(":1.\(index)"), revision: 1, menu: big)
            XCTAssertLessThanOrEqual(cache.bytes, ComposedMenuReplies.maxBytes)
        }
        XCTAssertLessThan(cache.count, 40)
        XCTAssertGreaterThan(cache.count, 1)
        let huge = menu((0..<300).map { "\($0) " + String(repeating: "y", count: 1000) })
        let before = cache.count
        let reply = try cache.reply(for: key(":2.1"), revision: 1, menu: huge)
        XCTAssertGreaterThan(reply.marshalledBytes, ComposedMenuReplies.maxReplyBytes)
        XCTAssertEqual(cache.count, before)
        XCTAssertFalse(try cache.reply(for: key(":2.1"), revision: 1, menu: huge) === reply)
    }

    func testAnOwnersEntriesGoWhenItLeavesOrRemovesTheContext() throws {
        let cache = ComposedMenuReplies()
        for owner in [":1.1", ":1.2"] {
            for context in ["a", "b"] {
                _ = try cache.reply(for: key(owner, context), revision: 1, menu: menu(["Copy"]))
            }
        }
        let bytes = cache.bytes
        cache.drop(owner: ":1.1", contextId: "a")
        XCTAssertEqual(cache.count, 3)
        cache.drop(owner: ":1.1")
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.bytes, bytes / 2)
        cache.drop(owner: ":1.2")
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.bytes, 0)
    }
}

/// `Message.body`: what the client compares to skip reading a reply again.
final class MessageBodyTests: XCTestCase {
    private func message(_ member: String, _ values: [DBusValue]) throws -> Message {
        let message = try Message.methodCall(destination: nil, path: "/org/menubus/Test", interface: "org.menubus.Test",
                                             member: member)
        try message.append(values)
        return message
    }

    func testEqualValuesHaveEqualBodiesWhateverTheHeader() throws {
        let menu = Wire.encode([MenuElement(id: "a", title: "Copy"), MenuElement(id: "b", title: "コピー")])
        let first = try XCTUnwrap(try message("GetEditMenu", [.uint32(1), menu]).body)
        XCTAssertEqual(try message("OtherMember", [.uint32(1), menu]).body, first)
        let rows: [(String, [DBusValue])] = [
            ("another revision", [.uint32(2), menu]),
            ("another title", [.uint32(1), Wire.encode([MenuElement(id: "a", title: "Copy"), MenuElement(id: "b", title: "Cut")])]),
            ("one element fewer", [.uint32(1), Wire.encode([MenuElement(id: "a", title: "Copy")])]),
            ("no values", []),
        ]
        for (label, values) in rows {
            XCTAssertNotEqual(try message("GetEditMenu", values).body, first, label)
        }
        XCTAssertEqual(try message("Empty", []).body?.count, 1)
    }
}
