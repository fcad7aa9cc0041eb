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

/// MenuBus's own titles in the user's language: the catalogues, the
/// lookups through glibc's gettext, and a presented menu read through real
/// consumers under LANGUAGE=ru, ja and ar.
final class LocalizationTests: BusTestCase {
    /// Compiles po/*.po as a build does, so these tests read catalogues of
    /// the current sources.
    override class func setUp() {
        super.setUp()
        let build = Process()
        build.executableURL = Repository.root.appendingPathComponent("scripts/build-locale")
        try? build.run()
        build.waitUntilExit()
    }

    private var localization: Localization {
        Localization(directory: Repository.root.appendingPathComponent(".build/share/locale").path, sessionLocale: "")
    }

    private static let languages = ["ru", "ja", "zh_CN", "de", "fr", "es", "ar", "he"]

    func testEveryCatalogueTranslatesEveryTitle() throws {
        for language in Self.languages {
            // Every entry of the catalogue has a translation (only the header's msgstr is empty)…
            let po = try String(contentsOf: Repository.root.appendingPathComponent("po/\(language).po"), encoding: .utf8)
            XCTAssertEqual(po.split(separator: "\n").filter { $0 == "msgstr \"\"" }.count, 1, "\(language).po")
            let titles = localization.titles(for: language)
            var same = 0
            for source in SystemTitles.sourceStrings {
                let translated = titles.text(source)
                if translated == source { same += 1 }
                XCTAssertFalse(translated.isEmpty, "\(language): \(source)")
                if source.contains("%s") {
                    XCTAssertEqual(translated.split(separator: "%s", omittingEmptySubsequences: false).count, 2,
                                   "\(language): '\(translated)' must hold %s once")
                }
            }
            // …and gettext finds them: at most the words the languages share
            // ("Format"; French "Services").
            XCTAssertLessThanOrEqual(same, 2, "\(language) answers English for \(same) titles")
        }
    }

    func testTitlesAndWordOrderPerLanguage() {
        let l10n = localization
        XCTAssertEqual(l10n.titles(for: "ru").title(.copy), "Копировать")
        XCTAssertEqual(l10n.titles(for: "ru_RU.UTF-8").title(.cut), "Вырезать")
        XCTAssertEqual(l10n.titles(for: "ja").undo("入力"), "入力を取り消す")
        XCTAssertEqual(l10n.titles(for: "ja").undo(nil), "取り消す")
        XCTAssertEqual(l10n.titles(for: "de").undo("Tippen"), "Tippen widerrufen")
        XCTAssertEqual(l10n.titles(for: "zh_CN").title(.selectAll), "全选")
        XCTAssertEqual(l10n.titles(for: "fr").title(.paste), "Coller")
        XCTAssertEqual(l10n.titles(for: "es").redo("Escritura"), "Rehacer Escritura")
        XCTAssertEqual(l10n.titles(for: "ar").title(.copy), "نسخ")
        XCTAssertEqual(l10n.titles(for: "he").title(.paste), "הדבקה")
        XCTAssertEqual(l10n.titles(for: "ja").loading, "読み込み中…")
        // A language list falls through to the first with a catalogue.
        XCTAssertEqual(l10n.titles(for: "xx:de").title(.copy), "Kopieren")
        for english in ["C", "POSIX", "en_GB.UTF-8", "xx", ""] {
            XCTAssertEqual(l10n.titles(for: english).title(.copy), "Copy", english)
        }
        // Asking again answers from what was kept, the same.
        XCTAssertEqual(l10n.titles(for: "ru"), l10n.titles(for: "ru"))
    }

    func testRightToLeftFollowsTheEffectiveLanguage() {
        for rtl in ["ar", "ar_EG.UTF-8", "he", "he_IL", "fa", "ur_PK", "fa:en"] {
            XCTAssertTrue(Localization.isRightToLeft(rtl), rtl)
        }
        for ltr in ["ru", "ja", "en_US.UTF-8", "C", "", "de:ar", "hr"] {
            XCTAssertFalse(Localization.isRightToLeft(ltr), ltr)
        }
        XCTAssertTrue(localization.titles(for: "ar").rightToLeft)
        XCTAssertTrue(localization.titles(for: "fa").rightToLeft, "right to left even without a catalogue")
        XCTAssertFalse(localization.titles(for: "ja").rightToLeft)
    }

    func testTheSessionLanguageComesFromTheEnvironmentInGettextsOrder() {
        func session(_ environment: [String: String]) -> String { Localization.sessionLocale { environment[$0] } }
        XCTAssertEqual(session(["LANGUAGE": "ja:en", "LANG": "de_DE.UTF-8"]), "ja:en")
        XCTAssertEqual(session(["LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "es_ES", "LANG": "de_DE"]), "fr_FR.UTF-8")
        XCTAssertEqual(session(["LC_MESSAGES": "es_ES", "LANG": "de_DE"]), "es_ES")
        XCTAssertEqual(session(["LANG": "de_DE", "LANGUAGE": ""]), "de_DE")
        XCTAssertEqual(session([:]), "")
    }

    func testAppsOwnTitlesStayTheirs() {
        let titles = localization.titles(for: "ru")
        let menu = EditMenu.compose(context: ContextInfo(kind: .text, editable: true, hasContent: true),
                                    selection: Selection(kind: .range, length: 3), undo: nil, providers: [],
                                    appItems: [MenuElement(id: "define", title: "Define Word")], titles: titles)
        XCTAssertEqual(menu.first { $0.id == "define" }?.title, "Define Word")
        XCTAssertEqual(menu.first { $0.id == "menubus:copy" }?.title, "Копировать")
        // An app's own "Копировать" stands for the system's Copy.
        let own = EditMenu.compose(context: ContextInfo(kind: .text, editable: true, hasContent: true),
                                   selection: Selection(kind: .range, length: 3), undo: nil, providers: [],
                                   appItems: [MenuElement(id: "mine", title: "Копировать")], titles: titles)
        XCTAssertNil(own.first { $0.id == "menubus:copy" })
    }

    func testTheLocaleOptionOverridesTheSessionForGetAndPresent() throws {
        _ = try startDaemon(extraEnvironment: ["LANGUAGE": "de"])
        let app = try app()
        try app.publishContext("body", ContextInfo(kind: .text, editable: true, hasContent: true), items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 3))
        let presenter = try client()
        let session = try presenter.editMenu(owner: app.uniqueName, contextId: "body")
        XCTAssertEqual(session.element("menubus:copy")?.title, "Kopieren")
        let japanese = try presenter.editMenu(owner: app.uniqueName, contextId: "body", locale: "ja_JP.UTF-8")
        XCTAssertEqual(japanese.element("menubus:copy")?.title, "コピー")
        let russian = try presenter.contextMenu(owner: app.uniqueName, contextId: "body", locale: "ru")
        XCTAssertEqual(russian.element("menubus:copy")?.title, "Копировать")
        let presented = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit, locale: "fr")
        XCTAssertEqual(try presenter.layout(of: presented).element("menubus:cut")?.title, "Couper")
    }

    func testUndoStateTitlesAreInTheSessionsLanguageAndTheNamesAsRegistered() throws {
        _ = try startDaemon(extraEnvironment: ["LANGUAGE": "ru"])
        let app = try app("org.example.Notes")
        var signalled: [UndoState] = []
        try app.observeUndoState { _, state in signalled.append(state) }
        _ = try app.registerUndo(document: "note", actionName: "Typing", undo: [1], redo: [2])
        let raw = try callDaemon(app.connection, "GetUndoState", [.string("note")])
        var state: [String: DBusValue] = [:]
        for entry in raw.first?.dictEntries ?? [] { if case .string(let key) = entry.key { state[key] = entry.value.unwrapped } }
        XCTAssertEqual(state["undo-title"], .string("Отменить Typing"), "as the edit menu titles it")
        XCTAssertEqual(state["redo-title"], .string("Повторить"), "nothing to redo: the command alone")
        XCTAssertEqual(state["undo-name"], .string("Typing"))
        XCTAssertEqual(state["redo-name"], .string(""))
        // The client reads the names, not the translated titles.
        let read = try app.undoState(document: "note")
        XCTAssertEqual(read.undoActionName, "Typing")
        XCTAssertNil(read.redoActionName)
        XCTAssertTrue(app.run(until: { !signalled.isEmpty }, timeout: 5))
        XCTAssertEqual(signalled.last?.undoActionName, "Typing")
        // menubus-cli shows the titles menubusd gave, whatever its own language.
        let cli = try bus.run("menubus-cli", ["undo-state", "org.example.Notes", "note", "--json"],
                              extraEnvironment: ["LANGUAGE": "", "LANG": "C.UTF-8", "NO_COLOR": "1"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.stdout.contains(#""undo-title": "Отменить Typing""#), cli.stdout)
    }

    // MARK: Acceptance: real consumers

    private func readThroughConsumers(language: String) throws -> [String: Any] {
        let daemon = try startDaemon(extraEnvironment: ["LANGUAGE": language])
        let app = try app("org.example.Notes")
        try app.publishContext("body", ContextInfo(kind: .text, editable: true, hasContent: true, document: "note"),
                               items: [MenuElement(id: "define", title: "Define Word")])
        try app.updateSelection("body", Selection(kind: .range, length: 5, pasteboardTypes: ["text/plain"]))
        _ = try app.registerUndo(document: "note", actionName: "Typing", undo: [1], redo: [2])

        let check = Process()
        check.executableURL = URL(fileURLWithPath: Self.python)
        check.arguments = ["-c", "import gi; gi.require_version('Dbusmenu', '0.4'); from gi.repository import Dbusmenu, Gio"]
        check.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: Self.python), (try? check.run()) != nil else {
            throw XCTSkip("no \(Self.python); run scripts/setup")
        }
        check.waitUntilExit()
        guard check.terminationStatus == 0 else { throw XCTSkip("libdbusmenu-glib's typelib missing; run scripts/setup") }

        let directory = Repository.root.appendingPathComponent("Tests/consumers")
        let consumer = Process()
        consumer.executableURL = URL(fileURLWithPath: Self.python)
        consumer.arguments = [directory.appendingPathComponent("l10n_client.py").path, "org.example.Notes", "body", "edit"]
        consumer.currentDirectoryURL = directory
        var environment = try bus.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        consumer.environment = environment
        let out = Pipe(), err = Pipe()
        consumer.standardOutput = out
        consumer.standardError = err
        let running = RunningProcess(process: consumer, stdout: out, stderr: err)
        try consumer.run()
        // The owner's connection answers nothing here, but is pumped so its
        // side of the bus never backs up.
        let deadline = Date().addingTimeInterval(30)
        while consumer.isRunning && Date() < deadline { app.run(until: { !consumer.isRunning }, timeout: 0.02) }
        let result = try running.wait(timeout: 5)
        daemon.signal(SIGTERM)
        _ = try? daemon.wait(timeout: 5)
        guard let line = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") }),
              let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any] else {
            throw TestFailure("no RESULT from the consumer: \(result.stdout) \(result.stderr)")
        }
        return json
    }

    func testAnEditMenuUnderRussianJapaneseAndArabicReadThroughLibdbusmenuAndGMenu() throws {
        let expected: [(String, [String], String)] = [
            ("ru", ["Отменить Typing", "Вырезать", "Копировать", "Вставить", "Удалить", "Выбрать все", "Define Word"], "ltr"),
            ("ja", ["Typingを取り消す", "カット", "コピー", "ペースト", "削除", "すべてを選択", "Define Word"], "ltr"),
            ("ar", ["تراجع عن Typing", "قص", "نسخ", "لصق", "حذف", "تحديد الكل", "Define Word"], "rtl"),
        ]
        for (language, labels, direction) in expected {
            let result = try readThroughConsumers(language: language)
            XCTAssertEqual(result["dbusmenu"] as? [String], labels, "\(language) through libdbusmenu-glib")
            XCTAssertEqual(result["gmenu"] as? [String], labels, "\(language) through GDBusMenuModel")
            XCTAssertEqual(result["direction"] as? String, direction, language)
        }
    }
}
