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

/// Live menus in the hands of the desktop's own consumers, each a real
/// program run beside the daemon (Tests/consumers): KDE's DBusMenuImporter
/// (a Qt program built with g++), libdbusmenu-glib's client,
/// libdbusmenu-gtk3's menu, GLib's GDBusMenuModel with GDBusActionGroup,
/// and GTK 3 and GTK 4 menus drawn on a private Xvfb.
/// Each prints what it shows (`TREE {"items": [...]}`, see
/// Tests/consumers/common.py `mark`) whenever that changed and settled.
final class LiveConsumerTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon(["--deferred-timeout", "1"])
    }

    private static let items = [
        MenuElement(id: "pin", title: "Pin", state: .on),
        MenuElement(id: "sort", kind: .menu, title: "Sort By", options: [.singleSelection]),
        MenuElement(id: "sort-name", parent: "sort", title: "Name", state: .on),
        MenuElement(id: "sort-date", parent: "sort", title: "Date"),
        MenuElement(id: "sort-size", parent: "sort", title: "Size"),
        MenuElement(id: "rename", title: "Rename"),
    ]

    /// One consumer program following a presentation of context `row` it presents itself.
    private struct Follower {
        let name: String
        let consumer: Consumer
    }

    /// Starts the named consumer following `owner`'s context `row`.
    private func follower(_ name: String, owner: String = "org.example.Files") throws -> Follower {
        let present = [owner, "row", "context"]
        let input = Pipe()
        let consumer: Consumer
        switch name {
        case "libdbusmenu-glib":
            consumer = try startConsumer("dbusmenu_client.py", present + ["follow"], input: input)
        case "GDBusMenuModel":
            consumer = try startConsumer("gmenu_client.py", present + ["follow"], input: input)
        case "GTK 3", "GTK 4":
            // GTK fills a submenu when it opens: the one with the radio items is open.
            let version = name == "GTK 3" ? "3" : "4"
            try requireConsumerPackages(version == "3" ? "gtk_follow.py" : "gtk_follow.py --gtk 4")
            let script = Repository.root.appendingPathComponent("Tests/consumers/gtk_follow.py").path
            consumer = try startProgram([Self.python, script, "--gtk", version, "--present"] + present + ["--open", "Sort By"],
                                        environment: ["DISPLAY": try display()], input: input)
        case "libdbusmenu-gtk3":
            try requireConsumerPackages("dbusmenu_gtk.py")
            let script = Repository.root.appendingPathComponent("Tests/consumers/dbusmenu_gtk.py").path
            consumer = try startProgram([Self.python, script] + present, environment: ["DISPLAY": try display()], input: input)
        case "KDE":
            consumer = try startProgram([try kdeImporter()] + present + ["--open"],
                                        environment: ["QT_QPA_PLATFORM": "offscreen"], input: input)
        default:
            throw TestFailure("no consumer \(name)")
        }
        return Follower(name: name, consumer: consumer)
    }

    /// The consumer's last TREE, checkmarks compared only when on ("[ ] x" reads "x"),
    /// as a menu draws them.
    private func shown(_ follower: Follower) -> [String: Any]? {
        guard var tree = follower.consumer.lines.last(where: { $0.tag == "TREE" })?.json else { return nil }
        tree["items"] = (tree["items"] as? [String])?.map { $0.replacingOccurrences(of: "[ ] ", with: "") }
        return tree
    }

    private func items(_ follower: Follower) -> [String]? {
        shown(follower)?["items"] as? [String]
    }

    /// Pumps `app` until every follower shows `expected` (or `timeout`).
    private func waitUntil(_ followers: [Follower], show expected: [String], pumping app: MenuBusClient,
                           timeout: Double = 20, _ step: String) {
        let done = { followers.allSatisfy { self.items($0) == expected } }
        pumpClients([app], timeout: timeout, until: done)
        for follower in followers where items(follower) != expected {
            XCTFail("\(step): \(follower.name) shows \(items(follower) ?? []), not \(expected)\n\(follower.consumer.diagnostics)")
        }
    }

    /// What a consumer printed on stderr about MenuBus's properties or calls.
    private func complaints(_ follower: Follower) -> [String] {
        follower.consumer.output.stderrText.split(separator: "\n").map(String.init).filter { line in
            ["Unhandled property", "AboutToShow() failed", "CRITICAL", "disposition", "toggle-type", "No object at path"]
                .contains { line.contains($0) }
        }
    }

    static let allFollowers = ["libdbusmenu-glib", "GDBusMenuModel", "GTK 3", "GTK 4", "libdbusmenu-gtk3", "KDE"]

    /// One Xvfb for the test's drawing consumers.
    private var xDisplay: String?
    private func display() throws -> String {
        if let xDisplay { return xDisplay }
        let started = try startXvfb()
        xDisplay = started
        return started
    }

    func testEveryConsumerFollowsACheckmarkOnOffOnAMovedRadioAndAChoiceThatEmptiesTheMenu() throws {
        let app = try app("org.example.Files")
        var chosen: [String] = []
        app.onAction = { chosen.append($0.itemId) }
        try app.publishContext("row", ContextInfo(kind: .item), items: Self.items)
        var followers: [Follower] = []
        for name in Self.allFollowers { followers.append(try follower(name)) }
        let initial = ["[x] Pin", "Sort By", "Sort By>[x] Name", "Sort By>Date", "Sort By>Size", "Rename"]
        waitUntil(followers, show: initial, pumping: app, timeout: 60, "the menu as presented")

        var current = Self.items
        current[0].state = .off
        _ = try app.updateItems("row", current)
        waitUntil(followers, show: ["Pin"] + initial.dropFirst(), pumping: app, "checkmark off")
        current[0].state = .on
        _ = try app.updateItems("row", current)
        waitUntil(followers, show: initial, pumping: app, "checkmark on again")
        current[2].state = .off
        current[4].state = .on
        _ = try app.updateItems("row", current)
        let moved = ["[x] Pin", "Sort By", "Sort By>Name", "Sort By>Date", "Sort By>[x] Size", "Rename"]
        waitUntil(followers, show: moved, pumping: app, "radio moved to Size")

        // A choice: each consumer's own menu shows empty, then goes.
        for follower in followers { follower.consumer.send("click Rename") }
        waitUntil(followers, show: [], pumping: app, "chosen: the menu is empty")
        XCTAssertEqual(chosen.filter { $0 == "rename" }.count, followers.count, "each click reached the app once")
        for follower in followers {
            XCTAssertEqual(complaints(follower), [], "\(follower.name) complained:\n\(follower.consumer.diagnostics)")
            follower.consumer.send("quit")
        }
    }

    func testAKDEMenuWithADeferredElementOpensCompleteAndStaysOpen() throws {
        let app = try app("org.example.Files")
        app.provideElements = { _, _ in [MenuElement(id: "recent-1", title: "Report.pdf")] }
        try app.publishContext("row", ContextInfo(kind: .item), items: [
            MenuElement(id: "open", title: "Open"),
            MenuElement(id: "recent", kind: .deferred, cached: false),
            MenuElement(id: "rename", title: "Rename"),
        ])
        let kde = try follower("KDE")
        // The app answers late, as a real one looking up its recent files would.
        let start = Date()
        while Date().timeIntervalSince(start) < 0.3 { usleep(20_000) }
        let complete = ["Open", "Report.pdf", "Rename"]
        pumpClients([app], timeout: 20) { self.shown(kde)?["open"] as? Bool == true }
        let trees = kde.consumer.lines.filter { $0.tag == "TREE" }.compactMap { $0.json }
        XCTAssertEqual(trees.first?["items"] as? [String], complete,
                       "the first menu shown is already complete\n\(kde.consumer.diagnostics)")
        XCTAssertEqual(trees.first?["open"] as? Bool, true)
        pumpClients([app], timeout: 1) { false }
        XCTAssertEqual(shown(kde)?["open"] as? Bool, true, "still open\n\(kde.consumer.diagnostics)")
        XCTAssertFalse(kde.consumer.lines.contains { $0.tag == "TREE" && "\($0.json ?? [:])".contains(DeferredElements.loadingTitle) },
                       "never showed Loading…")
        XCTAssertEqual(complaints(kde), [])
        kde.consumer.send("quit")
    }

    func testAnOpenGtkSubmenuStaysOpenThroughATimeoutARenameAndANewItem() throws {
        let display = try display()
        let app = try app("org.example.Files")
        try app.publishContext("row", ContextInfo(kind: .item), items: Self.items + [
            MenuElement(id: "late", kind: .deferred, cached: false),
        ])
        var gtks: [Follower] = []
        for version in ["3", "4"] {
            try requireConsumerPackages(version == "3" ? "gtk_follow.py" : "gtk_follow.py --gtk 4")
            let directory = Repository.root.appendingPathComponent("Tests/consumers")
            let consumer = try startProgram([Self.python, directory.appendingPathComponent("gtk_follow.py").path,
                                             "--gtk", version, "--present", "org.example.Files", "row", "context",
                                             "--open", "Sort By"], environment: ["DISPLAY": display], input: Pipe())
            gtks.append(Follower(name: "GTK \(version)", consumer: consumer))
        }
        func waitOpen(showing expected: [String], _ step: String, pumpApp: Bool = true) {
            let done = { gtks.allSatisfy { self.items($0) == expected && self.shown($0)?["submenu"] as? String == "Sort By" } }
            if pumpApp {
                pumpClients([app], timeout: 20, until: done)
            } else {
                _ = eventually(timeout: 20, done)
            }
            for gtk in gtks {
                XCTAssertEqual(items(gtk), expected, "\(step): \(gtk.name)\n\(gtk.consumer.diagnostics)")
                XCTAssertEqual(shown(gtk)?["submenu"] as? String, "Sort By", "\(step): \(gtk.name) kept the submenu open")
                XCTAssertEqual(shown(gtk)?["open"] as? Bool, true, "\(step): \(gtk.name) kept the menu open")
            }
        }
        let sorted = ["Sort By", "Sort By>[x] Name", "Sort By>Date", "Sort By>Size"]
        // The app does not answer: "Loading…" stands in, then times out (1 s).
        waitOpen(showing: ["[x] Pin"] + sorted + ["Rename"], "the deferred element timed out", pumpApp: false)
        var current = Self.items
        current[5].title = "Rename File"
        _ = try app.updateItems("row", current)
        waitOpen(showing: ["[x] Pin"] + sorted + ["Rename File"], "a rename beside the submenu")
        current[3].title = "Date Modified"
        _ = try app.updateItems("row", current)
        waitOpen(showing: ["[x] Pin"] + sorted.map { $0 == "Sort By>Date" ? "Sort By>Date Modified" : $0 } + ["Rename File"],
                 "a rename inside the submenu")
        current.insert(MenuElement(id: "share", title: "Share"), at: 1)
        _ = try app.updateItems("row", current)
        waitOpen(showing: ["[x] Pin", "Share"] + sorted.map { $0 == "Sort By>Date" ? "Sort By>Date Modified" : $0 }
                    + ["Rename File"], "a new item before the submenu")
        for gtk in gtks {
            XCTAssertEqual(complaints(gtk), [], "\(gtk.name) complained:\n\(gtk.consumer.diagnostics)")
            gtk.consumer.send("quit")
        }
    }

    // MARK: GTK beside GLib's own exporter

    /// GTK 3 and GTK 4 followers of one MenuBus presentation and of the same
    /// menu served by GLib's own exporter (glib_exporter.py), `open` open.
    private struct SideBySide {
        let ours: [Follower]
        let theirs: [Follower]
        let glib: Consumer
        var all: [Follower] { ours + theirs }
    }

    private static let referenceName = "org.menubus.Test.GLibExporter"

    private func sideBySide(owner: String, context: String, kind: String, reference: String,
                            open: String) throws -> SideBySide {
        for key in ["gtk_follow.py", "gtk_follow.py --gtk 4"] { try requireConsumerPackages(key) }
        let glib = try startConsumer("glib_exporter.py", [Self.referenceName, "/org/example/Reference", reference], input: Pipe())
        XCTAssertTrue(eventually(timeout: 15) { glib.count("READY") == 1 || !glib.process.isRunning }, glib.diagnostics)
        let script = Repository.root.appendingPathComponent("Tests/consumers/gtk_follow.py").path
        // A GTK 3 menu pops up with a grab: each exporter's followers get an X server of their own.
        let displays = ["MenuBus": try display(), "GLib": try startXvfb()]
        var ours: [Follower] = [], theirs: [Follower] = []
        for version in ["3", "4"] {
            for served in ["MenuBus", "GLib"] {
                let source = served == "MenuBus" ? ["--present", owner, context, kind]
                                                 : ["--reference", Self.referenceName, "/org/example/Reference"]
                let consumer = try startProgram([Self.python, script, "--gtk", version] + source + ["--open", open],
                                                environment: ["DISPLAY": displays[served]!], input: Pipe())
                let follower = Follower(name: "GTK \(version) (\(served))", consumer: consumer)
                if served == "MenuBus" { ours.append(follower) } else { theirs.append(follower) }
            }
        }
        return SideBySide(ours: ours, theirs: theirs, glib: glib)
    }

    /// Sends glib_exporter.py one change and waits for it to be made.
    private func referenceChange(_ pair: SideBySide, _ command: String) {
        let done = pair.glib.count("DONE") + 1
        pair.glib.send(command)
        XCTAssertTrue(eventually(timeout: 10) { pair.glib.count("DONE") == done || !pair.glib.process.isRunning },
                      pair.glib.diagnostics)
    }

    /// Waits until every follower shows `expected` with `open` open, then
    /// checks that no follower's submenu ever closed or turned to another
    /// page since `since` (the TREE count of each when the step began).
    private func waitSame(_ pair: SideBySide, showing expected: [String], open: String, pumping app: MenuBusClient?,
                          since: [Int], _ step: String) {
        let done = {
            pair.all.allSatisfy { self.items($0) == expected && self.shown($0)?["submenu"] as? String == open }
        }
        if let app { pumpClients([app], timeout: 20, until: done) } else { _ = eventually(timeout: 20, done) }
        for (index, follower) in pair.all.enumerated() {
            XCTAssertEqual(items(follower), expected, "\(step): \(follower.name)\n\(follower.consumer.diagnostics)")
            let trees = follower.consumer.lines.filter { $0.tag == "TREE" }.compactMap(\.json).dropFirst(since[index])
            for tree in trees {
                XCTAssertEqual(tree["submenu"] as? String, open, "\(step): \(follower.name) kept \(open) open: \(tree)")
                XCTAssertEqual(tree["open"] as? Bool, true, "\(step): \(follower.name) kept the menu open: \(tree)")
            }
        }
    }

    private func treeCounts(_ pair: SideBySide) -> [Int] { pair.all.map { $0.consumer.count("TREE") } }

    func testAnOpenGtkSubmenuStaysOpenThroughARenameADeferredFillAndATimeoutAsWithGLibsExporter() throws {
        let app = try app("org.example.Files")
        var asked: [String] = []
        app.provideElements = { _, element in
            asked.append(element)
            if element == "late" { usleep(1_300_000) }  // past the daemon's 1 s: the element times out
            return [MenuElement(id: "recent-1", title: "Report.pdf")]
        }
        try app.publishContext("row", ContextInfo(kind: .item), items: Self.items)
        let reference = """
            [{"label": "Pin", "action": "pin", "state": true},
             {"label": "Sort By", "submenu": [{"label": "Name", "action": "name", "state": true},
               {"label": "Date", "action": "date", "state": false}, {"label": "Size", "action": "size", "state": false}]},
             {"label": "Rename", "action": "rename"}]
            """.replacingOccurrences(of: "\n", with: " ")
        let pair = try sideBySide(owner: "org.example.Files", context: "row", kind: "context", reference: reference,
                                  open: "Sort By")
        let sorted = ["Sort By", "Sort By>[x] Name", "Sort By>Date", "Sort By>Size"]
        waitSame(pair, showing: ["[x] Pin"] + sorted + ["Rename"], open: "Sort By", pumping: app,
                 since: pair.all.map { _ in Int.max }, "the menu as presented")

        var current = Self.items
        var since = treeCounts(pair)
        current[5].title = "Rename File"
        _ = try app.updateItems("row", current)
        referenceChange(pair, #"{"op": "set", "path": [2], "entry": {"label": "Rename File", "action": "rename"}}"#)
        waitSame(pair, showing: ["[x] Pin"] + sorted + ["Rename File"], open: "Sort By", pumping: app, since: since,
                 "a rename beside the open submenu")

        // A deferred element the app fills: "Loading…" stands in, then the content.
        since = treeCounts(pair)
        current.append(MenuElement(id: "recent", kind: .deferred, cached: false))
        _ = try app.updateItems("row", current)
        referenceChange(pair, #"{"op": "insert", "path": [3], "entry": {"label": "Report.pdf", "action": "recent"}}"#)
        waitSame(pair, showing: ["[x] Pin"] + sorted + ["Rename File", "Report.pdf"], open: "Sort By", pumping: app,
                 since: since, "a deferred fill beside the open submenu")
        XCTAssertEqual(asked, ["recent", "recent"], "each presentation (GTK 3's, GTK 4's) asked once")

        // One the app answers too late: "Loading…" stands in, then goes.
        since = treeCounts(pair)
        current.append(MenuElement(id: "late", kind: .deferred, cached: false))
        _ = try app.updateItems("row", current)
        referenceChange(pair, #"{"op": "insert", "path": [4], "entry": {"label": "Loading…", "action": "loading"}}"#)
        let loading = ["[x] Pin"] + sorted + ["Rename File", "Report.pdf", DeferredElements.loadingTitle]
        XCTAssertTrue(eventually(timeout: 20) { pair.theirs.allSatisfy { self.items($0) == loading } },
                      "GLib's followers show the stand-in")
        referenceChange(pair, #"{"op": "remove", "path": [4]}"#)
        // The app is pumped: it answers "late" after the daemon gave up on it.
        waitSame(pair, showing: ["[x] Pin"] + sorted + ["Rename File", "Report.pdf"], open: "Sort By", pumping: app,
                 since: since, "a timed-out deferred element beside the open submenu")
        XCTAssertEqual(asked, ["recent", "recent", "late", "late"])
        for follower in pair.all {
            XCTAssertEqual(complaints(follower), [], "\(follower.name) complained:\n\(follower.consumer.diagnostics)")
            follower.consumer.send("quit")
        }
    }

    func testAnOpenGtkSubmenuStaysOpenThroughASelectionChangeAsWithGLibsExporter() throws {
        let app = try app("org.example.Editor")
        // A content type no provider takes: the menu is the system one alone, wherever the providers are installed.
        try app.publishContext("f", ContextInfo(kind: .text, contentTypes: ["application/x-example-notes"], editable: true,
                                                hasContent: true, richText: true))
        let some = Selection(kind: .range, length: 5, attributes: [.bold])
        try app.updateSelection("f", some)
        let reference = """
            [{"section": [{"label": "Cut", "action": "cut"}, {"label": "Copy", "action": "copy"},
                          {"label": "Delete", "action": "delete"}, {"label": "Select All", "action": "select-all"}]},
             {"section": [{"label": "Format", "submenu": [{"label": "Bold", "action": "bold", "state": true},
               {"label": "Italic", "action": "italic", "state": false},
               {"label": "Underline", "action": "underline", "state": false}]}]}]
            """.replacingOccurrences(of: "\n", with: " ")
        let pair = try sideBySide(owner: "org.example.Editor", context: "f", kind: "edit", reference: reference, open: "Format")
        /// GTK 3 draws sections with separators, GTK 4 without.
        func shown(_ labels: [String], gtk version: String) -> [String] {
            let format = ["Format", "Format>[x] Bold", "Format>Italic", "Format>Underline"]
            return version == "3" ? labels + ["-"] + format : labels + format
        }
        func waitBoth(_ labels: [String], since: [Int], _ step: String) {
            for version in ["3", "4"] {
                let one = SideBySide(ours: pair.ours.filter { $0.name.hasPrefix("GTK \(version)") },
                                     theirs: pair.theirs.filter { $0.name.hasPrefix("GTK \(version)") }, glib: pair.glib)
                let indices = pair.all.indices.filter { pair.all[$0].name.hasPrefix("GTK \(version)") }
                waitSame(one, showing: shown(labels, gtk: version), open: "Format", pumping: app,
                         since: indices.map { since[$0] }, "\(step) (GTK \(version))")
            }
        }
        let all = ["Cut", "Copy", "Delete", "Select All"]
        waitBoth(all, since: pair.all.map { _ in Int.max }, "the edit menu as presented")
        var since = treeCounts(pair)
        try app.updateSelection("f", Selection(kind: .all, length: 11, attributes: [.bold]))
        referenceChange(pair, #"{"op": "remove", "path": [0, 3]}"#)
        waitBoth(Array(all.dropLast()), since: since, "everything selected: Select All goes")
        since = treeCounts(pair)
        try app.updateSelection("f", some)
        referenceChange(pair, #"{"op": "insert", "path": [0, 3], "entry": {"label": "Select All", "action": "select-all"}}"#)
        waitBoth(all, since: since, "part selected again: Select All comes back")
        for follower in pair.all {
            XCTAssertEqual(complaints(follower), [], "\(follower.name) complained:\n\(follower.consumer.diagnostics)")
            follower.consumer.send("quit")
        }
    }

    func testDbusmenuDumperReadsTheLiveStateWithoutWarnings() throws {
        let dumper = "/usr/libexec/dbusmenu-dumper"
        guard FileManager.default.isExecutableFile(atPath: dumper) else {
            throw XCTSkip("no \(dumper): libdbusmenu-tools is not installed; run scripts/setup")
        }
        let app = try app("org.example.Files")
        try app.publishContext("row", ContextInfo(kind: .item), items: Self.items)
        let shell = try connect()
        let reply = try callDaemon(shell, "PresentMenu", [.string("org.example.Files"), .string("row"), .string("context"),
                                                          .array("{sv}", [])])
        guard case .objectPath(let path)? = reply.first else { return XCTFail("PresentMenu returned \(reply)") }
        func dump() throws -> Consumer {
            let run = try startProgram([dumper, "-d", MenuBusNames.busName, "-o", path.description])
            pumpClients([app], timeout: 20) { !run.process.isRunning }
            XCTAssertEqual(run.process.terminationStatus, 0, run.diagnostics)
            return run
        }
        /// The dumper's JSON-like text, spaces removed: `"label":'Pin'` … `"toggle-state":1`.
        func compact(_ run: Consumer) -> String {
            run.output.stdoutText.filter { !$0.isWhitespace }
        }
        let first = try dump()
        XCTAssertTrue(compact(first).contains(#""label":'Pin',"toggle-state":1,"toggle-type":'checkmark'"#), first.diagnostics)
        var current = Self.items
        current[0].state = .off
        _ = try app.updateItems("row", current)
        let second = try dump()
        XCTAssertTrue(compact(second).contains(#""label":'Pin',"toggle-state":0,"toggle-type":'checkmark'"#),
                      "off is toggle-state 0, the toggle kept\n\(second.diagnostics)")
        for run in [first, second] {
            XCTAssertFalse(run.output.stderrText.contains("WARNING") || run.output.stderrText.contains("CRITICAL"), run.diagnostics)
        }
    }
}
