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

/// What a presenter gets to title and place a menu with, menus that are not
/// shown, the owner hearing of its menu, and platform data passed on.
final class PresenterInfoTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon()
    }

    @discardableResult
    private func pump(_ clients: [MenuBusClient], timeout: Double = 5, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            for client in clients { client.run(until: done, timeout: 0.005) }
        }
        return done()
    }

    private func property(_ connection: Connection, _ path: ObjectPath, _ name: String) throws -> DBusValue? {
        let reply = try callDaemon(connection, path: path, interface: "org.freedesktop.DBus.Properties", "Get",
                                   [.string(MenuBusNames.menuInterface), .string(name)])
        guard case .variant(let value)? = reply.first else { return reply.first }
        return value
    }

    private func rect(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) -> DBusValue {
        .structure([.int32(x), .int32(y), .int32(width), .int32(height)])
    }

    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true,
                                    title: "Message Body")

    func testTheMenuObjectCarriesTitleSelectionRectAndAnchor() throws {
        let app = try app()
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 4, rect: Rect(x: 10, y: 20, width: 30, height: 8)))
        let raw = try connect()
        let reply = try callDaemon(raw, "PresentMenu", [.string(app.uniqueName), .string("body"), .string("edit"),
                                                        .array("{sv}", [WireValue.entry("x", .int32(5)),
                                                                        WireValue.entry("y", .int32(6))])])
        guard case .objectPath(let path)? = reply.first else { return XCTFail("\(reply)") }
        XCTAssertEqual(try property(raw, path, "Title"), .string("Message Body"))
        XCTAssertEqual(try property(raw, path, "SelectionRect"), rect(10, 20, 30, 8))
        XCTAssertEqual(try property(raw, path, "Anchor"), rect(5, 6, 0, 0))
        XCTAssertEqual(try property(raw, path, "Kind"), .string("edit"))

        // An anchor rectangle passes through as given; the selection follows the app.
        let secondPresenter = try client()
        let second = try secondPresenter.present(owner: app.uniqueName, contextId: "body", kind: .context,
                                          anchor: Rect(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual(try property(raw, second.path, "Anchor"), rect(1, 2, 3, 4))
        try app.updateSelection("body", Selection(kind: .range, length: 2, rect: Rect(x: 40, y: 20, width: 12, height: 8)))
        XCTAssertTrue(eventually { (try? self.property(raw, path, "SelectionRect")) == self.rect(40, 20, 12, 8) })
        var retitled = field
        retitled.title = "Reply"
        try app.publishContext("body", retitled, items: [])
        XCTAssertTrue(eventually { (try? self.property(raw, path, "Title")) == .string("Reply") })
    }

    func testBadPlacementAndSelectionRectanglesAreRefusedNamingTheField() throws {
        let app = try app()
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 4))
        let raw = try connect()
        func present(_ options: [DBusValue]) throws {
            _ = try callDaemon(raw, "PresentMenu", [.string(app.uniqueName), .string("body"), .string("edit"),
                                                    .array("{sv}", options)])
        }
        let invalid = BusError.Standard.invalidArgs
        XCTAssertTrue(assertBusError(invalid) { try present([WireValue.entry("x", .int32(5))]) }?.message.hasPrefix("options.y") ?? false)
        XCTAssertTrue(assertBusError(invalid) { try present([WireValue.entry("x", .string("5")), WireValue.entry("y", .int32(1))]) }?
            .message.hasPrefix("options.x") ?? false)
        XCTAssertTrue(assertBusError(invalid) { try present([WireValue.entry("anchor", self.rect(0, 0, -1, 4))]) }?
            .message.hasPrefix("options.anchor") ?? false)
        XCTAssertTrue(assertBusError(invalid) { try present([WireValue.entry("locale", .string("ru RU; rm"))]) }?
            .message.hasPrefix("options.locale") ?? false)
        let badRect = Selection(kind: .range, length: 1, rect: Rect(x: 0, y: 0, width: 5, height: -2))
        XCTAssertTrue(assertBusError(invalid) { try app.updateSelection("body", badRect) }?.message.hasPrefix("selection.rect") ?? false)
        let shortcut = [MenuElement(id: "quit", title: "Quit", shortcut: "Ctrl+Q")]
        XCTAssertTrue(assertBusError(invalid) { try app.publishContext("body", self.field, items: shortcut) }?
            .message.hasPrefix("items[0].properties.shortcut") ?? false)
    }

    func testAMenuWithNothingToShowIsNotPresented() throws {
        let app = try app()
        try app.publishContext("tile", ContextInfo(kind: .item), items: [])
        let presenter = try client()
        let error = assertBusError(BusError.Domain.nothingToShow.errorName) {
            _ = try presenter.present(owner: app.uniqueName, contextId: "tile", kind: .context)
        }
        XCTAssertTrue(error?.message.contains("nothing to show") ?? false, "\(String(describing: error))")
        // Hidden items only: nothing either. One visible item: presented.
        try app.publishContext("tile", ContextInfo(kind: .item), items: [MenuElement(id: "a", title: "Pin", attributes: [.hidden])])
        assertBusError(BusError.Domain.nothingToShow.errorName) {
            _ = try presenter.present(owner: app.uniqueName, contextId: "tile", kind: .context)
        }
        try app.publishContext("tile", ContextInfo(kind: .item), items: [MenuElement(id: "a", title: "Pin")])
        XCTAssertNoThrow(try presenter.present(owner: app.uniqueName, contextId: "tile", kind: .context))
    }

    func testAContextWithEnabledFalseRefusesPresentMenuAndEveryRead() throws {
        let app = try app()
        var disabled = ContextInfo(kind: .item, contentTypes: ["text/plain"])
        disabled.enabled = false
        try app.publishContext("tile", disabled, items: [MenuElement(id: "a", title: "Pin")])
        let presenter = try client()
        let error = assertBusError(BusError.Domain.nothingToShow.errorName) {
            _ = try presenter.present(owner: app.uniqueName, contextId: "tile", kind: .context)
        }
        XCTAssertTrue(error?.message.contains("enabled false") ?? false)
        // Every read says so too, not a menu with no word that it is disabled.
        for kind in [MenuKind.context, .edit] {
            let read = assertBusError(BusError.Domain.nothingToShow.errorName) {
                _ = kind == .context ? try presenter.contextMenu(owner: app.uniqueName, contextId: "tile")
                    : try presenter.editMenu(owner: app.uniqueName, contextId: "tile")
            }
            XCTAssertTrue(read?.message.contains("enabled false") ?? false, "\(kind)")
        }
        disabled.enabled = true
        try app.publishContext("tile", disabled, items: [MenuElement(id: "a", title: "Pin")])
        XCTAssertNoThrow(try presenter.present(owner: app.uniqueName, contextId: "tile", kind: .context))
    }

    func testTheOwnerHearsItsMenuWasPresented() throws {
        let app = try app()
        var heard: [(String, MenuKind, String)] = []
        app.onMenuPresented = { heard.append(($0, $1, $2)) }
        try app.publishContext("body", field, items: [MenuElement(id: "define", title: "Define")])
        let presenter = try client()
        let menu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .context)
        XCTAssertTrue(pump([app, presenter]) { !heard.isEmpty })
        XCTAssertEqual(heard.first?.0, "body")
        XCTAssertEqual(heard.first?.1, .context)
        XCTAssertEqual(heard.first?.2, menu.path.rawValue)
        // The owner presenting its own menu with a blocking call is not held up by it.
        let own = try app.present(contextId: "body", kind: .edit)
        XCTAssertTrue(pump([app]) { heard.count == 2 })
        XCTAssertEqual(heard.last?.2, own.path.rawValue)
        XCTAssertEqual(heard.last?.1, .edit)
    }

    /// An app with "hello" selected in `body`, its commands collected in `commands`.
    private func appWithHello(_ commands: @escaping (CommandInvocation) -> Void) throws -> MenuBusClient {
        let app = try app()
        app.onCommand = commands
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 5, text: "hello"))
        return app
    }

    func testPlatformDataReachesPerformCommandAndTheProvider() throws {
        var commands: [CommandInvocation] = []
        let app = try appWithHello { commands.append($0) }
        let provider = try client()
        var contexts: [[String: DBusValue]] = []
        try provider.registerProvider(ProviderInfo(id: "org.example.Translate", title: "Translate", role: .translate)) {
            _, context in
            contexts.append(context)
            return ""
        }
        let presenter = try client()
        let platform: [String: DBusValue] = ["activation-token": .string("tok456"), "timestamp": .uint32(77),
                                             "other": .string("kept to ActionInvoked only")]
        let copyMenu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
        try presenter.activate(copyMenu, itemId: "menubus:copy", platformData: platform)
        XCTAssertTrue(pump([app, presenter, provider]) { !commands.isEmpty })
        XCTAssertEqual(commands.first?.name, "copy")
        XCTAssertEqual(commands.first?.arguments["activation-token"], .string("tok456"))
        XCTAssertEqual(commands.first?.arguments["timestamp"], .uint32(77))
        XCTAssertNil(commands.first?.arguments["other"])

        let translateMenu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
        try presenter.activate(translateMenu, itemId: "menubus:translate", platformData: platform)
        XCTAssertTrue(pump([app, presenter, provider]) { !contexts.isEmpty })
        XCTAssertEqual(contexts.first?["activation-token"], .string("tok456"))
        XCTAssertEqual(contexts.first?["timestamp"], .uint32(77))
        XCTAssertEqual(contexts.first?["context-id"], .string("body"))
    }

    /// The provider's replacement reaches the app as `replace-selection`
    /// with the choice's activation token and timestamp, as `undo` does.
    func testReplaceSelectionCarriesTheChoicesTokenAndTimestamp() throws {
        var commands: [CommandInvocation] = []
        let app = try appWithHello { commands.append($0) }
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Shout", title: "Shout", returnsText: true,
                                                   requiresEditable: true)) { text, _ in text.uppercased() }
        let presenter = try client()
        let menu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
        try presenter.activate(menu, itemId: "menubus:provider:org.example.Shout",
                               platformData: ["activation-token": .string("tok789"), "timestamp": .uint32(99)])
        XCTAssertTrue(pump([app, presenter, provider]) { !commands.isEmpty })
        XCTAssertEqual(commands.first?.name, "replace-selection")
        XCTAssertEqual(commands.first?.arguments["text"], .string("HELLO"))
        XCTAssertEqual(commands.first?.arguments["activation-token"], .string("tok789"))
        XCTAssertEqual(commands.first?.arguments["timestamp"], .uint32(99))
    }

    /// An editable context whose app does not list `replace-selection` is
    /// offered no provider that replaces text, and a provider that answers
    /// with text answers the chooser (`ProviderResult`), not the app.
    func testAnAppThatCannotReplaceItsSelectionGetsNoReplacement() throws {
        let app = try app()
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let limited = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true,
                                  supportedCommands: [.copy, .cut, .paste, .translate])
        try app.publishContext("body", limited, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 5, text: "hello"))
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Shout", title: "Shout", returnsText: true,
                                                   requiresEditable: true)) { text, _ in text.uppercased() }
        try provider.registerProvider(ProviderInfo(id: "org.example.Translate", title: "Translate", role: .translate,
                                                   returnsText: true), path: "/t") { _, _ in "hola" }
        let presenter = try client()
        var results: [ProviderResult] = []
        try presenter.observeProviderResults { results.append($0) }
        XCTAssertNil(try presenter.editMenu(owner: app.uniqueName, contextId: "body")
                        .element("menubus:provider:org.example.Shout"), "no text transform for this app")
        let menu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
        try presenter.activate(menu, itemId: "menubus:translate")
        XCTAssertTrue(pump([app, presenter, provider]) { !results.isEmpty })
        XCTAssertEqual(results.first?.text, "hola")
        XCTAssertFalse(pump([app, presenter, provider], timeout: 0.3) { !commands.isEmpty },
                       "no replace-selection reached the app: \(commands.map(\.name))")
    }

    /// Share on an image gets the image's URIs as a uri-list, or with none
    /// nothing typed as the image's type, never empty text typed as text.
    func testShareOnAnImageReceivesItsURIsOrItsTypeNeverEmptyText() throws {
        let app = try app()
        let photo = ContextInfo(kind: .image, contentTypes: ["image/png"], hasContent: true)
        try app.publishContext("photo", photo, items: [])
        var selected = Selection(kind: .none)
        selected.uris = ["file:///home/user/cat.png"]
        try app.updateSelection("photo", selected)
        try app.publishContext("drawing", photo, items: [])
        let provider = try client()
        var received: [(text: String, type: DBusValue?)] = []
        try provider.registerProvider(ProviderInfo(id: "org.example.Share", title: "Share", role: .share,
                                                   contentTypes: ["image/*"])) { text, context in
            received.append((text, context["content-type"]))
            return ""
        }
        let presenter = try client()
        for contextId in ["photo", "drawing"] {
            let menu = try presenter.present(owner: app.uniqueName, contextId: contextId, kind: .context)
            try presenter.activate(menu, itemId: "menubus:share")
        }
        XCTAssertTrue(pump([app, presenter, provider]) { received.count == 2 })
        XCTAssertEqual(received.first?.text, "file:///home/user/cat.png\r\n")
        XCTAssertEqual(received.first?.type, .string("text/uri-list"))
        XCTAssertEqual(received.last?.text, "")
        XCTAssertEqual(received.last?.type, .string("image/png"), "typed as the image, not as text")
    }

    func testAnOverlongTokenIsNotPassedOn() throws {
        let app = try app()
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 5))
        let presenter = try client()
        let menu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
        let long = String(repeating: "t", count: Limits.maxStringBytes + 1)
        try presenter.activate(menu, itemId: "menubus:cut", platformData: ["activation-token": .string(long)])
        XCTAssertTrue(pump([app, presenter]) { !commands.isEmpty })
        XCTAssertNil(commands.first?.arguments["activation-token"])
    }
}
