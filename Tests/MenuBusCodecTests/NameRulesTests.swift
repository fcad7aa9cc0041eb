import XCTest
@testable import MenuBusCodec

/// The D-Bus specification's rules for names and object paths, as the
/// codec applies them without libdbus (MenuBusDBusTests holds them to
/// libdbus's own checks over many more names).
final class NameRulesTests: XCTestCase {
    private struct Row {
        let name: String
        let interface: Bool
        let member: Bool
        let busName: Bool
    }

    func testEachKindOfNameTakesWhatTheSpecificationAllows() {
        let long = String(repeating: "b", count: 253)
        let rows: [Row] = [
            Row(name: "org.example.I", interface: true, member: false, busName: true),
            Row(name: "GetLayout", interface: false, member: true, busName: false),
            Row(name: "_a._b", interface: true, member: false, busName: true),
            Row(name: "a.1b", interface: false, member: false, busName: false),
            Row(name: "9Get", interface: false, member: false, busName: false),
            Row(name: "a-b.c", interface: false, member: false, busName: true),
            Row(name: ":1.42", interface: false, member: false, busName: true),
            Row(name: ":1..2", interface: false, member: false, busName: false),
            Row(name: ":1.", interface: false, member: false, busName: false),
            Row(name: "a..b", interface: false, member: false, busName: false),
            Row(name: ".a.b", interface: false, member: false, busName: false),
            Row(name: "a.b.", interface: false, member: false, busName: false),
            Row(name: "a.b c", interface: false, member: false, busName: false),
            Row(name: "é.b", interface: false, member: false, busName: false),
            Row(name: "", interface: false, member: false, busName: false),
            Row(name: String(repeating: "a", count: 255), interface: false, member: true, busName: false),
            Row(name: String(repeating: "a", count: 256), interface: false, member: false, busName: false),
            Row(name: "a." + long, interface: true, member: false, busName: true),
            Row(name: "a." + long + "b", interface: false, member: false, busName: false),
        ]
        for row in rows {
            let label = "'\(row.name.prefix(20))' (\(row.name.utf8.count) bytes)"
            XCTAssertEqual(Names.isValidInterface(row.name), row.interface, "interface \(label)")
            XCTAssertEqual(Names.isValidErrorName(row.name), row.interface, "error name \(label)")
            XCTAssertEqual(Names.isValidMember(row.name), row.member, "member \(label)")
            XCTAssertEqual(Names.isValidBusName(row.name), row.busName, "bus name \(label)")
        }
    }

    func testAnObjectPathIsSlashJoinedWordElements() {
        for path in ["/", "/a", "/org/menubus/MenuBus1", "/a_b/c9", "/_"] {
            XCTAssertTrue(ObjectPath.isValid(path), path)
            XCTAssertNoThrow(try ObjectPath(validating: path), path)
        }
        for path in ["", "a", "a/b", "/a/", "//", "/a//b", "/a-b", "/a.b", "/é", "/a b"] {
            XCTAssertFalse(ObjectPath.isValid(path), path)
            XCTAssertThrowsError(try ObjectPath(validating: path), path) { error in
                XCTAssertEqual((error as? BusError)?.name, BusError.Standard.invalidArgs, path)
            }
        }
    }

    /// A message's names are checked before anything is written, the
    /// error naming the one that is wrong.
    func testAMessagesNamesAreRefusedNamingTheWrongOne() {
        XCTAssertNoThrow(try Names.check(path: "/a", interface: "org.example.I", member: "M", destination: ":1.7"))
        XCTAssertNoThrow(try Names.check(path: nil, interface: nil, member: nil, destination: nil))
        let wrong: [(String, () throws -> Void)] = [
            ("'a/b' is not a valid object path", { try Names.check(path: "a/b", interface: nil, member: nil, destination: nil) }),
            ("'nodots' is not a valid interface name",
             { try Names.check(path: "/", interface: "nodots", member: "M", destination: nil) }),
            ("'Bad-Member' is not a valid member name",
             { try Names.check(path: "/", interface: nil, member: "Bad-Member", destination: nil) }),
            ("'not a name' is not a valid bus name",
             { try Names.check(path: "/", interface: nil, member: "M", destination: "not a name") }),
        ]
        for (message, check) in wrong {
            XCTAssertThrowsError(try check(), message) { error in
                XCTAssertEqual(error as? BusError, BusError(name: BusError.Standard.invalidArgs, message: message))
            }
        }
    }
}
