import XCTest
import MenuBusModelFixtures
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel

final class WireTests: XCTestCase {
    // MARK: Helpers

    private func dict(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    private func strings(_ items: [String]) -> DBusValue {
        .array("s", items.map(DBusValue.string))
    }

    private func items(_ rows: [(String, String, [(String, DBusValue)])]) -> DBusValue {
        .array("(ssa{sv})", rows.map { .structure([.string($0.0), .string($0.1), dict($0.2)]) })
    }

    private func assertBusError(_ expression: @autoclosure () throws -> Any, _ name: String, field: String,
                                saying phrase: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            guard let error = error as? BusError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.name, name, error.message, file: file, line: line)
            XCTAssertTrue(error.message.hasPrefix(field + ": "), error.message, file: file, line: line)
            if let phrase {
                XCTAssertTrue(error.message.contains(phrase), error.message, file: file, line: line)
            }
        }
    }

    private let invalidArgs = BusError.Standard.invalidArgs
    private let limitExceeded = BusError.Domain.limitExceeded.errorName

    // MARK: Round trips

    func testElementsRoundTrip() throws {
        let elements = [
            MenuElement(id: "s", kind: .menu, options: [.inline]),
            MenuElement(id: "a", parent: "s", title: "Copy Link", subtitle: "to the clipboard", icon: "edit-copy",
                        attributes: [.destructive, .disabled, .hidden, .keepsMenuPresented], state: .mixed,
                        shortcut: "<Control>c", command: .copy),
            MenuElement(id: "m", parent: "s", kind: .menu, title: "Colors",
                        options: [.destructive, .singleSelection, .palette], elementSize: .small),
            MenuElement(id: "on", parent: "m", title: "Red", state: .on),
            MenuElement(id: "d", kind: .deferred, cached: false),
            MenuElement(id: "d2", kind: .deferred),
        ]
        let encoded = Wire.encode(elements)
        XCTAssertEqual(encoded.signature, "a(ssa{sv})")
        XCTAssertNoThrow(try encoded.validate())
        XCTAssertEqual(try Wire.decodeElements(encoded), elements)
        XCTAssertEqual(try Wire.decodeElements(Wire.encode([MenuElement]())), [])
    }

    func testEveryCommandStateAndSizeRoundTrips() throws {
        var elements: [MenuElement] = StandardCommand.allCases.map {
            MenuElement(id: "c-" + $0.rawValue, title: $0.title, command: $0)
        }
        elements += MenuElement.State.allCases.map { MenuElement(id: "s-" + $0.rawValue, title: "S", state: $0) }
        elements += MenuElement.ElementSize.allCases.map {
            MenuElement(id: "z-" + $0.rawValue, kind: .menu, title: "Z", elementSize: $0)
        }
        XCTAssertEqual(try Wire.decodeElements(Wire.encode(elements)), elements)
    }

    func testEncodingWritesOnlyNonDefaultKeysInAFixedOrder() {
        let element = MenuElement(id: "d", kind: .deferred, title: "T", subtitle: "S", icon: "I",
                                  attributes: [.keepsMenuPresented, .destructive], state: .on, shortcut: "<Control>d",
                                  command: .delete, options: [.palette, .inline], elementSize: .large, cached: false)
        guard case .array(_, let entries) = element.wireProperties else { return XCTFail() }
        let keys = entries.compactMap { entry -> String? in
            if case .dictEntry(.string(let key), _) = entry { return key }
            return nil
        }
        XCTAssertEqual(keys, ["type", "title", "subtitle", "icon", "attributes", "state", "shortcut", "command",
                              "options", "element-size", "cached"])
        XCTAssertEqual(entries[4], .dictEntry(.string("attributes"), .variant(strings(["destructive", "keeps-menu-presented"]))))
        XCTAssertEqual(entries[8], .dictEntry(.string("options"), .variant(strings(["inline", "palette"]))))
        XCTAssertEqual(MenuElement(id: "a", title: "A").wireProperties, dict([("title", .string("A"))]))
        XCTAssertEqual(MenuElement(id: "d", kind: .deferred).wireProperties, dict([("type", .string("deferred"))]))
    }

    func testContextRoundTrips() throws {
        let contexts = [
            ContextInfo(),
            ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true, hasContent: true,
                        richText: true, document: "doc-1", supportedCommands: [.copy, .paste, .undo], title: "Notes"),
            ContextInfo(kind: .image, supportedCommands: []),
        ]
        for context in contexts {
            XCTAssertEqual(try Wire.decodeContext(Wire.encode(context)), context)
        }
        XCTAssertEqual(Wire.encode(ContextInfo()), dict([]))
        XCTAssertEqual(Wire.encode(ContextInfo(kind: .url, supportedCommands: [.share, .copy])),
                       dict([("kind", .string("url")), ("supported-commands", strings(["copy", "share"]))]))
    }

    func testSelectionRoundTrips() throws {
        let selections = [
            Selection(),
            Selection(kind: .range, length: 12, text: "hello world!", attributes: [.bold, .underline],
                      pasteboardTypes: ["text/plain", "image/png"]),
            Selection(kind: .all, length: UInt32.max),
        ]
        for selection in selections {
            XCTAssertEqual(try Wire.decodeSelection(Wire.encode(selection)), selection)
        }
    }

    func testProviderRoundTripsAndDefaults() throws {
        let provider = ProviderInfo(id: "org.example.Upper", title: "Make Upper Case", icon: "format-text-uppercase",
                                    role: .translate, contentTypes: ["text/plain", "text/html"], returnsText: true,
                                    requiresEditable: true, shortcut: "<Control><Alt>u")
        XCTAssertEqual(try Wire.decodeProvider(id: provider.id, Wire.encode(provider)), provider)
        // A shortcut is an accelerator with Control, Alt or Super: one without is typing.
        for (shortcut, saying) in [("Ctrl+U", "not a GTK accelerator"), ("<Shift>u", "needs <Control>, <Alt> or <Super>"),
                                   ("u", "needs <Control>, <Alt> or <Super>")] {
            assertBusError(try Wire.decodeProvider(id: "p", dict([("title", .string("P")), ("shortcut", .string(shortcut))])),
                           invalidArgs, field: "properties.shortcut", saying: saying)
        }
        let minimal = try Wire.decodeProvider(id: "p", dict([("title", .string("P")), ("role", .string(""))]))
        XCTAssertEqual(minimal, ProviderInfo(id: "p", title: "P"))
        XCTAssertEqual(minimal.contentTypes, ["text/plain"])
    }

    func testLintFindingsEncodeAsTriples() throws {
        let findings = [LintFinding(severity: .error, elementId: "a", message: "Bad."),
                        LintFinding(severity: .info, elementId: "", message: "Hint.")]
        let encoded = Wire.encode(findings)
        XCTAssertEqual(encoded, .array("(sss)", [
            .structure([.string("error"), .string("a"), .string("Bad.")]),
            .structure([.string("info"), .string(""), .string("Hint.")]),
        ]))
        XCTAssertEqual(try Wire.decodeFindings(encoded), findings)
        XCTAssertEqual(Wire.encode([LintFinding]()).signature, "a(sss)")
        assertBusError(try Wire.decodeFindings(.array("(sss)", [.structure([.string("fatal"), .string(""), .string("")])])),
                       invalidArgs, field: "findings[0].severity", saying: "'fatal'")
    }

    func testComposedMenusRoundTripWithReservedIds() throws {
        let menu = EditMenu.compose(context: Fixtures.richField, selection: Fixtures.range,
                                    undo: UndoSummary(canUndo: true, undoActionName: "Typing"),
                                    providers: Fixtures.allRoles + [Fixtures.upper], appItems: [Fixtures.action("define")])
        XCTAssertEqual(try Wire.decodeComposedMenu(Wire.encode(menu)), menu)
        assertBusError(try Wire.decodeElements(Wire.encode(menu)), invalidArgs, field: "items[0].id", saying: "reserved")
    }

    // MARK: Bad input

    func testUnknownKeysAreIgnored() throws {
        let decoded = try Wire.decodeElements(items([("a", "", [("title", .string("A")), ("x-future", .uint32(7))])]))
        XCTAssertEqual(decoded, [MenuElement(id: "a", title: "A")])
        XCTAssertEqual(try Wire.decodeContext(dict([("x-future", .boolean(true))])), ContextInfo())
        XCTAssertEqual(try Wire.decodeSelection(dict([("x-future", .boolean(true))])), Selection())
    }

    func testARepeatedKeyKeepsTheLastValue() throws {
        let decoded = try Wire.decodeElements(items([("a", "", [("title", .string("A")), ("title", .string("B"))])]))
        XCTAssertEqual(decoded.first?.title, "B")
    }

    func testAKnownKeyOfTheWrongTypeNamesTheFieldAndBothSignatures() {
        let rows: [(String, DBusValue, String, String)] = [
            ("type", .uint32(1), "items[0].properties.type", "expected 's', got 'u'"),
            ("title", .boolean(true), "items[0].properties.title", "expected 's', got 'b'"),
            ("attributes", .string("hidden"), "items[0].properties.attributes", "expected 'as', got 's'"),
            ("options", .array("u", []), "items[0].properties.options", "expected 'as', got 'au'"),
            ("cached", .string("yes"), "items[0].properties.cached", "expected 'b', got 's'"),
            ("state", .variant(.string("on")), "items[0].properties.state", "expected 's', got 'v'"),
        ]
        for (key, value, field, phrase) in rows {
            let value = items([("a", "", [("title", .string("A")), (key, value)])])
            assertBusError(try Wire.decodeElements(value), invalidArgs, field: field, saying: phrase)
        }
        assertBusError(try Wire.decodeContext(dict([("editable", .string("yes"))])), invalidArgs,
                       field: "context.editable", saying: "expected 'b', got 's'")
        assertBusError(try Wire.decodeSelection(dict([("length", .int32(3))])), invalidArgs,
                       field: "selection.length", saying: "expected 'u', got 'i'")
        assertBusError(try Wire.decodeProvider(id: "p", dict([("title", .string("P")), ("returns-text", .uint32(1))])),
                       invalidArgs, field: "properties.returns-text", saying: "expected 'b', got 'u'")
    }

    func testTheWrongShapeOfAMenuIsNamed() {
        assertBusError(try Wire.decodeElements(.array("s", [])), invalidArgs, field: "items",
                       saying: "expected 'a(ssa{sv})', got 'as'")
        assertBusError(try Wire.decodeElements(.string("x")), invalidArgs, field: "items")
        assertBusError(try Wire.decodeElements(.array("(ssa{sv})", [.structure([.string("a"), .string("")])])),
                       invalidArgs, field: "items[0]", saying: "expected '(ssa{sv})'")
        assertBusError(try Wire.decodeElements(.array("(ssa{sv})", [.structure([.string("a"), .string(""), .array("{ss}", [])])])),
                       invalidArgs, field: "items[0].properties", saying: "expected 'a{sv}', got 'a{ss}'")
        assertBusError(try Wire.decodeContext(.array("s", [])), invalidArgs, field: "context")
        assertBusError(try Wire.decodeSelection(.boolean(true)), invalidArgs, field: "selection")
    }

    func testUnknownValuesAreNamed() {
        let rows: [(String, DBusValue, String, String)] = [
            ("type", .string("button"), "items[0].properties.type", "'button'"),
            ("attributes", strings(["hidden", "blinking"]), "items[0].properties.attributes", "'blinking'"),
            ("state", .string("half"), "items[0].properties.state", "'half'"),
            ("command", .string("frobnicate"), "items[0].properties.command", "'frobnicate'"),
            ("options", strings(["sideways"]), "items[0].properties.options", "'sideways'"),
            ("element-size", .string("huge"), "items[0].properties.element-size", "'huge'"),
        ]
        for (key, value, field, phrase) in rows {
            let value = items([("a", "", [("title", .string("A")), (key, value)])])
            assertBusError(try Wire.decodeElements(value), invalidArgs, field: field, saying: phrase)
        }
        assertBusError(try Wire.decodeContext(dict([("kind", .string("video"))])), invalidArgs,
                       field: "context.kind", saying: "'video'")
        assertBusError(try Wire.decodeContext(dict([("supported-commands", strings(["copy", "fly"]))])), invalidArgs,
                       field: "context.supported-commands", saying: "'fly'")
        assertBusError(try Wire.decodeSelection(dict([("kind", .string("some"))])), invalidArgs,
                       field: "selection.kind", saying: "'some'")
        assertBusError(try Wire.decodeSelection(dict([("attributes", strings(["strike"]))])), invalidArgs,
                       field: "selection.attributes", saying: "'strike'")
        assertBusError(try Wire.decodeProvider(id: "p", dict([("title", .string("P")), ("role", .string("print"))])),
                       invalidArgs, field: "properties.role", saying: "'print'")
    }

    func testEveryRuleIsCheckedWhenDecoding() {
        let a: (String, [(String, DBusValue)]) -> (String, String, [(String, DBusValue)]) = { ($0, "", $1) }
        let title: [(String, DBusValue)] = [("title", .string("T"))]
        let menu: [(String, DBusValue)] = [("type", .string("menu")), ("title", .string("M"))]
        let rows: [(String, DBusValue, String)] = [
            ("empty id", items([a("", title)]), "items[0].id"),
            ("duplicate id", items([a("x", title), a("x", title)]), "items[1].id"),
            ("bad characters", items([a("x/y", title)]), "items[0].id"),
            ("forward parent", items([("c", "m", title), a("m", menu)]), "items[0].parent"),
            ("parent not a menu", items([a("x", title), ("c", "x", title)]), "items[1].parent"),
            ("action without title", items([a("x", [])]), "items[0].properties.title"),
            ("cached on an action", items([a("x", title + [("cached", .boolean(true))])]), "items[0].properties.cached"),
            ("options on an action", items([a("x", title + [("options", strings(["inline"]))])]), "items[0].properties.options"),
        ]
        for (name, value, field) in rows {
            XCTAssertThrowsError(try Wire.decodeElements(value), name) { error in
                XCTAssertEqual((error as? BusError)?.name, invalidArgs, name)
                XCTAssertTrue((error as? BusError)?.message.hasPrefix(field + ": ") ?? false, "\(name): \(error)")
            }
        }
        assertBusError(try Wire.decodeProvider(id: "p", dict([])), invalidArgs, field: "properties.title")
        assertBusError(try Wire.decodeProvider(id: "", dict([("title", .string("P"))])), invalidArgs, field: "providerId")
    }

    func testBoundsAnswerLimitExceededNamingTheField() {
        let long = DBusValue.string(String(repeating: "x", count: 4097))
        assertBusError(try Wire.decodeElements(items([("a", "", [("title", long)])])), limitExceeded,
                       field: "items[0].properties.title", saying: "4097 bytes")
        assertBusError(try Wire.decodeElements(items([("a", "", [("title", .string("A")), ("shortcut", long)])])),
                       limitExceeded, field: "items[0].properties.shortcut")
        assertBusError(try Wire.decodeElements(items([(String(repeating: "a", count: 129), "", [("title", .string("A"))])])),
                       limitExceeded, field: "items[0].id", saying: "128")
        let many = items((0...1000).map { ("a\($0)", "", [("title", .string("A"))]) })
        assertBusError(try Wire.decodeElements(many), limitExceeded, field: "items", saying: "1001 elements")
        assertBusError(try Wire.decodeElementsForLint(many), limitExceeded, field: "items")
        let manyAttributes = strings(Array(repeating: "hidden", count: 33))
        assertBusError(try Wire.decodeElements(items([("a", "", [("title", .string("A")), ("attributes", manyAttributes)])])),
                       limitExceeded, field: "items[0].properties.attributes", saying: "32")
        let manyKeys = items([("a", "", (0...64).map { ("k\($0)", DBusValue.boolean(true)) })])
        assertBusError(try Wire.decodeElements(manyKeys), limitExceeded, field: "items[0].properties", saying: "64")
        let manyTypes = strings((0...64).map { "text/x-\($0)" })
        assertBusError(try Wire.decodeContext(dict([("content-types", manyTypes)])), limitExceeded,
                       field: "context.content-types")
        assertBusError(try Wire.decodeSelection(dict([("pasteboard-types", manyTypes)])), limitExceeded,
                       field: "selection.pasteboard-types")
        assertBusError(try Wire.decodeContext(dict([("document", long)])), limitExceeded, field: "context.document")
        assertBusError(try Wire.decodeSelection(dict([("text", .string(String(repeating: "x", count: 65_537)))])),
                       limitExceeded, field: "selection.text")
        assertBusError(try Wire.decodeProvider(id: "p", dict([("title", long)])), limitExceeded, field: "properties.title")
        assertBusError(try Wire.decodeProvider(id: String(repeating: "p", count: 112), dict([("title", .string("P"))])),
                       limitExceeded, field: "providerId")
    }

    func testDecodingForLintChecksTypesAndBoundsButLeavesRulesToLint() throws {
        let value = items([("a", "nowhere", [("title", .string("A"))]), ("a", "", [])])
        let elements = try Wire.decodeElementsForLint(value)
        XCTAssertEqual(elements.count, 2)
        let findings = Lint.check(kind: .context, elements: elements)
        XCTAssertEqual(findings.filter { $0.severity == .error }.count, 3, "\(findings)")
        assertBusError(try Wire.decodeElementsForLint(items([("a", "", [("type", .string("button"))])])),
                       invalidArgs, field: "items[0].properties.type")
    }
}
