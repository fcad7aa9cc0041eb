import XCTest
@testable import MenuBusSupport

/// Tables keyed by peers give back the room a burst of peers took, keep
/// every entry they still hold, and do not copy while they stay near one size.
final class SpareCapacityTests: XCTestCase {
    func testATableEmptiedAfterABurstGivesItsStorageBack() {
        var table: [String: Int] = [:]
        for index in 0..<1_000 { table[":1.\(index)"] = index }
        let grown = table.capacity
        var once = table
        for index in 0..<1_000 {
            table[":1.\(index)"] = nil
            table.releaseSpareCapacity()
            once[":1.\(index)"] = nil
        }
        XCTAssertGreaterThanOrEqual(grown, 1_000)
        XCTAssertLessThanOrEqual(table.capacity, 16, "shrunk on the way down")
        XCTAssertGreaterThanOrEqual(once.capacity, 1_000)
        once.releaseSpareCapacity()
        XCTAssertEqual(once.capacity, 0, "emptied at once, it gives everything back")
    }

    func testATableShrinksAtAQuarterAndKeepsWhatItHolds() {
        var table: [Int: String] = [:]
        for index in 0..<1_024 { table[index] = "peer \(index)" }
        let grown = table.capacity
        var shrunkAt: Int?
        for index in 0..<1_000 {
            table[index] = nil
            table.releaseSpareCapacity()
            if shrunkAt == nil, table.capacity < grown { shrunkAt = table.count }
        }
        XCTAssertEqual(shrunkAt, grown / 4, "the first shrink comes at a quarter of the grown capacity")
        XCTAssertLessThan(table.capacity, 64)
        XCTAssertEqual(table.count, 24)
        for index in 1_000..<1_024 { XCTAssertEqual(table[index], "peer \(index)") }
    }

    func testATableAboveAQuarterIsLeftAsItIs() {
        var table: [Int: Int] = [:]
        for index in 0..<100 { table[index] = index }
        let grown = table.capacity
        for index in 0..<50 { table[index] = nil }
        table.releaseSpareCapacity()
        XCTAssertEqual(table.capacity, grown)
        XCTAssertEqual(table.count, 50)
    }
}
