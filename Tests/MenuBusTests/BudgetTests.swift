import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Memory budgets through the real menubusd, with small budgets so a test
/// can fill them: refused before anything is stored, the budget named,
/// nothing already stored lost.
final class BudgetTests: BusTestCase {
    /// About `kib` KiB of items on the wire.
    private func items(kib: Int, prefix: String = "e") -> [MenuElement] {
        (0..<max(1, kib / 4)).map { MenuElement(id: "\(prefix)\($0)", title: String(repeating: "x", count: 4_000)) }
    }

    private func budgetDaemon() throws {
        _ = try startDaemon(["--connection-budget", "1", "--daemon-budget", "3"])
    }

    func testAContextPastTheConnectionBudgetIsRefusedAndTheOldOneKept() throws {
        try budgetDaemon()
        let app = try app("org.example.Filler")
        try app.publishContext("a", ContextInfo(kind: .file), items: items(kib: 400))
        let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try app.publishContext("b", ContextInfo(kind: .file), items: self.items(kib: 700))
        }
        XCTAssertTrue(refused?.message.contains("connection budget") == true, refused?.message ?? "")
        XCTAssertTrue(refused?.message.contains("--connection-budget") == true, refused?.message ?? "")
        let kept = try app.contextMenu(contextId: "a")
        XCTAssertNotNil(kept.element("e0"), "the stored context is intact")
        assertBusError(BusError.Domain.noSuchContext.errorName) { _ = try app.contextMenu(contextId: "b") }
        // Replacing a context counts what it frees.
        try app.publishContext("a", ContextInfo(kind: .file), items: items(kib: 900))
        // Growing it past the budget by UpdateItems is refused too, and the items stay.
        assertBusError(BusError.Domain.limitExceeded.errorName) { _ = try app.updateItems("a", self.items(kib: 1_100)) }
        XCTAssertEqual(try app.contextMenu(contextId: "a").elements.filter { $0.id.hasPrefix("e") }.count, 225)
    }

    func testTheDaemonBudgetBoundsAllConnectionsAndLeavingFreesIt() throws {
        try budgetDaemon()
        var fillers: [MenuBusClient] = []
        for index in 0..<3 {
            let filler = try app("org.example.Filler\(index)")
            try filler.publishContext("a", ContextInfo(kind: .file), items: items(kib: 900))
            fillers.append(filler)
        }
        let late = try app("org.example.Late")
        let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try late.publishContext("a", ContextInfo(kind: .file), items: self.items(kib: 600))
        }
        XCTAssertTrue(refused?.message.contains("daemon budget") == true, refused?.message ?? "")
        // One leaves: its share is free again.
        let probe = try connect()
        let gone = fillers.removeLast().uniqueName
        XCTAssertTrue(eventually { !nameHasOwner(probe, gone) })
        XCTAssertTrue(eventually { (try? late.publishContext("a", ContextInfo(kind: .file), items: self.items(kib: 600))) != nil })
    }

    func testPresentationsCountAgainstThePresenter() throws {
        try budgetDaemon()
        let owner = try app("org.example.Owner")
        try owner.publishContext("a", ContextInfo(kind: .file), items: items(kib: 200))
        let presenter = try client()
        _ = try presenter.present(owner: "org.example.Owner", contextId: "a", kind: .context)
        let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
            for _ in 0..<4 { _ = try presenter.present(owner: "org.example.Owner", contextId: "a", kind: .context) }
        }
        XCTAssertTrue(refused?.message.contains("connection budget") == true, refused?.message ?? "")
    }

    /// Many short items hold more than their bytes on the wire (each its
    /// own storage): the count, which Stats shows, includes what each
    /// element and the context hold beyond them, and goes with the context.
    func testShortItemsAreCountedWithWhatEachHoldsBeyondItsWireBytes() throws {
        _ = try startDaemon()
        let app = try app("org.example.Short")
        let items = (0..<500).map { MenuElement(id: "e\($0)", title: "Item \($0)") }
        try app.publishContext("a", ContextInfo(kind: .file), items: items)
        let probe = try connect()
        func held() throws -> DBusValue? {
            let reply = try callDaemon(probe, interface: "org.freedesktop.DBus.Properties", "Get",
                                       [.string(MenuBusNames.managerInterface), .string("Stats")])
            guard case .variant(let stats)? = reply.first else { return nil }
            return try [String: DBusValue](dbusValue: stats)["held-bytes"]
        }
        let wire = Ledger.cost(Wire.encode(items))
        guard case .uint64(let counted)? = try held() else { return XCTFail("held-bytes is not a t") }
        XCTAssertGreaterThanOrEqual(Int(counted), wire + items.count * Budgets.elementBytes + Budgets.contextBytes)
        XCTAssertLessThan(Int(counted), 2 * (wire + items.count * Budgets.elementBytes + Budgets.contextBytes))
        try app.removeContext("a")
        XCTAssertEqual(try held(), .uint64(0))
    }

    func testACallLargerThanAnyBudgetAllowsIsRefusedBeforeItIsRead() throws {
        try budgetDaemon()
        let app = try app("org.example.Big")
        let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try app.publishContext("a", ContextInfo(kind: .file), items: self.items(kib: 3_000))
        }
        XCTAssertTrue(refused?.message.contains("the call holds more than") == true, refused?.message ?? "")
        assertBusError(BusError.Domain.noSuchContext.errorName) { _ = try app.contextMenu(contextId: "a") }
    }

    /// The size check sees through variants: the bulk of a dbusmenu Event's
    /// data two variants down is refused before it is read, as it is at the top.
    func testACallHidingItsBulkInNestedVariantsIsRefusedBeforeItIsRead() throws {
        try budgetDaemon()
        let owner = try app("org.example.Owner")
        try owner.publishContext("a", ContextInfo(kind: .file), items: [MenuElement(id: "one", title: "One")])
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Owner", contextId: "a", kind: .context)
        let probe = try connect()
        let bulk = DBusValue.array("i", Array(repeating: .int32(1), count: 768 << 10))  // 3 MiB
        for data in [bulk, .variant(bulk), .variant(.variant(bulk)), .structure([.string("x"), .variant(.structure([bulk]))])] {
            let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
                _ = try self.callDaemon(probe, path: menu.path, interface: "com.canonical.dbusmenu", "Event",
                                        [.int32(0), .string("clicked"), .variant(data), .uint32(0)])
            }
            XCTAssertTrue(refused?.message.contains("the call holds more than") == true, "\(data.signature): \(refused?.message ?? "")")
        }
        // A small call still answers.
        _ = try callDaemon(probe, path: menu.path, interface: "com.canonical.dbusmenu", "Event",
                           [.int32(0), .string("opened"), .variant(.variant(.int32(1))), .uint32(0)])
    }

    func testACallOfTooManyTinyValuesIsRefusedWhileItIsRead() throws {
        _ = try startDaemon()
        let probe = try connect()
        // 1.1 million values in about 4.4 MB, within the byte limit: each
        // decoded value takes some 30 times its bytes.
        let tiny = DBusValue.array("v", Array(repeating: .variant(.byte(1)), count: 550_000))
        let items = DBusValue.array("(ssa{sv})", [.structure([.string("e"), .string("E"), .array("{sv}", [
            .dictEntry(.string("note"), .variant(tiny)),
        ])])])
        let refused = assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try self.callDaemon(probe, "Lint", [.string("context"), items])
        }
        XCTAssertTrue(refused?.message.hasPrefix("items: the call holds more values") == true, refused?.message ?? "")
        // The same shape, smaller, is read and answered.
        let small = DBusValue.array("(ssa{sv})", [.structure([.string("e"), .string("E"), .array("{sv}", [
            .dictEntry(.string("note"), .variant(.array("v", Array(repeating: .variant(.byte(1)), count: 1_000)))),
        ])])])
        _ = try callDaemon(probe, "Lint", [.string("context"), small])

        // UpdateItems, which reads its body itself, holds the same limit.
        func menu(_ note: DBusValue) -> DBusValue {
            .array("(ssa{sv})", [.structure([.string("e"), .string(""), .array("{sv}", [
                .dictEntry(.string("title"), .variant(.string("E"))), .dictEntry(.string("note"), .variant(note)),
            ])])])
        }
        _ = try callDaemon(probe, "Register", [.string("org.example.Tiny"), .objectPath("/c"), .array("{sv}", [])])
        _ = try callDaemon(probe, "PublishContext", [.string("f"), .array("{sv}", [
            .dictEntry(.string("kind"), .variant(.string("text")))]), menu(.int32(0))])
        let refusedUpdate = assertBusError(BusError.Domain.limitExceeded.errorName) {
            _ = try self.callDaemon(probe, "UpdateItems", [.string("f"), menu(tiny)])
        }
        XCTAssertTrue(refusedUpdate?.message.hasPrefix("items: the call holds more values") == true, refusedUpdate?.message ?? "")
        _ = try callDaemon(probe, "UpdateItems", [.string("f"), menu(.array("v", Array(repeating: .variant(.byte(1)), count: 1_000)))])
    }

    func testHelpNamesTheBudgetsAndTheirDefaults() throws {
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertTrue(help.stdout.contains("--connection-budget MIB"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(default 8)"), help.stdout)
        XCTAssertTrue(help.stdout.contains("--daemon-budget MIB"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(default 128)"), help.stdout)
        let bad = try bus.run("menubusd", ["--connection-budget", "0"])
        XCTAssertEqual(bad.status, 2)
    }
}
