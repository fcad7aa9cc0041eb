import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusModel
@testable import MenuBusDBus
@testable import MenuBusProtocol

/// One undo history whichever way menubusd started first: by hand it keeps
/// it in `~/.local/state/menubus`, under the systemd 252 unit
/// (`STATE_DIRECTORY`) in `~/.config/menubus`; a history found in the other
/// place is moved into the one in use, once, and two are merged.
final class UndoHistoryPlacesTests: BusTestCase {
    private var home: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: home)
    }

    private enum Start: CustomStringConvertible {
        /// By hand or by D-Bus activation: no `STATE_DIRECTORY`.
        case plainly
        /// By the systemd 252 unit: `STATE_DIRECTORY=~/.config/menubus`.
        case bySystemd252

        var description: String { self == .plainly ? "plainly" : "by systemd 252" }
    }

    private var statePlace: URL { home.appendingPathComponent(".local/state/menubus") }
    private var systemdPlace: URL { home.appendingPathComponent(".config/menubus") }

    /// menubusd with this test's HOME and nothing else saying where state goes.
    private func start(_ way: Start, arguments: [String] = []) throws -> RunningProcess {
        try startDaemon(arguments, extraEnvironment: [
            "HOME": home.path, "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "",
            "STATE_DIRECTORY": way == .plainly ? "" : systemdPlace.path,
        ])
    }

    private func stop(_ daemon: RunningProcess, _ app: MenuBusClient) throws -> String {
        app.close()
        daemon.signal(SIGTERM)
        let result = try daemon.wait(timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stderr
    }

    private func journals(in place: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: place.appendingPathComponent("undo").path)) ?? [])
            .filter { $0.hasSuffix(".undo") }
    }

    /// Starts `ways` in turn; each start sees every step registered before
    /// it, then registers one more.
    private func assertEveryStartSeesEveryStep(_ ways: [Start]) throws {
        for (index, way) in ways.enumerated() {
            // Where the history is to be: the unit's place, or by hand the
            // state home's unless only the unit's place has one.
            let here = way == .bySystemd252 || (journals(in: statePlace).isEmpty && !journals(in: systemdPlace).isEmpty)
                ? systemdPlace : statePlace
            let there = here == statePlace ? systemdPlace : statePlace
            let moves = journals(in: there).isEmpty ? 0 : 1
            let daemon = try start(way)
            let app = try app("org.example.Letters")
            if index > 0 {
                let state = try app.undoState(document: "letter")
                XCTAssertEqual(state.undoCount, index, "start \(index + 1), \(way), after \(ways.prefix(index))")
                XCTAssertEqual(state.undoTitle, "Undo Step \(index)", "\(way)")
            }
            try app.registerUndo(document: "letter", actionName: "Step \(index + 1)", undo: [UInt8(index)], redo: [0])
            let log = try stop(daemon, app)
            XCTAssertEqual(log.split(separator: "\n").filter { $0.contains("undo history of") }.count, moves,
                           "one line when it moved: \(log)")
            XCTAssertEqual(journals(in: here).count, 1, "\(way): the one history is in \(here.path)")
            XCTAssertEqual(journals(in: there), [], "\(way): none left in \(there.path)")
        }
    }

    func testPlainlyThenBySystemd252ThenPlainlyKeepsOneHistory() throws {
        try assertEveryStartSeesEveryStep([.plainly, .bySystemd252, .plainly, .bySystemd252])
    }

    func testBySystemd252ThenPlainlyThenBySystemd252KeepsOneHistory() throws {
        try assertEveryStartSeesEveryStep([.bySystemd252, .plainly, .bySystemd252, .plainly])
    }

    /// Two histories with content: one kept by hand, one by a daemon told
    /// its state directory. The next start merges them (a document in both
    /// keeps its newer journal) and says so in its log and in
    /// `menubus-cli status`.
    func testTwoHistoriesAreMergedAndStatusSaysSo() throws {
        var daemon = try start(.plainly)
        var app = try app("org.example.Letters")
        try app.registerUndo(document: "draft", actionName: "Type", undo: [1], redo: [0])
        try app.registerUndo(document: "shared", actionName: "Old Edit", undo: [1], redo: [0])
        _ = try stop(daemon, app)

        daemon = try start(.plainly, arguments: ["--state-dir", systemdPlace.path])
        app = try self.app("org.example.Letters")
        try app.registerUndo(document: "memo", actionName: "Paste", undo: [1], redo: [0])
        for _ in 1...2 { try app.registerUndo(document: "shared", actionName: "New Edit", undo: [2], redo: [0]) }
        _ = try stop(daemon, app)
        XCTAssertEqual(journals(in: statePlace).count, 2)
        XCTAssertEqual(journals(in: systemdPlace).count, 2)

        // By hand, with a history in the state home: the unit's place is merged into it.
        daemon = try start(.plainly)
        app = try self.app("org.example.Letters")
        XCTAssertEqual(try app.undoState(document: "draft").undoTitle, "Undo Type", "its own")
        XCTAssertEqual(try app.undoState(document: "memo").undoTitle, "Undo Paste", "from the unit's place")
        let shared = try app.undoState(document: "shared")
        XCTAssertEqual(shared.undoCount, 2, "in both: the newer journal kept")
        XCTAssertEqual(shared.undoTitle, "Undo New Edit")
        let status = try bus.run("menubus-cli", ["status"], timeout: 20)
        XCTAssertTrue(status.stdout.contains("undo-history") && status.stdout.contains("merged"), status.stdout)
        let log = try stop(daemon, app)
        let lines = log.split(separator: "\n").filter { $0.contains("undo history of") }
        XCTAssertEqual(lines.count, 1, log)
        XCTAssertTrue(lines.first?.contains("merged") == true && lines.first?.contains("1 documents were in both") == true
                      && lines.first?.contains("(1 from") == true, log)
        XCTAssertEqual(journals(in: systemdPlace), [])
        XCTAssertEqual(journals(in: statePlace).count, 3)
    }

    /// Another session of this user (its own bus) runs a menubusd on the
    /// other place: its history is left where it is while it runs, and
    /// moved by the next start once it has stopped.
    func testAHistoryWhoseDaemonRunsInAnotherSessionIsLeftThere() throws {
        let elsewhere = try PrivateBus()
        defer { elsewhere.stop() }
        let environment = ["HOME": home.path, "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "", "STATE_DIRECTORY": "", "LANGUAGE": "C"]
        let first = try elsewhere.start("menubusd", [], extraEnvironment: environment)
        let probe = try Connection(address: elsewhere.address, loop: MessageLoop())
        XCTAssertTrue(eventually(timeout: 10) { self.nameHasOwner(probe, MenuBusNames.busName) }, first.stderrText)
        let there = try MenuBusClient(address: elsewhere.address)
        try there.register(appId: "org.example.Letters")
        try there.registerUndo(document: "letter", actionName: "Step 1", undo: [1], redo: [0])

        var daemon = try start(.bySystemd252)
        var app = try app("org.example.Letters")
        XCTAssertThrowsError(try app.undoState(document: "letter"), "not moved from under a running menubusd")
        var log = try stop(daemon, app)
        XCTAssertTrue(log.contains("left there: another menubusd"), log)
        XCTAssertEqual(journals(in: statePlace).count, 1)
        // The other session's daemon still keeps its history.
        try there.registerUndo(document: "letter", actionName: "Step 2", undo: [2], redo: [0])
        XCTAssertEqual(try there.undoState(document: "letter").undoCount, 2)
        there.close()
        first.signal(SIGTERM)
        XCTAssertEqual(try first.wait(timeout: 10).status, 0)

        daemon = try start(.bySystemd252)
        app = try self.app("org.example.Letters")
        XCTAssertEqual(try app.undoState(document: "letter").undoTitle, "Undo Step 2", "moved once it stopped")
        log = try stop(daemon, app)
        XCTAssertTrue(log.contains("undo history of"), log)
        XCTAssertEqual(journals(in: statePlace), [])
    }

    /// The provider choices move with the history: the greater count of each.
    func testProviderChoicesMoveWithTheHistory() throws {
        for (place, text) in [(statePlace, "3\torg.example.A\n1\torg.example.B\n"), (systemdPlace, "2\torg.example.B\n")] {
            try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
            try text.write(to: place.appendingPathComponent("provider-usage"), atomically: true, encoding: .utf8)
        }
        let daemon = try start(.bySystemd252)
        _ = try stop(daemon, try client())
        XCTAssertEqual(try String(contentsOf: systemdPlace.appendingPathComponent("provider-usage"), encoding: .utf8),
                       "3\torg.example.A\n2\torg.example.B\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: statePlace.appendingPathComponent("provider-usage").path))
    }

    /// The other places are the state home's and the unit's, but the one in use.
    func testTheOtherPlacesAreTheStateHomesAndTheUnitsButTheOneInUse() {
        func places(_ environment: [String: String], histories: Set<String> = []) -> [String] {
            let found = MenuBusServer.Configuration.defaultStateDirectories(environment: { environment[$0] },
                                                                            hasUndo: { histories.contains($0) })
            return [found.inUse] + found.others
        }
        XCTAssertEqual(places(["HOME": "/h"]), ["/h/.local/state/menubus", "/h/.config/menubus"])
        XCTAssertEqual(places(["HOME": "/h", "STATE_DIRECTORY": "/h/.config/menubus/"]),
                       ["/h/.config/menubus", "/h/.local/state/menubus"], "systemd 252")
        XCTAssertEqual(places(["HOME": "/h", "STATE_DIRECTORY": "/h/.local/state/menubus"]),
                       ["/h/.local/state/menubus", "/h/.config/menubus"], "systemd 254 and later")
        XCTAssertEqual(places(["HOME": "/h", "STATE_DIRECTORY": "/s/menubus"]),
                       ["/s/menubus", "/h/.local/state/menubus", "/h/.config/menubus"])
        XCTAssertEqual(places(["HOME": "/h", "XDG_CONFIG_HOME": "/c"], histories: ["/c/menubus"]),
                       ["/c/menubus", "/h/.local/state/menubus"], "by hand after the unit: its history in place")
        XCTAssertEqual(MenuBusServer.Configuration(stateDirectory: "/given").otherStateDirectories, [],
                       "a given state directory is the only one")
    }
}
