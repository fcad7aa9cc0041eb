import Foundation
import XCTest
@testable import MenuBusSupport

/// The CLI's base64 (a preview's PNG in a menu file) encodes and decodes
/// as Foundation's `Data` did before the CLI linked no Foundation.
final class Base64Tests: XCTestCase {
    func testEncodesAndDecodesAsFoundationDoes() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...9) + [255, 256, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64.encode(bytes)
            XCTAssertEqual(text, Data(bytes).base64EncodedString(), "\(bytes)")
            XCTAssertEqual(Base64.decode(text), bytes)
        }
        XCTAssertEqual(Base64.encode(Array("Man".utf8)), "TWFu")
        XCTAssertEqual(Base64.encode(Array("Ma".utf8)), "TWE=")
        XCTAssertEqual(Base64.encode(Array("M".utf8)), "TQ==")
    }

    func testRefusesWhatFoundationRefusesAndPaddingInTheMiddle() {
        for text in ["TWF", "TQ=", "T===", "TQ==TWFu", "TW-u", "TWF u", "TWFu\n"] {
            XCTAssertNil(Base64.decode(text), text)
            XCTAssertNil(Data(base64Encoded: text), "Foundation refuses \(text) too")
        }
        XCTAssertNil(Base64.decode("TW=u"), "padding only at the end (Foundation took this one)")
    }
}
