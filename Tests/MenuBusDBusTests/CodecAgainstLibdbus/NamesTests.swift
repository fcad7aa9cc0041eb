import XCTest
import MenuBusRandomFixtures
@testable import MenuBusCodec
@testable import MenuBusDBus

/// The codec checks names in Swift (it links no libdbus); each check says
/// what libdbus's own `dbus_validate_*` says, over names made to sit on
/// every edge of the rules.
final class NamesTests: XCTestCase {
    private typealias Validate = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> UInt32

    private static func libdbus(_ function: String) -> @Sendable (String) -> Bool {
        let validate = LibdbusWriter.function(function, Validate.self)
        return { name in validate(name, nil) != 0 }
    }

    private let checks: [(String, (String) -> Bool, (String) -> Bool)] = [
        ("interface", Names.isValidInterface, libdbus("dbus_validate_interface")),
        ("member", Names.isValidMember, libdbus("dbus_validate_member")),
        ("bus name", Names.isValidBusName, libdbus("dbus_validate_bus_name")),
        ("error name", Names.isValidErrorName, libdbus("dbus_validate_error_name")),
    ]

    private func assertAgree(_ name: String, line: UInt = #line) {
        for (label, ours, theirs) in checks {
            XCTAssertEqual(ours(name), theirs(name), "\(label) '\(name)'", line: line)
        }
    }

    func testNamesOnTheEdgesOfTheRulesAreJudgedAsLibdbusJudgesThem() {
        let names = ["", "a", "a.b", ".a.b", "a.b.", "a..b", "a.1b", "1a.b", "_a._b", "a-b.c", "a.b-c", ":1.42", ":1",
                     ":a.b", ":.a", ":1..2", ":-.-", "org.freedesktop.DBus", "org.menubus.MenuBus1", "GetLayout",
                     "Get-Layout", "9Get", "_", "-", "a.b.c.d", "é.b", "a.b c", "a\tb.c",
                     String(repeating: "a", count: 255), String(repeating: "a", count: 256),
                     "a." + String(repeating: "b", count: 253), "a." + String(repeating: "b", count: 254),
                     ":" + String(repeating: "1.", count: 127), ":" + String(repeating: "1.", count: 127) + "2"]
        for name in names { assertAgree(name) }
    }

    func testRandomNamesAreJudgedAsLibdbusJudgesThem() {
        var random = SplitMix(seed: 0x6E61_6D65_73)
        let alphabet = Array("ab_Z09-.:.é ".unicodeScalars)
        for _ in 0..<20_000 {
            var name = ""
            for _ in 0..<random.next(upTo: 12) { name.unicodeScalars.append(alphabet[random.next(upTo: alphabet.count)]) }
            assertAgree(name)
        }
    }
}
