import XCTest
@testable import MenuBus

final class ModelPlaceholderTests: XCTestCase {
    func testStandardErrorNamesAreValid() {
        for domain in BusError.Domain.allCases {
            XCTAssertTrue(domain.errorName.hasPrefix("org.menubus.MenuBus1.Error."))
        }
    }
}
