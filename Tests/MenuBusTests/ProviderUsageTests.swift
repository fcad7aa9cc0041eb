import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusModel
@testable import MenuBusSupport

/// The real menubusd keeps provider suggestions to a few, the ones this
/// user chooses most, in the same order in every presentation, and
/// remembers the choices across a restart; an app's own excess is logged
/// once and shown by `menubus-cli menu`.
final class ProviderUsageTests: BusTestCase {
    private var stateDirectory: URL!
    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    private static let names = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]
    private static func itemId(_ name: String) -> String { ElementID.provider("org.example.\(name)") }

    override func setUpWithError() throws {
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-usage-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    private func startUsageDaemon() throws -> RunningProcess {
        try startDaemon(["--state-dir", stateDirectory.path])
    }

    /// Five providers of their own items, registered in order; each call of one is counted.
    private func registerProviders(_ calls: @escaping (String) -> Void) throws -> MenuBusClient {
        let provider = try client()
        for name in Self.names {
            try provider.registerProvider(ProviderInfo(id: "org.example.\(name)", title: "Make \(name)", returnsText: true),
                                          path: try ObjectPath(validating: "/p/\(name)")) { text, _ in
                calls(name)
                return text
            }
        }
        return provider
    }

    private func editor() throws -> MenuBusClient {
        let app = try app()
        _ = try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 4, text: "word"))
        return app
    }

    /// The provider items at the menu's level, and under Services, in order.
    private func placed(_ menu: Menu) -> (top: [String], services: [String]) {
        let providers = menu.elements.filter { ElementID.providerId(in: $0.id) != nil }
        return (providers.filter { $0.parent != ElementID.services }.map(\.id),
                providers.filter { $0.parent == ElementID.services }.map(\.id))
    }

    private func choose(_ name: String, app: MenuBusClient, provider: MenuBusClient, calls: () -> Int) throws {
        let before = calls()
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: Self.itemId(name))
        XCTAssertTrue(pumpClients([app, provider], timeout: 10) { calls() > before }, "\(name) was run")
    }

    /// Closes `clients`, stops `daemon` as a session ends (it writes the
    /// counts as it goes) and returns the usage file.
    private func stop(_ daemon: RunningProcess, closing clients: [MenuBusClient]) throws -> String {
        for client in clients { client.close() }
        daemon.signal(SIGTERM)
        _ = try daemon.wait(timeout: 10)
        return try String(contentsOf: stateDirectory.appendingPathComponent("provider-usage"), encoding: .utf8)
    }

    func testChoosingAProviderTwiceMovesItAmongTheFewAndTheOrderStaysTheSame() throws {
        _ = try startUsageDaemon()
        var called: [String] = []
        let provider = try registerProviders { called.append($0) }
        let app = try editor()

        let fresh = placed(try app.editMenu(contextId: "f"))
        XCTAssertEqual(fresh.top, ["Alpha", "Bravo", "Charlie"].map(Self.itemId))
        XCTAssertEqual(fresh.services, ["Delta", "Echo"].map(Self.itemId))
        // Presentations in a row show the same order.
        for _ in 1...3 {
            let menu = try app.present(contextId: "f", kind: .edit)
            XCTAssertEqual(placed(try app.layout(of: menu)).top, fresh.top)
            try app.dismiss(menu)
        }

        try choose("Echo", app: app, provider: provider) { called.count }
        try choose("Echo", app: app, provider: provider) { called.count }
        let after = placed(try app.editMenu(contextId: "f"))
        XCTAssertEqual(after.top, ["Alpha", "Bravo", "Echo"].map(Self.itemId), "chosen twice, Echo is among the few, in its place")
        XCTAssertEqual(after.services, ["Charlie", "Delta"].map(Self.itemId))
        let presented = try app.present(contextId: "f", kind: .edit)
        XCTAssertEqual(placed(try app.layout(of: presented)).top, after.top, "the next presentation shows it too")
    }

    func testChoicesSurviveARestartAndABadFileIsTolerated() throws {
        let daemon = try startUsageDaemon()
        var called: [String] = []
        var provider = try registerProviders { called.append($0) }
        var app = try editor()
        try choose("Delta", app: app, provider: provider) { called.count }
        // Clients register again with a new daemon by themselves: these go first.
        XCTAssertEqual(try stop(daemon, closing: [app, provider]), "1\torg.example.Delta\n")
        let file = stateDirectory.appendingPathComponent("provider-usage")

        let second = try startUsageDaemon()
        provider = try registerProviders { called.append($0) }
        app = try editor()
        XCTAssertEqual(placed(try app.editMenu(contextId: "f")).top, ["Alpha", "Bravo", "Delta"].map(Self.itemId))

        // A damaged file: the good lines count, the daemon says so once and serves.
        _ = try stop(second, closing: [app, provider])
        try "garbage\n3\torg.example.Echo\n\u{0}\u{1}\n-4\tx\n".write(to: file, atomically: true, encoding: .utf8)
        let third = try startUsageDaemon()
        provider = try registerProviders { called.append($0) }
        app = try editor()
        XCTAssertEqual(placed(try app.editMenu(contextId: "f")).top, ["Alpha", "Bravo", "Echo"].map(Self.itemId))
        XCTAssertEqual(third.stderrText.components(separatedBy: "provider-usage").count - 1, 1, third.stderrText)
    }

    /// `menubusd --replace` reads the choices the daemon it replaces writes
    /// as it leaves, so a choice made just before the handover is kept.
    func testAReplacingDaemonKeepsTheChoicesOfTheOneItReplaced() throws {
        let first = try startUsageDaemon()
        var called: [String] = []
        var provider = try registerProviders { called.append($0) }
        var app = try editor()
        try choose("Delta", app: app, provider: provider) { called.count }
        let second = try bus.start("menubusd", ["--state-dir", stateDirectory.path, "--replace"],
                                   extraEnvironment: ["LANGUAGE": "C"])
        _ = try first.wait(timeout: 10)
        app.close()
        provider.close()
        provider = try registerProviders { called.append($0) }
        app = try editor()
        try choose("Echo", app: app, provider: provider) { called.count }
        XCTAssertEqual(try stop(second, closing: [app, provider]), "1\torg.example.Delta\n1\torg.example.Echo\n")
    }

    func testAnAppsOwnExcessIsLoggedOnceAndShownByTheCommandLine() throws {
        let daemon = try startUsageDaemon()
        let app = try app("org.example.Crowded")
        let items = (1...20).map { MenuElement(id: "i\($0)", title: "Do \($0)") }
        _ = try app.publishContext("list", ContextInfo(kind: .item), items: items)
        for _ in 1...3 {
            let menu = try app.contextMenu(contextId: "list")
            XCTAssertEqual(menu.elements.map(\.id), items.map(\.id), "served as published, nothing added past the limit")
        }
        let logged = { daemon.stderrText.components(separatedBy: "\n").filter { $0.contains("org.example.Crowded") && $0.contains("20 items") } }
        XCTAssertTrue(eventually { logged().count == 1 }, daemon.stderrText)
        let shown = try bus.run("menubus-cli", ["menu", "org.example.Crowded", "list"], extraEnvironment: ["NO_COLOR": "1"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("MenuBus serves them as published"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("warning : The menu shows 20 items at one level"), shown.stdout)
        XCTAssertEqual(logged().count, 1, "once per app and context")
    }
}
