import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusModel

/// The real menubusd offers every matching provider, declared in key files
/// or registered at run time: a few at the menu's level, every other one in
/// the Services submenu, and the top level within the HIG's limits.
final class ServicesSubmenuTests: BusTestCase {
    private var root: URL!
    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-services-\(UUID().uuidString)")
        for folder in ["data/menubus/providers", "system", "config/menubus", "state"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private static func declaredId(_ number: Int) -> String { "org.example.Declared\(number)" }

    /// `count` key files of providers of their own items, and a policy that
    /// disables `disabled` of them.
    private func declare(_ count: Int, disabled: [Int] = []) throws {
        for number in 1...count {
            let text = "[MenuBus Provider]\nId=\(Self.declaredId(number))\nTitle=Do Task \(number)\n"
                + "ContentTypes=text/plain;\nReturnsText=true\nDBusName=org.example.Declared\n"
            try text.write(to: root.appendingPathComponent("data/menubus/providers/\(Self.declaredId(number)).provider"),
                           atomically: true, encoding: .utf8)
        }
        let policy = "[Providers]\nDisabled=\(disabled.map { Self.declaredId($0) + ";" }.joined())\n"
        try policy.write(to: root.appendingPathComponent("config/menubus/providers.conf"), atomically: true, encoding: .utf8)
    }

    private func startServicesDaemon() throws -> RunningProcess {
        try startDaemon(["--state-dir", root.appendingPathComponent("state").path], extraEnvironment: [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_DATA_DIRS": root.appendingPathComponent("system").path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
        ])
    }

    /// Provider ids offered at the menu's level (through its inline
    /// sections), and under Services.
    private func placed(_ elements: [MenuElement]) -> (top: [String], services: [String]) {
        let sections = Set(elements.filter(\.isSection).map(\.id))
        let providers = elements.filter { ElementID.providerId(in: $0.id) != nil }
        return (providers.filter { $0.parent.isEmpty || sections.contains($0.parent) }.compactMap { ElementID.providerId(in: $0.id) },
                providers.filter { $0.parent == ElementID.services }.compactMap { ElementID.providerId(in: $0.id) })
    }

    private func assertEveryProviderOffered(declared count: Int, disabled: [Int]) throws {
        try declare(count, disabled: disabled)
        let daemon = try startServicesDaemon()
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Registered", title: "Make Registered", returnsText: true),
                                      path: "/p/registered") { text, _ in text }
        let app = try app()
        _ = try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 4, text: "word"))
        var expected = Set((1...count).filter { !disabled.contains($0) }.map(Self.declaredId))
        expected.insert("org.example.Registered")

        for kind in [MenuKind.edit, .context] {
            let menu = try app.present(contextId: "f", kind: kind)
            let elements = try app.layout(of: menu).elements
            try app.dismiss(menu)
            let (top, services) = placed(elements)
            XCTAssertEqual(top.count, ProviderSuggestions.shownAtTop, "\(count) declared, \(kind) menu: \(top)")
            XCTAssertEqual(top.count + services.count, expected.count, "\(count) declared, \(kind) menu: each once")
            XCTAssertEqual(Set(top + services), expected, "\(count) declared, \(kind) menu: every one is offered")
            for number in disabled {
                XCTAssertNil(elements.first { $0.id == ElementID.provider(Self.declaredId(number)) }, "Disabled= hides it")
            }
            // The top level keeps the HIG's limits: three groups, fifteen items.
            XCTAssertLessThanOrEqual(ContextMenu.sectionCount(elements.filter { $0.parent.isEmpty }.map(\.isSection)), 3)
            XCTAssertLessThanOrEqual(ProviderSuggestions.levelCount(elements), Lint.maxItemsPerLevel)
            XCTAssertEqual(Lint.check(kind: kind, elements: elements, composed: true).filter { $0.severity != .info }, [],
                           "\(count) declared, \(kind) menu")
        }
        XCTAssertTrue(daemon.isRunning)
    }

    func testTwentyDeclaredProvidersAndARegisteredOneAreAllOffered() throws {
        try assertEveryProviderOffered(declared: 20, disabled: [])
    }

    func testFortyDeclaredProvidersAndARegisteredOneAreAllOfferedButTheDisabled() throws {
        try assertEveryProviderOffered(declared: 40, disabled: [17])
    }
}
