import XCTest
@testable import MenuBus

/// What the client works out by itself, with no bus: the options its calls
/// carry, the rows it reads, what it keeps to say again to a new daemon,
/// and the values it hands an app.
final class ClientValuesTests: XCTestCase {
    func testTheLocaleOptionCarriesTheLocaleOnlyWhenOneIsGiven() {
        XCTAssertEqual(MenuBusClient.localeOptions(nil), .array("{sv}", []))
        XCTAssertEqual(MenuBusClient.localeOptions("ja_JP.UTF-8"),
                       .array("{sv}", [.dictEntry(.string("locale"), .variant(.string("ja_JP.UTF-8")))]))
    }

    func testRegisterUndoCarriesAMergeKeyOnlyWhenOneIsGiven() {
        XCTAssertEqual(MenuBusClient.undoOptions(""), .array("{sv}", []))
        XCTAssertEqual(MenuBusClient.undoOptions("typing"),
                       .array("{sv}", [.dictEntry(.string("merge-key"), .variant(.string("typing")))]))
    }

    /// `ListContexts`' `a(sss)` rows; a row of another shape is left out.
    func testContextListingsKeepTheRowsOfThreeStrings() {
        func row(_ fields: DBusValue...) -> DBusValue { .structure(fields) }
        let rows = DBusValue.array("(sss)", [
            row(.string(":1.4"), .string("org.example.Editor"), .string("body")),
            row(.string(":1.4"), .string("org.example.Editor")),
            row(.string(":1.5"), .uint32(1), .string("field")),
            row(.string(":1.6"), .string(""), .string("search")),
        ])
        XCTAssertEqual(MenuBusClient.contextListings(rows), [
            ContextListing(owner: ":1.4", appId: "org.example.Editor", contextId: "body"),
            ContextListing(owner: ":1.6", appId: "", contextId: "search"),
        ])
        XCTAssertEqual(MenuBusClient.contextListings(.string("not rows")), [])
    }

    /// A new daemon hears the contexts in the order they were first
    /// published, each with its last items; publishing again forgets the
    /// selection, and a removed context is gone, its place too.
    func testWhatIsSaidAgainKeepsTheOrderContextsWereFirstPublished() {
        var replay = ReplayState()
        let field = ContextInfo(kind: .text, editable: true)
        replay.published("a", field, [])
        replay.published("b", field, [MenuElement(id: "one", title: "One")])
        replay.contexts["a"]?.selection = Selection(kind: .caret)
        replay.published("c", field, [])
        replay.published("a", ContextInfo(kind: .image), [MenuElement(id: "two", title: "Two")])
        XCTAssertEqual(replay.contextOrder, ["a", "b", "c"])
        XCTAssertEqual(replay.contexts["a"]?.info.kind, .image)
        XCTAssertEqual(replay.contexts["a"]?.items.map(\.id), ["two"])
        XCTAssertNil(replay.contexts["a"]?.selection)
        replay.removed("b")
        XCTAssertEqual(replay.contextOrder, ["a", "c"])
        XCTAssertNil(replay.contexts["b"])
        replay.published("b", field, [])
        XCTAssertEqual(replay.contextOrder, ["a", "c", "b"])
    }

    func testACommandIsAStandardCommandOnlyWhenTheLibraryKnowsItsName() {
        let copy = CommandInvocation(contextId: "body", name: "copy", arguments: [:])
        XCTAssertEqual(copy.command, .copy)
        XCTAssertEqual(CommandInvocation(contextId: "body", name: "replace-selection", arguments: [:]).command,
                       .replaceSelection)
        XCTAssertNil(CommandInvocation(contextId: "body", name: "org.example.frobnicate", arguments: [:]).command)
    }

    func testAProviderResultReadsItsInfoAndAMenuFindsItsElements() {
        let failed = ProviderResult(menu: PresentedMenu(path: "/org/menubus/MenuBus1/menu/3"), providerId: "org.example.Translate",
                                    text: "", info: ["context-id": .string("body"), "title": .variant(.string("Translate")),
                                                     "error": .string("org.example.Error.Offline: no network")])
        XCTAssertEqual(failed.contextId, "body")
        XCTAssertEqual(failed.title, "Translate")
        XCTAssertEqual(failed.error, "org.example.Error.Offline: no network")
        let answered = ProviderResult(menu: failed.menu, providerId: "org.example.Translate", text: "Hallo",
                                      info: ["title": .uint32(1)])
        XCTAssertNil(answered.error)
        XCTAssertNil(answered.contextId)
        XCTAssertNil(answered.title, "a title of another type is no title")

        let menu = Menu(revision: 2, elements: [MenuElement(id: "copy", title: "Copy"), MenuElement(id: "paste", title: "Paste")])
        XCTAssertEqual(menu.element("paste")?.title, "Paste")
        XCTAssertNil(menu.element("cut"))
    }
}
