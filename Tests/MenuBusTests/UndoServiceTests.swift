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

/// The undo service through the real menubusd: stacks, menus, isolation, and
/// a journal that survives SIGKILL.
final class UndoServiceTests: BusTestCase {
    private var stateDirectory: URL!

    override func setUpWithError() throws {
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-state-\(UUID().uuidString)")
        addTeardownBlock { [stateDirectory] in try? FileManager.default.removeItem(at: stateDirectory!) }
    }

    private func daemon() throws -> RunningProcess {
        try startDaemon(["--state-dir", stateDirectory.path])
    }

    private func writerApp() throws -> MenuBusClient {
        try app("org.example.Writer")
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func text(_ payloads: [[UInt8]]) -> [String] { payloads.map { String(decoding: $0, as: UTF8.self) } }

    func testTypingMergesAndUndoReturnsPayloadsNewestFirst() throws {
        _ = try daemon()
        let writer = try writerApp()
        for (index, letter) in ["a", "b", "c"].enumerated() {
            let count = try writer.registerUndo(document: "doc", actionName: "Typing", undo: bytes("u\(index)"),
                                                redo: bytes("r\(index)"), mergeKey: "typing")
            XCTAssertEqual(count, 1, "typing \(letter) merges into one step")
        }
        var state = try writer.undoState(document: "doc")
        XCTAssertEqual(state.undoTitle, "Undo Typing")
        XCTAssertTrue(state.canUndo)
        XCTAssertFalse(state.canRedo)
        let undo = try writer.undo(document: "doc")
        XCTAssertEqual(undo.actionName, "Typing")
        XCTAssertEqual(text(undo.payloads), ["u2", "u1", "u0"])
        state = try writer.undoState(document: "doc")
        XCTAssertEqual(state.redoTitle, "Redo Typing")
        XCTAssertEqual(state.undoCount, 0)
        let redo = try writer.redo(document: "doc")
        XCTAssertEqual(text(redo.payloads), ["r0", "r1", "r2"])
        assertBusError(BusError.Domain.nothingToRedo.errorName) { _ = try writer.redo(document: "doc") }
    }

    func testNewStepClearsRedoAndUnnamedStepsSayBareUndo() throws {
        _ = try daemon()
        let writer = try writerApp()
        try writer.registerUndo(document: "doc", actionName: "Bold", undo: [1], redo: [2])
        _ = try writer.undo(document: "doc")
        XCTAssertTrue(try writer.undoState(document: "doc").canRedo)
        try writer.registerUndo(document: "doc", actionName: "", undo: [3], redo: [4])
        let state = try writer.undoState(document: "doc")
        XCTAssertFalse(state.canRedo)
        XCTAssertEqual(state.undoTitle, "Undo")
        XCTAssertEqual(state.redoCount, 0)
    }

    func testNestedGroupsAreOneStepNamedByTheOutermost() throws {
        _ = try daemon()
        let writer = try writerApp()
        try writer.beginUndoGroup(document: "doc", actionName: "Replace All")
        try writer.registerUndo(document: "doc", actionName: "Replace", undo: [1], redo: [1])
        try writer.beginUndoGroup(document: "doc", actionName: "Inner")
        try writer.registerUndo(document: "doc", actionName: "Replace", undo: [2], redo: [2])
        try writer.endUndoGroup(document: "doc")
        try writer.endUndoGroup(document: "doc")
        let state = try writer.undoState(document: "doc")
        XCTAssertEqual(state.undoCount, 1)
        XCTAssertEqual(state.undoTitle, "Undo Replace All")
        XCTAssertEqual(try writer.undo(document: "doc").payloads, [[2], [1]])
        assertBusError(BusError.Domain.noUndoGroup.errorName) { try writer.endUndoGroup(document: "doc") }
    }

    func testCleanMarkAndLimitsAndErrors() throws {
        _ = try daemon()
        let writer = try writerApp()
        try writer.registerUndo(document: "doc", actionName: "One", undo: [1], redo: [1])
        try writer.markClean(document: "doc")
        XCTAssertTrue(try writer.undoState(document: "doc").clean)
        try writer.registerUndo(document: "doc", actionName: "Two", undo: [2], redo: [2])
        XCTAssertFalse(try writer.undoState(document: "doc").clean)
        _ = try writer.undo(document: "doc")
        XCTAssertTrue(try writer.undoState(document: "doc").clean, "undoing back to the mark is clean again")
        try writer.setUndoLimit(document: "doc", levels: 2)
        for index in 0..<5 { try writer.registerUndo(document: "doc", actionName: "Step \(index)", undo: [1], redo: [1]) }
        let state = try writer.undoState(document: "doc")
        XCTAssertEqual(state.undoCount, 2)
        XCTAssertGreaterThanOrEqual(state.dropped, 4)
        let big = [UInt8](repeating: 7, count: (1 << 20) + 1)
        let error = assertBusError(BusError.Domain.limitExceeded.errorName) {
            try writer.registerUndo(document: "doc", actionName: "Huge", undo: big, redo: [])
        }
        XCTAssertTrue(error?.message.contains("undoData") ?? false, error?.message ?? "")
        XCTAssertEqual(try writer.undoState(document: "doc").undoCount, 2, "nothing stored from the refused call")
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undoState(document: "never") }
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undo(document: "never") }
        try writer.clearUndo(document: "doc")
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undoState(document: "doc") }
    }

    func testAnotherAppNeverReachesMyDocument() throws {
        _ = try daemon()
        let writer = try app("org.example.Writer")
        let other = try app("org.example.Other")
        try writer.registerUndo(document: "doc", actionName: "Secret", undo: [1], redo: [2])
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try other.undoState(document: "doc") }
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try other.undo(document: "doc") }
        assertBusError(BusError.Domain.noSuchDocument.errorName) { try other.clearUndo(document: "doc") }
        XCTAssertEqual(try writer.undoState(document: "doc").undoCount, 1)
        let stranger = try MenuBusClient(address: try bus.address)
        assertBusError(BusError.Domain.notRegistered.errorName) { _ = try stranger.undoState(document: "doc") }
    }

    func testEditMenuShowsUndoAndChoosingItReachesTheApp() throws {
        _ = try daemon()
        let writer = try writerApp()
        try writer.publishContext("body", ContextInfo(kind: .text, editable: true, hasContent: true, document: "doc"))
        try writer.updateSelection("body", Selection(kind: .caret))
        XCTAssertNil(try writer.editMenu(contextId: "body").element("menubus:undo"))
        let presenter = try MenuBusClient(address: try bus.address)
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Writer", contextId: "body", kind: .edit)
        var states: [UndoState] = []
        try writer.observeUndoState { _, state in states.append(state) }
        try writer.registerUndo(document: "doc", actionName: "Typing", undo: [1], redo: [2], mergeKey: "t")
        XCTAssertTrue(presenter.run(until: { layouts.last?.element("menubus:undo") != nil }, timeout: 5), "the open menu updates")
        XCTAssertEqual(layouts.last?.element("menubus:undo")?.title, "Undo Typing")
        XCTAssertTrue(writer.run(until: { !states.isEmpty }, timeout: 5))
        XCTAssertEqual(states.last?.undoTitle, "Undo Typing")
        var commands: [CommandInvocation] = []
        writer.onCommand = { commands.append($0) }
        try presenter.activate(menu, itemId: "menubus:undo")
        XCTAssertTrue(writer.run(until: { !commands.isEmpty }, timeout: 5))
        XCTAssertEqual(commands.first?.command, .undo)
        XCTAssertEqual(try writer.undo(document: "doc").payloads, [[1]])
    }

    func testDocumentSurvivesItsAppLeavingAndReattaches() throws {
        _ = try daemon()
        let first = try writerApp()
        try first.registerUndo(document: "doc", actionName: "Paste", undo: [9], redo: [8])
        first.close()
        let again = try writerApp()
        XCTAssertTrue(eventually { (try? again.undoState(document: "doc").undoTitle) == "Undo Paste" })
        XCTAssertEqual(try again.stats().first { $0.name == "documents" }?.value, .uint32(1))
    }

    func testEveryAcknowledgedStepSurvivesSIGKILL() throws {
        let first = try daemon()
        let loop = MessageLoop()
        let connection = try Connection(address: try bus.address, loop: loop)
        _ = try connection.callBlocking(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                        interface: MenuBusNames.managerInterface, member: "Register",
                                        arguments: [.string("org.example.Crash"), .objectPath("/c"), .array("{sv}", [])])
        // Pipeline steps (64 in flight, under the bus's per-connection limit on
        // pending replies) and kill the daemon while replies are still coming.
        var acknowledged: [Int] = []
        var failed = 0
        let total = 3000
        var next = 0
        func send() {
            guard next < total else { return }
            let index = next
            next += 1
            let payload = DBusValue.bytes(Array("step-\(index)".utf8))
            connection.call(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                            interface: MenuBusNames.managerInterface, member: "RegisterUndo",
                            arguments: [.string("doc"), .string("Step \(index)"), payload, payload, .array("{sv}", [])],
                            timeout: 20) { result in
                if case .success = result { acknowledged.append(index) } else { failed += 1 }
                if acknowledged.count < total / 3 { send() }
            }
        }
        for _ in 0..<64 { send() }
        XCTAssertTrue(loop.run(until: { acknowledged.count >= total / 3 || failed > 0 }, timeout: 30))
        XCTAssertEqual(failed, 0)
        first.signal(SIGKILL)
        _ = try first.wait(timeout: 10)
        loop.run(until: { connection.pendingCallCount == 0 }, timeout: 10)
        let acked = Set(acknowledged)
        XCTAssertGreaterThan(acked.count, 0)
        XCTAssertLessThan(acked.count, total, "the kill landed mid-stream")
        connection.close()

        _ = try daemon()
        let writer = try app("org.example.Crash")
        let state = try writer.undoState(document: "doc")
        XCTAssertGreaterThanOrEqual(Int(state.undoCount), acked.count)
        var found: Set<Int> = []
        for _ in 0..<state.undoCount {
            let move = try writer.undo(document: "doc")
            guard move.actionName.hasPrefix("Step "), let index = Int(move.actionName.dropFirst(5)) else { continue }
            XCTAssertEqual(move.payloads, [Array("step-\(index)".utf8)], "payload of step \(index)")
            found.insert(index)
        }
        XCTAssertTrue(acked.isSubset(of: found), "missing acknowledged steps: \(acked.subtracting(found).sorted().prefix(10))")
    }

    func testATornJournalTailLoadsEverythingBeforeIt() throws {
        let first = try daemon()
        let writer = try writerApp()
        for index in 0..<10 { try writer.registerUndo(document: "doc", actionName: "Step \(index)", undo: [UInt8(index)], redo: [1]) }
        writer.close()
        first.signal(SIGTERM)
        _ = try first.wait(timeout: 10)
        let directory = stateDirectory.appendingPathComponent("undo")
        let journal = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".undo") })
        let path = directory.appendingPathComponent(journal).path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? Int) ?? 0, 0o600)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int) ?? 0, 0o700)
        let size = try XCTUnwrap(attributes[.size] as? Int)
        XCTAssertEqual(truncate(path, off_t(size - 3)), 0)
        _ = try daemon()
        let again = try writerApp()
        let state = try again.undoState(document: "doc")
        XCTAssertEqual(state.undoCount, 9, "the last, torn record is cut; the nine before it load")
        XCTAssertEqual(state.undoTitle, "Undo Step 8")
    }

    // MARK: Open groups, revisions

    private func rawUndoState(_ connection: Connection, _ document: String) throws -> [String: DBusValue] {
        let reply = try callDaemon(connection, "GetUndoState", [.string(document)])
        var result: [String: DBusValue] = [:]
        for entry in reply.first?.dictEntries ?? [] { if case .string(let key) = entry.key { result[key] = entry.value.unwrapped } }
        return result
    }

    private func register(_ connection: Connection, _ appId: String) throws {
        _ = try callDaemon(connection, "Register", [.string(appId), .objectPath("/org/example/Client"), .array("{sv}", [])])
    }

    func testAnOpenGroupIsNamedInStateAndErrorsAndEndsWhenTheAppsLastConnectionLeaves() throws {
        _ = try daemon()
        var first: Connection? = try connect()
        let second: Connection = try connect()
        try register(first!, "org.example.Grouper")
        try register(second, "org.example.Grouper")
        _ = try callDaemon(first!, "BeginUndoGroup", [.string("doc"), .string("Replace All")])
        _ = try callDaemon(first!, "RegisterUndo", [.string("doc"), .string("Replace"), .bytes([1]), .bytes([2]), .array("{sv}", [])])
        var state = try rawUndoState(second, "doc")
        XCTAssertEqual(state["group-depth"], .uint32(1))
        XCTAssertEqual(state["group-name"], .string("Replace All"))
        let refused = assertBusError(BusError.Domain.undoGroupOpen.errorName) {
            _ = try callDaemon(second, "Undo", [.string("doc")])
        }
        XCTAssertTrue(refused?.message.contains("'Replace All'") == true, refused?.message ?? "")
        assertBusError(BusError.Domain.undoGroupOpen.errorName) { _ = try callDaemon(second, "MarkClean", [.string("doc")]) }
        // One connection of the app leaving is not the app leaving.
        let probe = try connect()
        let firstName = first!.uniqueName
        first?.close()
        first = nil
        XCTAssertTrue(eventually { !nameHasOwner(probe, firstName) })
        XCTAssertEqual(try rawUndoState(second, "doc")["group-depth"], .uint32(1), "another connection of the app is still here")
        // The last one leaving ends it.
        let secondName = second.uniqueName
        second.close()
        XCTAssertTrue(eventually { !nameHasOwner(probe, secondName) })
        let later = try connect()
        try register(later, "org.example.Grouper")
        XCTAssertTrue(eventually { (try? rawUndoState(later, "doc")["group-depth"]) == .uint32(0) })
        state = try rawUndoState(later, "doc")
        XCTAssertEqual(state["can-undo"], .boolean(true), "the group became one step")
        XCTAssertEqual(state["undo-title"], .string("Undo Replace All"))
        XCTAssertEqual(state["group-name"], .string(""))
    }

    /// An app that left keeps its history on disk, not in memory (Stats
    /// shows both), and finds it again when it comes back.
    func testAnAppsHistoryLeavesMemoryWithItsLastConnectionAndStaysOnDisk() throws {
        _ = try daemon()
        let probe = try connect()
        func undoBytes() throws -> (memory: DBusValue?, disk: DBusValue?) {
            let reply = try callDaemon(probe, interface: "org.freedesktop.DBus.Properties", "Get",
                                       [.string(MenuBusNames.managerInterface), .string("Stats")])
            guard case .variant(let value)? = reply.first else { return (nil, nil) }
            let stats = try [String: DBusValue](dbusValue: value)
            return (stats["undo-memory-bytes"], stats["undo-disk-bytes"])
        }
        let writer: Connection = try connect()
        try register(writer, "org.example.Leaver")
        for step in 0..<4 {
            _ = try callDaemon(writer, "RegisterUndo", [.string("doc"), .string("Step \(step)"),
                                                       .bytes(Array(repeating: 1, count: 64 << 10)), .bytes([2]), .array("{sv}", [])])
        }
        guard case .uint64(let held)? = try undoBytes().memory else { return XCTFail("undo-memory-bytes is not a t") }
        XCTAssertGreaterThan(held, 4 * (64 << 10))
        let name = writer.uniqueName
        writer.close()
        XCTAssertTrue(eventually { !nameHasOwner(probe, name) })
        XCTAssertTrue(eventually { (try? undoBytes().memory) == .uint64(0) }, "the history left memory")
        guard case .uint64(let disk)? = try undoBytes().disk else { return XCTFail("undo-disk-bytes is not a t") }
        XCTAssertGreaterThan(disk, 4 * (64 << 10), "and stays in its journal")
        let back = try connect()
        try register(back, "org.example.Leaver")
        XCTAssertEqual(try rawUndoState(back, "doc")["undo-title"], .string("Undo Step 3"))
    }

    func testTheGroupOfTheLastConnectionEndsWhenItLeavesAndAtStart() throws {
        var daemon = try self.daemon()
        var grouper: Connection? = try connect()
        try register(grouper!, "org.example.Grouper")
        _ = try callDaemon(grouper!, "BeginUndoGroup", [.string("doc"), .string("Paste")])
        _ = try callDaemon(grouper!, "RegisterUndo", [.string("doc"), .string("Paste"), .bytes([1]), .bytes([2]), .array("{sv}", [])])
        grouper?.close()
        grouper = nil
        let reader = try connect()
        try register(reader, "org.example.Grouper")
        XCTAssertTrue(eventually { (try? rawUndoState(reader, "doc")["group-depth"]) == .uint32(0) })
        // A group open when menubusd is killed ends at the next start.
        _ = try callDaemon(reader, "BeginUndoGroup", [.string("other"), .string("Typing")])
        _ = try callDaemon(reader, "RegisterUndo", [.string("other"), .string("Typing"), .bytes([1]), .bytes([2]), .array("{sv}", [])])
        XCTAssertEqual(try rawUndoState(reader, "other")["group-depth"], .uint32(1))
        // Killed without a chance to clean up: the records are written (write(2)) already.
        daemon.signal(SIGKILL)
        _ = try daemon.wait(timeout: 5)
        daemon = try self.daemon()
        let again = try connect()
        try register(again, "org.example.Grouper")
        let state = try rawUndoState(again, "other")
        XCTAssertEqual(state["group-depth"], .uint32(0))
        XCTAssertEqual(state["undo-title"], .string("Undo Typing"))
    }

    func testRevisionsOnlyGrowAcrossRemoveAndPublish() throws {
        _ = try daemon()
        let app = try app("org.example.Reviser")
        let first = try app.publishContext("f", ContextInfo(kind: .text))
        try app.removeContext("f")
        let second = try app.publishContext("f", ContextInfo(kind: .text))
        XCTAssertGreaterThan(second, first)
        let other = try self.app("org.example.Other")
        let third = try other.publishContext("f", ContextInfo(kind: .text))
        XCTAssertGreaterThan(third, second, "one counter for the whole daemon")
        let updated = try app.updateItems("f", [])
        XCTAssertGreaterThan(updated, third)
    }

    func testAStorageFaultAnswersStorageFailedNamingTheDocumentAndIsLoggedOnce() throws {
        let daemon = try startDaemon(["--state-dir", stateDirectory.path], extraEnvironment: ["MENUBUS_UNDO_FAULTS": "write=28@1"])
        let writer = try writerApp()
        try writer.registerUndo(document: "notes", actionName: "One", undo: [1], redo: [1])
        for _ in 0..<3 {
            let error = assertBusError(BusError.Domain.storageFailed.errorName) {
                try writer.registerUndo(document: "notes", actionName: "Two", undo: [2], redo: [2])
            }
            XCTAssertTrue(error?.message.contains("'notes'") == true && error?.message.contains("No space left") == true,
                          error?.message ?? "")
        }
        XCTAssertEqual(try writer.undoState(document: "notes").undoCount, 1, "nothing refused was kept, nothing kept was lost")
        XCTAssertTrue(eventually { daemon.stderrText.contains("undo journal of org.example.Writer") }, daemon.stderrText)
        XCTAssertEqual(daemon.stderrText.components(separatedBy: "undo journal of org.example.Writer").count - 1, 1,
                       "logged once per document and cause: \(daemon.stderrText)")
    }

    /// A journal that cannot be removed (a state folder turned read-only)
    /// is not a clear: `ClearUndo` answers StorageFailed and the history is
    /// there, now and after a restart. Once the folder can be written, the
    /// clear holds across a restart.
    func testAClearThatCannotRemoveTheJournalIsRefusedAndTheHistoryStays() throws {
        let stuck = try startDaemon(["--state-dir", stateDirectory.path], extraEnvironment: ["MENUBUS_UNDO_FAULTS": "unlink=30"])
        var writer = try writerApp()
        try writer.registerUndo(document: "diary", actionName: "Secret", undo: [1], redo: [2])
        let refused = assertBusError(BusError.Domain.storageFailed.errorName) { try writer.clearUndo(document: "diary") }
        XCTAssertTrue(refused?.message.contains("'diary'") == true && refused?.message.contains("Read-only") == true,
                      refused?.message ?? "")
        XCTAssertEqual(try writer.undoState(document: "diary").undoTitle, "Undo Secret", "the history is as it was")
        writer.close()
        stuck.signal(SIGTERM)
        _ = try stuck.wait(timeout: 10)

        let restarted = try daemon()
        writer = try writerApp()
        XCTAssertEqual(try writer.undoState(document: "diary").undoCount, 1, "nothing was cleared, nothing lost")
        try writer.clearUndo(document: "diary")
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undoState(document: "diary") }
        writer.close()
        restarted.signal(SIGTERM)
        _ = try restarted.wait(timeout: 10)

        _ = try daemon()
        writer = try writerApp()
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undoState(document: "diary") }
    }

    /// With an undo folder that cannot be made, a document that has no
    /// history is no such document for Undo and Redo; a new step is the
    /// storage failure.
    func testUndoOfAnUnknownDocumentIsNoSuchDocumentWhenTheFolderCannotBeMade() throws {
        _ = try startDaemon(["--state-dir", stateDirectory.path], extraEnvironment: ["MENUBUS_UNDO_FAULTS": "mkdir=30"])
        let writer = try writerApp()
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.undo(document: "never") }
        assertBusError(BusError.Domain.noSuchDocument.errorName) { _ = try writer.redo(document: "never") }
        assertBusError(BusError.Domain.storageFailed.errorName) {
            try writer.registerUndo(document: "never", actionName: "One", undo: [1], redo: [1])
        }
    }

    func testAnotherAppIsAnsweredWhileAStepIsWrittenAndTheDocumentsNextCallWaitsForIt() throws {
        // Every journal write after the first (which creates the journal) takes 3 s.
        _ = try startDaemon(["--state-dir", stateDirectory.path], extraEnvironment: ["MENUBUS_UNDO_FAULTS": "write=+3000@1"])
        let loop = MessageLoop()
        let writer = try Connection(address: try bus.address, loop: loop)
        defer { writer.close() }
        func call(_ member: String, _ arguments: [DBusValue], _ completion: @escaping Connection.Completion) {
            writer.call(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                        interface: MenuBusNames.managerInterface, member: member, arguments: arguments,
                        timeout: 20, completion: completion)
        }
        _ = try writer.callBlocking(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                    interface: MenuBusNames.managerInterface, member: "Register",
                                    arguments: [.string("org.example.Writer"), .objectPath("/w"), .array("{sv}", [])])
        func step(_ name: String) -> [DBusValue] {
            [.string("notes"), .string(name), .bytes([1]), .bytes([2]), .array("{sv}", [])]
        }
        _ = try writer.callBlocking(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                    interface: MenuBusNames.managerInterface, member: "RegisterUndo", arguments: step("One"))
        var answers: [String] = []
        call("RegisterUndo", step("Two")) { result in
            answers.append((try? result.get()) == [.uint32(2)] ? "two" : "two failed: \(result)")
        }
        call("GetUndoState", [.string("notes")]) { result in
            let state = (try? result.get())?.first?.dictEntries?.first { $0.key == .string("undo-count") }?.value
            answers.append("state \(state.map { "\($0)" } ?? "failed: \(result)")")
        }
        writer.flush()
        // Another app is served while the write is slow.
        let reader = try app("org.example.Reader")
        XCTAssertFalse(try reader.stats().isEmpty)
        loop.run(until: { !answers.isEmpty }, timeout: 0.05)
        XCTAssertEqual(answers, [], "the writer is not answered before its step is written")
        XCTAssertTrue(loop.run(until: { answers.count == 2 }, timeout: 20))
        XCTAssertEqual(answers, ["two", "state \(DBusValue.variant(.uint32(2)))"],
                       "the document's next call waited for the write and sees the step")
    }

    // MARK: Lazy loading and the undo budgets

    func testAnUnreadableJournalOfAnotherDocumentAffectsNeitherStartNorOtherDocuments() throws {
        let first = try daemon()
        let writer = try writerApp()
        for index in 0..<3 { try writer.registerUndo(document: "good", actionName: "Step \(index)", undo: [UInt8(index)], redo: [9]) }
        try writer.registerUndo(document: "bad", actionName: "Lost", undo: [1], redo: [1])
        writer.close()
        first.signal(SIGTERM)
        _ = try first.wait(timeout: 10)
        // bad's journal becomes a directory: read(2) fails with EISDIR.
        let directory = stateDirectory.appendingPathComponent("undo")
        let bad = directory.appendingPathComponent(UndoFileName.name(for: try UndoDocumentKey(appId: "org.example.Writer", documentId: "bad")))
        try FileManager.default.removeItem(at: bad)
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: false)

        let second = try daemon()
        let again = try writerApp()
        XCTAssertEqual(try again.undoState(document: "good").undoCount, 3)
        XCTAssertEqual(try again.undo(document: "good"), UndoMove(actionName: "Step 2", payloads: [[2]]))
        let error = assertBusError(BusError.Domain.storageFailed.errorName) { _ = try again.undoState(document: "bad") }
        XCTAssertTrue(error?.message.contains("'bad'") == true, error?.message ?? "")
        try again.registerUndo(document: "good", actionName: "Step 3", undo: [3], redo: [9])
        XCTAssertEqual(try again.undoState(document: "good").undoCount, 3)
        XCTAssertTrue(eventually { second.stderrText.contains("read on first use") }, second.stderrText)
    }

    func testUndoBudgetsDropStacksFromMemoryKeepingEveryStepAndRefuseNewStepsOverTheDiskBudget() throws {
        _ = try startDaemon(["--state-dir", stateDirectory.path, "--undo-memory-budget", "1", "--undo-disk-budget", "4"])
        let writer = try writerApp()
        func payload(_ document: Int, _ step: Int) -> [UInt8] {
            (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &+ document &* 13 &+ step &* 5) }
        }
        // Four documents of two 400 KiB steps each: 3.2 MiB against a 1 MiB memory budget.
        for document in 0..<4 {
            for step in 0..<2 {
                try writer.registerUndo(document: "doc-\(document)", actionName: "Step \(step)",
                                        undo: payload(document, step), redo: payload(document, step).reversed())
            }
        }
        for document in 0..<4 {
            for step in (0..<2).reversed() {
                XCTAssertEqual(try writer.undo(document: "doc-\(document)"),
                               UndoMove(actionName: "Step \(step)", payloads: [payload(document, step)]), "doc-\(document)")
            }
            XCTAssertEqual(try writer.redo(document: "doc-\(document)").payloads, [payload(document, 0).reversed()])
        }
        // About 3.2 MiB are on disk: the next 400 KiB steps pass 4 MiB.
        var refusal: BusError?
        for step in 0..<4 where refusal == nil {
            do {
                try writer.registerUndo(document: "more", actionName: "More \(step)", undo: payload(9, step), redo: payload(9, step))
            } catch let error as BusError {
                refusal = error
            }
        }
        let error = try XCTUnwrap(refusal)
        XCTAssertEqual(error.name, BusError.Domain.limitExceeded.errorName)
        XCTAssertTrue(error.message.contains("undo bytes on disk") && error.message.contains("--undo-disk-budget"), error.message)
        for document in 0..<4 {
            XCTAssertEqual(try writer.undoState(document: "doc-\(document)").undoCount, 1, "nothing stored was lost")
        }
    }

    func testHelpNamesTheUndoBudgetsAndTheirDefaultsAndRefusesBadValues() throws {
        let help = try bus.run("menubusd", ["--help"])
        XCTAssertTrue(help.stdout.contains("--undo-memory-budget MIB"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(default 256)"), help.stdout)
        XCTAssertTrue(help.stdout.contains("--undo-disk-budget MIB"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(default 2048)"), help.stdout)
        for bad in [["--undo-memory-budget", "0"], ["--undo-disk-budget", "x"], ["--undo-disk-budget"]] {
            let run = try bus.run("menubusd", bad)
            XCTAssertEqual(run.status, 2, "\(bad)")
            XCTAssertTrue(run.stderr.contains(bad[0]), run.stderr)
        }
    }
}
