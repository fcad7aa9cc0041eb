import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusProtocol

/// A context's preview through the real menubusd: served as the presented
/// menu's `Preview`, drawn or not by the `appearance` option, chosen as
/// `menubus:preview` (the owner hears it), and refused when bad, naming the key.
final class PreviewTests: BusTestCase {
    override func setUpWithError() throws {
        _ = try startDaemon()
    }

    /// A PNG signature and `count - 8` bytes after it: menubusd checks the
    /// signature and the size, and never decodes the picture.
    static func png(_ count: Int = 64) -> [UInt8] {
        ContextPreview.pngSignature + [UInt8](repeating: 7, count: max(0, count - 8))
    }

    private let items = [MenuElement(id: "open", title: "Open"), MenuElement(id: "rename", title: "Rename")]

    private func photo(_ preview: ContextPreview?) -> ContextInfo {
        ContextInfo(kind: .image, title: "Beach.png", preview: preview)
    }


    func testThePreviewIsThePresentedMenusPropertyAndChoosingItIsHeardByTheOwner() throws {
        let app = try app("org.example.Photos")
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        let preview = ContextPreview(title: "Beach.png", subtitle: "2.1 MB", image: .png(Self.png()))
        try app.publishContext("photo", photo(preview), items: items)
        XCTAssertEqual(try app.publishedContext(contextId: "photo").context.preview, preview, "GetContext carries it")

        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context)
        XCTAssertEqual(try presenter.preview(of: menu), preview)
        XCTAssertFalse(try presenter.layout(of: menu).elements.contains { $0.id == ElementID.preview },
                       "the preview is no element of the layout")
        try presenter.choosePreview(menu, platformData: ["timestamp": .uint32(42)])
        XCTAssertTrue(pumpClients([app], timeout: 10) { !actions.isEmpty })
        XCTAssertEqual(actions.map(\.itemId), ["menubus:preview"])
        XCTAssertEqual(actions.first?.contextId, "photo")
        XCTAssertEqual(actions.first?.platformData["timestamp"], .uint32(42))
        assertBusError(BusError.Standard.unknownObject) { _ = try presenter.layout(of: menu) }
    }

    func testTheCompactAppearanceServesNoPreviewAndRefusesChoosingIt() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(ContextPreview(title: "Beach.png", image: .icon("image-x-generic"))), items: items)
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context, appearance: .compact)
        XCTAssertNil(try presenter.preview(of: menu))
        let appearance = try presenter.connection.callBlocking(
            FreedesktopAPI.get, destination: MenuBusNames.busName, path: menu.path, MenuBusNames.menuInterface, "Appearance",
            timeout: 5)
        XCTAssertEqual(appearance, .string("compact"))
        let error = assertBusError(BusError.Domain.noSuchItem.errorName) { try presenter.choosePreview(menu) }
        XCTAssertTrue(error?.message.contains("compact") ?? false, error?.message ?? "")
        try presenter.activate(menu, itemId: "open")
    }

    func testAContextWithoutAPreviewServesAnEmptyOne() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(nil), items: items)
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context)
        XCTAssertNil(try presenter.preview(of: menu))
        assertBusError(BusError.Domain.noSuchItem.errorName) { try presenter.choosePreview(menu) }
    }

    func testThePreviewFollowsTheContextWhileTheMenuIsPresented() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(ContextPreview(title: "Beach.png")), items: items)
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context)
        let moved = ContextPreview(title: "Dune.png", image: .uri("file:///home/user/Pictures/Dune.png"))
        try app.publishContext("photo", photo(moved), items: items)
        XCTAssertTrue(try eventually { try presenter.preview(of: menu) == moved })
    }

    func testAChangedPreviewIsInvalidatedNotSent() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(ContextPreview(title: "Beach.png")), items: items)
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context)
        var changes: [[DBusValue]] = []
        try presenter.observeAllSignals { signal in
            if signal.path == menu.path.rawValue, signal.member == "PropertiesChanged" { changes.append(signal.arguments) }
        }
        try app.publishContext("photo", photo(ContextPreview(title: "Dune.png", image: .png(Self.png(4096)))), items: items)
        XCTAssertTrue(pumpClients([presenter], timeout: 10) { !changes.isEmpty })
        let change = try XCTUnwrap(changes.first)
        XCTAssertEqual(change.first, .string(MenuBusNames.menuInterface))
        XCTAssertEqual(change.last, .array("s", [.string("Preview")]), "named as invalidated")
        XCTAssertEqual(change.count == 3 ? change[1] : nil, .array("{sv}", []), "the PNG is not in the signal")
    }

    /// A presentation shares the context's PNG: 32 menus of a context with
    /// the largest preview stay within the presenter's 8 MiB budget, which
    /// 32 copies (16 MiB, each counted in its three forms) would not.
    func testPresentationsShareThePreviewsBytesWithinThePresentersBudget() throws {
        let app = try app("org.example.Photos")
        let largest = ContextPreview(title: "Big", image: .png(Self.png(ContextPreview.maxPNGBytes)))
        try app.publishContext("photo", photo(largest), items: items)
        let presenter = try client()
        let menus = try (0..<32).map { _ in try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context) }
        XCTAssertEqual(try presenter.preview(of: menus[31]), largest)
        for menu in menus { try presenter.dismiss(menu) }
    }

    /// Menus showing a context share its PNG, so the daemon budget counts a
    /// new preview once however many menus show the context; and a refusal
    /// over a preview names the context, not its items.
    func testAPreviewAddedToAContextManyMenusShowIsCountedOnce() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(nil), items: items)
        let presenters = try (0..<3).map { _ in try client() }
        for presenter in presenters {
            for _ in 0..<40 { _ = try presenter.present(owner: "org.example.Photos", contextId: "photo", kind: .context) }
        }
        let largest = ContextPreview(title: "Big", image: .png(Self.png(ContextPreview.maxPNGBytes)))
        try app.publishContext("photo", photo(largest), items: items)

        // Past the owner's connection budget, the refusal names the context.
        let error = assertBusError(BusError.Domain.limitExceeded.errorName) {
            for number in 0..<32 { try app.publishContext("photo-\(number)", photo(largest), items: items) }
        }
        XCTAssertTrue(error?.message.hasPrefix("context:") ?? false, error?.message ?? "")
    }

    func testAnUnknownAppearanceIsRefusedNamingTheOption() throws {
        let app = try app("org.example.Photos")
        try app.publishContext("photo", photo(nil), items: items)
        let presenter = try connect()
        let error = assertBusError(BusError.Standard.invalidArgs) {
            _ = try callDaemon(presenter, "PresentMenu", [.string("org.example.Photos"), .string("photo"), .string("context"),
                                                          ["appearance": DBusValue.string("large")].dbusValue])
        }
        XCTAssertTrue(error?.message.hasPrefix("options.appearance:") ?? false, error?.message ?? "")
    }

    func testBadPreviewsAreRefusedNamingTheKey() throws {
        let app = try app("org.example.Photos")
        let connection = try connect()
        _ = try callDaemon(connection, "Register", [.string("org.example.Raw"), .objectPath("/org/menubus/Client"),
                                                    .array("{sv}", [])])
        let cases: [(String, [String: DBusValue], String, String)] = [
            ("not a PNG", ["title": .string("A"), "image-png": .bytes([1, 2, 3, 4, 5, 6, 7, 8, 9])],
             BusError.Standard.invalidArgs, "context.preview.image-png:"),
            ("over the budget", ["title": .string("A"), "image-png": .bytes(Self.png(ContextPreview.maxPNGBytes + 1))],
             BusError.Domain.limitExceeded.errorName, "context.preview.image-png:"),
            ("no title", ["icon": .string("image-x-generic")], BusError.Standard.invalidArgs, "context.preview.title:"),
            ("not a file URI", ["title": .string("A"), "image-uri": .string("https://example.org/a.png")],
             BusError.Standard.invalidArgs, "context.preview.image-uri:"),
            ("two images", ["title": .string("A"), "image-uri": .string("file:///a.png"), "icon": .string("x")],
             BusError.Standard.invalidArgs, "context.preview."),
            ("a wrong type", ["title": .uint32(1)], BusError.Standard.invalidArgs, "context.preview.title:"),
        ]
        for (what, preview, name, field) in cases {
            let context = ["kind": DBusValue.string("image"), "preview": preview.dbusValue].dbusValue
            let error = assertBusError(name) {
                _ = try callDaemon(connection, "PublishContext", [.string("photo"), context, .array("(ssa{sv})", [])])
            }
            XCTAssertTrue(error?.message.hasPrefix(field) ?? false, "\(what): \(error?.message ?? "")")
        }
        // The largest PNG the budget allows is taken.
        let largest = ContextPreview(title: "Big", image: .png(Self.png(ContextPreview.maxPNGBytes)))
        try app.publishContext("photo", photo(largest), items: items)
        XCTAssertEqual(try app.publishedContext(contextId: "photo").context.preview, largest)
    }
}
