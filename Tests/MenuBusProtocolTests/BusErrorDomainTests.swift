import XCTest
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel

final class BusErrorDomainTests: XCTestCase {
    func testEveryDomainErrorMapsToAMenuBusErrorName() {
        for domain in BusError.Domain.allCases {
            XCTAssertEqual(domain.errorName, "org.menubus.MenuBus1.Error." + domain.rawValue)
            XCTAssertEqual(BusError(domain, "x").domain, domain)
        }
    }

    func testModelErrorsMapToInvalidArgsOrLimitExceededNamingTheField() {
        let invalid = ModelError.invalid("items[3].id", "bad").busError
        XCTAssertEqual(invalid.name, "org.freedesktop.DBus.Error.InvalidArgs")
        XCTAssertEqual(invalid.message, "items[3].id: bad")
        let limit = ModelError.limit("items", "too many").busError
        XCTAssertEqual(limit.name, "org.menubus.MenuBus1.Error.LimitExceeded")
        XCTAssertEqual(limit.message, "items: too many")
    }

    func testEveryDomainErrorMapsToAValidErrorName() {
        for domain in BusError.Domain.allCases {
            let error = BusError(domain, "message")
            XCTAssertEqual(error.name, "org.menubus.MenuBus1.Error." + domain.rawValue)
            XCTAssertTrue(Names.isValidErrorName(error.name))
            XCTAssertEqual(error.domain, domain)
        }
    }
}
