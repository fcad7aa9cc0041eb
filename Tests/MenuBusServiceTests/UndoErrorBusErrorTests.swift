import XCTest
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusUndo

/// The undo store's refusals as D-Bus errors: each kind has its own name,
/// and the message names the field.
final class UndoErrorBusErrorTests: XCTestCase {
    func testEachRefusalAnswersItsOwnErrorName() {
        let table: [(UndoError.Kind, String)] = [
            (.nothingToUndo, "org.menubus.MenuBus1.Error.NothingToUndo"),
            (.nothingToRedo, "org.menubus.MenuBus1.Error.NothingToRedo"),
            (.noSuchDocument, "org.menubus.MenuBus1.Error.NoSuchDocument"),
            (.limitExceeded(.payloadBytesPerStep), "org.menubus.MenuBus1.Error.LimitExceeded"),
            (.groupOpen, "org.menubus.MenuBus1.Error.UndoGroupOpen"),
            (.noOpenGroup, "org.menubus.MenuBus1.Error.NoUndoGroup"),
            (.invalidArgument, "org.freedesktop.DBus.Error.InvalidArgs"),
            (.storage(errno: ENOSPC), "org.menubus.MenuBus1.Error.StorageFailed"),
        ]
        for (kind, name) in table {
            let error = UndoError(kind: kind, field: "documentId", message: "'doc': write failed")
            XCTAssertEqual(error.busError.name, name, "\(kind)")
            XCTAssertTrue(error.busError.message.hasPrefix("documentId: "), error.busError.message)
        }
    }

    /// The D-Bus layer's own size refusals use the same name as the domain error.
    func testTheDBusLayersLimitErrorIsTheDomainOne() {
        XCTAssertEqual(BusError.limitExceededName, BusError.Domain.limitExceeded.errorName)
    }
}
