import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusModel
@testable import MenuBusDBus

/// Every log line a peer can cause is bounded: a peer that repeats what
/// makes menubusd warn gets the first line, then a count a minute
/// (`Log.rateLimitedWarning`, one window per cause and peer). The flood
/// tests drive the causes a presenter, an app and a provider control; the
/// audit keeps every other warning and error site from being one a peer
/// can repeat.
final class PeerLogTests: BusTestCase {
    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: false, hasContent: true,
                                    supportedCommands: [.copy])
    private let rounds = 40

    private func pump(_ clients: [MenuBusClient], timeout: Double = 20, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            for client in clients { client.run(until: done, timeout: 0.005) }
        }
        return done()
    }

    private func lines(_ daemon: RunningProcess, containing text: String) -> Int {
        daemon.stderrText.split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// Chooses provider `id` in `rounds` edit menus of `app`'s `body`, and
    /// once `handled` says each reached its end, counts the daemon's lines
    /// holding `warning`: one, however often.
    private func chooseRepeatedly(_ id: String, of app: MenuBusClient, provider: MenuBusClient, daemon: RunningProcess,
                                  warning: String, handled: () -> Int,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let presenter = try client()
        for _ in 0..<rounds {
            let menu = try presenter.present(owner: app.uniqueName, contextId: "body", kind: .edit)
            try presenter.activate(menu, itemId: "menubus:provider:\(id)")
        }
        XCTAssertTrue(pump([app, presenter, provider]) { handled() == rounds }, "\(handled()) of \(rounds)",
                      file: file, line: line)
        XCTAssertTrue(eventually { lines(daemon, containing: warning) > 0 }, daemon.stderrText, file: file, line: line)
        _ = try presenter.stats() // a round trip: what the app or provider answered has been read
        XCTAssertEqual(lines(daemon, containing: warning), 1, daemon.stderrText, file: file, line: line)
    }

    /// A presenter choosing a provider item again and again on an app that
    /// refuses `GetSelectedText`: one line, not one a choice.
    func testAnAppThatRefusesItsSelectedTextIsLoggedOnceHoweverOftenItIsAsked() throws {
        let daemon = try startDaemon()
        let app = try app()
        var asked = 0
        app.selectedText = { _ in
            asked += 1
            throw BusError.failed("not shared")
        }
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 5))
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Shout", title: "Shout")) { text, _ in text.uppercased() }
        try chooseRepeatedly("org.example.Shout", of: app, provider: provider, daemon: daemon,
                             warning: "GetSelectedText failed", handled: { asked })
    }

    /// A provider whose `Process` fails every time: one line.
    func testAProviderThatFailsEveryTimeIsLoggedOnce() throws {
        let daemon = try startDaemon()
        let app = try app()
        try app.publishContext("body", field, items: [])
        try app.updateSelection("body", Selection(kind: .range, length: 5, text: "hello"))
        var processed = 0
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Broken", title: "Broken")) { _, _ in
            processed += 1
            throw BusError.failed("broken")
        }
        try chooseRepeatedly("org.example.Broken", of: app, provider: provider, daemon: daemon,
                             warning: "Process failed", handled: { processed })
    }

    /// Every plain warning or error in the service and the D-Bus layer,
    /// with why no peer can repeat it. A new site fails this test: make it
    /// `Log.rateLimitedWarning` (keyed by cause and peer) or `Log.once` if
    /// a peer can cause it, else add it here saying why not.
    func testEveryPlainWarningOrErrorSiteIsOneNoPeerCanRepeat() throws {
        let notFromPeers: [(file: String, text: String, why: String)] = [
            ("MenuBusServer.swift", "undo journal faults injected", "debug builds, at start"),
            ("MenuBusServer.swift", "cannot watch signals", "at start"),
            ("MenuBusServer+Lifecycle.swift", "the replaced menubusd", "once, when replacing another menubusd"),
            ("Providers.swift", "inotify is unavailable", "at start"),
            ("Undo.swift", "undo journal: ", "at start, one line per damaged journal file"),
            ("GMenuExport.swift", "org.gtk.Actions.Changed built with", "a programming error, not input"),
            ("ProviderCatalog.swift", "\\(path): \\(message)", "the user's key files, not bus input; read at start and on change"),
            ("ProviderUsage.swift", "\\(error.problem); \\(unreadable)",
             "the state folders' files, read once at start (unreadable: counted afresh, or left where they are)"),
            ("Undo.swift", "Log.warning(text)", "once at start, moving a history found in another state folder"),
            ("Undo.swift", "keeps its undo history in", "once at start, when another session's menubusd holds the lock"),
            ("ProviderUsage.swift", "is not 'count<TAB>provider id'", "the state folder's file, read once at start; one line for all bad ones"),
            ("Connection.swift", "cannot queue", "out of memory in libdbus"),
            ("Connection.swift", "cannot build", "a message menubusd builds itself"),
            ("Connection.swift", "AddMatch", "one match rule per name menubusd watches, once per peer"),
            ("PreparedReply.swift", "prepared '", "a programming error: a reply against its declaration"),
            ("Interface+Typed.swift", "gave no reply and did not defer it", "a programming error"),
            ("Connection+Dispatch.swift", "emit of undeclared signal", "a programming error"),
            ("Connection+Dispatch.swift", "built as '", "a programming error"),
            ("Connection+Dispatch.swift", "cannot emit", "a signal menubusd builds itself"),
            ("Connection+Dispatch.swift", "replied '", "a programming error: a reply against its declaration"),
            ("Connection+DirectWrite.swift", "the bus socket took", "the bus daemon, not a peer; the connection closes"),
        ]
        let sources = Repository.root.appendingPathComponent("Sources")
        let folders = ["MenuBusService", "MenuBusDBus", "MenuBusProviders", "MenuBusUndo"]
        var unexplained: [String] = []
        for folder in folders {
            let root = sources.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let relative as String in files where relative.hasSuffix(".swift") {
                let file = root.appendingPathComponent(relative)
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("Log.warning(") || line.contains("Log.error(") {
                    let name = file.lastPathComponent
                    let known = notFromPeers.contains { name == $0.file && line.contains($0.text) }
                    if !known { unexplained.append("\(folder)/\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        XCTAssertEqual(unexplained, [], "warning or error sites a peer may repeat: rate-limit them or say why not")
    }
}
