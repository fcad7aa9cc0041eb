import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// The journal through the store: what is written reloads exactly, and
/// damage loads everything before it.
final class UndoJournalTests: XCTestCase {
    let app = "org.example.Editor"
    let document = "doc-1"

    private func key(_ document: String = "doc-1") throws -> UndoDocumentKey {
        try UndoDocumentKey(appId: app, documentId: document)
    }

    /// A varied, valid sequence of operations: merged typing, groups
    /// (nested, some empty), undo and redo, clean marks, a limit.
    private func operations(count: Int, seed: UInt64 = 7) -> [UndoOperation] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var reference = UndoStack()
        var result: [UndoOperation] = []
        while result.count < count {
            let payload = (0..<next(40)).map { _ in UInt8(next(256)) }
            let candidates: [UndoOperation] = [
                .register(actionName: "Typing", undo: payload, redo: payload.reversed(), mergeKey: "typing"),
                .register(actionName: "Typing", undo: payload, redo: payload.reversed(), mergeKey: "typing"),
                .register(actionName: "Paste", undo: payload, redo: [], mergeKey: ""),
                .register(actionName: "", undo: [], redo: payload, mergeKey: "x"),
                .beginGroup(actionName: "Group \(next(5))"),
                .endGroup, .endGroup,
                .undo, .undo, .redo,
                .markClean,
                .setLimit(levels: next(4) == 0 ? 0 : 20 + next(20)),
            ]
            let operation = candidates[next(candidates.count)]
            do {
                try reference.perform(operation)
                result.append(operation)
            } catch {
                continue
            }
        }
        return result
    }

    private func stack(after operations: some Sequence<UndoOperation>) throws -> UndoStack {
        var stack = UndoStack()
        for operation in operations { try stack.perform(operation) }
        return stack
    }

    @discardableResult
    private func perform(_ operations: [UndoOperation], in store: UndoStore, document: String = "doc-1",
                         now: Int64 = Time.start) throws -> UndoStore.Outcome? {
        var last: UndoStore.Outcome?
        for operation in operations {
            last = try store.perform(operation, appId: app, documentId: document, now: now)
        }
        return last
    }

    private func reloaded(_ directory: TemporaryDirectory, limits: UndoLimits = UndoLimits()) -> (UndoStore, UndoLoadReport) {
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        return (store, store.loadAll())
    }

    /// Offsets where each record starts, and the file's end.
    private func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        while case let .record(body) = UndoRecord.frame(in: bytes, at: offset) {
            offsets.append(offset)
            offset = body.upperBound
        }
        return offsets
    }

    // MARK: Round trip

    func testReloadRebuildsAnEqualStackWithEqualPayloads() throws {
        let directory = try TemporaryDirectory()
        let operations = operations(count: 600)
        let store = UndoStore(stateDirectory: directory.path)
        XCTAssertEqual(store.loadAll(), UndoLoadReport())
        try perform(operations, in: store)
        let expected = try stack(after: operations)
        XCTAssertEqual(store.documents[try key()]?.stack, expected)

        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.documents, [try key()])
        XCTAssertEqual(report.findings, [])
        var loaded = try XCTUnwrap(again.documents[try key()]?.stack)
        XCTAssertEqual(loaded, expected)
        var reference = expected
        while reference.groupDepth > 0 {
            try reference.endGroup()
            try loaded.endGroup()
        }
        while reference.state.canUndo { XCTAssertEqual(try loaded.undo(), try reference.undo()) }
        while reference.state.canRedo { XCTAssertEqual(try loaded.redo(), try reference.redo()) }
        XCTAssertEqual(loaded, reference)
    }

    func testEveryKindOfOperationSurvivesAReload() throws {
        let directory = try TemporaryDirectory()
        let operations: [UndoOperation] = [
            .setLimit(levels: 3),
            .register(actionName: "Typing", undo: [1], redo: [2], mergeKey: "t"),
            .register(actionName: "Typing", undo: [3], redo: [4], mergeKey: "t"),
            .markClean,
            .beginGroup(actionName: "Outer"), .beginGroup(actionName: "Inner"),
            .register(actionName: "x", undo: [5], redo: [6], mergeKey: "t"),
            .endGroup, .endGroup,
            .register(actionName: "B", undo: [], redo: [], mergeKey: ""),
            .register(actionName: "C", undo: [], redo: [], mergeKey: ""),
            .undo, .undo, .redo,
            .beginGroup(actionName: "Open at the crash"),
            .register(actionName: "y", undo: [7], redo: [8], mergeKey: ""),
        ]
        try perform(operations, in: UndoStore(stateDirectory: directory.path))
        let (store, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        let loaded = try XCTUnwrap(store.documents[try key()]?.stack)
        XCTAssertEqual(loaded, try stack(after: operations))
        XCTAssertEqual(loaded.groupNames, ["Open at the crash"])
        XCTAssertEqual(loaded.state.dropped, 1)
        try perform([.endGroup], in: store)
        XCTAssertEqual(store.state(appId: app, documentId: document)?.undoTitle, "Undo Open at the crash")
    }

    func testClearSurvivesAReload() throws {
        let directory = try TemporaryDirectory()
        try perform([.register(actionName: "A", undo: [1], redo: [1], mergeKey: ""), .clear], in: UndoStore(stateDirectory: directory.path))
        let (store, _) = reloaded(directory)
        XCTAssertEqual(store.documents[try key()]?.stack, UndoStack())
    }

    func testEveryAcknowledgedOperationIsInTheFileBeforePerformReturns() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        _ = store.loadAll()
        var sizes: [Int] = []
        for index in 0..<5 {
            try store.perform(.register(actionName: "S", undo: [UInt8(index)], redo: [], mergeKey: ""),
                              appId: app, documentId: document, now: Time.start)
            // Another reader sees the record at once: it is in the kernel, not in a buffer of ours.
            let name = try XCTUnwrap(directory.journalNames().first)
            sizes.append(try directory.size(of: name))
            let replay = UndoJournal.replay(try directory.bytes(of: name), limits: UndoLimits())
            XCTAssertEqual(replay.stack.undoCount, index + 1)
            XCTAssertEqual(replay.ending, .complete)
        }
        XCTAssertEqual(sizes, sizes.sorted())
        XCTAssertTrue(store.hasUnsyncedWrites)
        XCTAssertTrue(store.sync())
        XCTAssertFalse(store.hasUnsyncedWrites)
    }

    func testRefusedOperationsWriteNothing() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        try perform([.register(actionName: "A", undo: [1], redo: [1], mergeKey: "")], in: store)
        let name = try XCTUnwrap(directory.journalNames().first)
        let size = try directory.size(of: name)
        XCTAssertThrowsError(try perform([.redo], in: store))
        XCTAssertThrowsError(try perform([.endGroup], in: store))
        XCTAssertThrowsError(try perform([.register(actionName: "", undo: [UInt8](repeating: 0, count: 2 << 20),
                                                    redo: [], mergeKey: "")], in: store))
        XCTAssertThrowsError(try perform([.undo], in: store, document: "never-created"))
        XCTAssertEqual(try directory.size(of: name), size)
        XCTAssertEqual(try directory.journalNames(), [name])
    }

    // MARK: Damage

    func testTornLastRecordIsCutAndEverythingBeforeItLoads() throws {
        let directory = try TemporaryDirectory()
        let operations = operations(count: 200, seed: 3)
            + [.register(actionName: "Last", undo: [1, 2, 3], redo: [4, 5, 6], mergeKey: "")]
        try perform(operations, in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        let bytes = try directory.bytes(of: name)
        let offsets = recordOffsets(bytes)
        XCTAssertEqual(offsets.count, 2 + operations.count, "header, touched, one record an operation")
        let lastStart = try XCTUnwrap(offsets.last)
        for cut in [1, 3, 11, 12, 13, 20, bytes.count - lastStart - 1] {
            let kept = bytes.count - cut
            try directory.write(Array(bytes[..<kept]), to: name)
            let (store, report) = reloaded(directory)
            XCTAssertEqual(report.findings.map(\.kind), [.tornTail(bytesCut: kept - lastStart)], "cut \(cut)")
            XCTAssertEqual(store.documents[try key()]?.stack, try stack(after: operations.dropLast()), "cut \(cut)")
            XCTAssertEqual(try directory.size(of: name), lastStart, "the file ends at the last good record")
            store.close()
            try directory.write(bytes, to: name)
        }
    }

    func testAppendingAfterACutTailReloadsCleanly() throws {
        let directory = try TemporaryDirectory()
        let operations = operations(count: 50, seed: 5)
        try perform(operations, in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        let bytes = try directory.bytes(of: name)
        try directory.write(Array(bytes.dropLast(2)), to: name)
        let (store, _) = reloaded(directory)
        let more: [UndoOperation] = [.register(actionName: "After", undo: [9], redo: [9], mergeKey: "")]
        try perform(more, in: store)
        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(again.documents[try key()]?.stack, try stack(after: operations.dropLast() + more))
    }

    func testZeroFilledTailIsATornTail() throws {
        let directory = try TemporaryDirectory()
        let operations = operations(count: 30, seed: 11)
        try perform(operations, in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        let bytes = try directory.bytes(of: name)
        try directory.write(bytes + [UInt8](repeating: 0, count: 4096), to: name)
        let (store, report) = reloaded(directory)
        XCTAssertEqual(report.findings.map(\.kind), [.tornTail(bytesCut: 4096)])
        XCTAssertEqual(store.documents[try key()]?.stack, try stack(after: operations))
        XCTAssertEqual(try directory.size(of: name), bytes.count)
    }

    func testFlippedByteInTheMiddleStopsLoadingThereAndKeepsTheFile() throws {
        let directory = try TemporaryDirectory()
        let operations = operations(count: 300, seed: 13)
        try perform(operations, in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        let bytes = try directory.bytes(of: name)
        let offsets = recordOffsets(bytes)
        for damaged in [2, 150, 2 + operations.count - 2] {
            for position in [0, 5, 9, 13] {   // length, its complement, the checksum, the body
                let start = offsets[damaged]
                let end = damaged + 1 < offsets.count ? offsets[damaged + 1] : bytes.count
                let index = min(start + position, end - 1)
                var flipped = bytes
                flipped[index] ^= 0x10
                try directory.write(flipped, to: name)
                let (store, report) = reloaded(directory)
                let finding = try XCTUnwrap(report.findings.first)
                guard case let .damaged(offset, notLoaded, _) = finding.kind else {
                    XCTFail("record \(damaged) byte \(position): \(finding)")
                    continue
                }
                XCTAssertEqual(offset, start)
                XCTAssertEqual(notLoaded, bytes.count - start)
                XCTAssertEqual(finding.recordsLoaded, damaged)
                let loadedOperations = operations.prefix(damaged - 2)
                XCTAssertEqual(store.documents[try key()]?.stack, try stack(after: loadedOperations),
                               "record \(damaged) byte \(position)")
                XCTAssertEqual(try directory.bytes(of: name + ".damaged"), flipped, "the damaged file is kept")
                store.close()
                let (again, cleanReport) = reloaded(directory)
                XCTAssertEqual(cleanReport.findings, [], "the journal was rewritten from what loaded")
                XCTAssertEqual(again.documents[try key()]?.stack, try stack(after: loadedOperations))
                again.close()
                try directory.write(bytes, to: name)
            }
        }
    }

    func testDamagedSnapshotKeepsTheStepsBeforeTheDamage() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        for index in 0..<10 {
            try perform([.register(actionName: "S\(index)", undo: [UInt8(index)], redo: [], mergeKey: "")], in: store)
        }
        try perform([.undo, .undo, .undo], in: store)
        let document = try XCTUnwrap(store.documents[try key()])
        try document.journal.rewrite(document)
        store.close()
        let name = try XCTUnwrap(directory.journalNames().first)
        var bytes = try directory.bytes(of: name)
        let offsets = recordOffsets(bytes)
        XCTAssertEqual(offsets.count, 3 + 10)
        bytes[offsets[3 + 8] + 20] ^= 0xFF     // the ninth step, a redo step
        try directory.write(bytes, to: name)
        let (loaded, report) = reloaded(directory)
        XCTAssertEqual(report.findings.first?.recordsLoaded, 3 + 8)
        let stack = try XCTUnwrap(loaded.documents[try key()]?.stack)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), (0..<8).map { "S\($0)" })
        XCTAssertEqual(stack.undoCount, 7)
        XCTAssertEqual(stack.redoCount, 1)
    }

    func testUnreadableHeaderLeavesTheFileAlone() throws {
        let directory = try TemporaryDirectory()
        try perform([.register(actionName: "A", undo: [1], redo: [1], mergeKey: "")], in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        var bytes = try directory.bytes(of: name)
        bytes[UndoRecord.frameBytes + 2] ^= 0x01     // inside the magic
        try directory.write(bytes, to: name)
        let (store, report) = reloaded(directory)
        XCTAssertEqual(report.documents, [])
        guard case .unreadable = report.findings.first?.kind else { return XCTFail("\(report)") }
        XCTAssertEqual(try directory.bytes(of: name), bytes)
        try perform([.register(actionName: "B", undo: [], redo: [], mergeKey: "")], in: store)
        XCTAssertEqual(try directory.journalNames().count, 2, "a new journal never takes the unreadable one's name")
    }

    func testFileTornBeforeItsFirstOperationIsRemoved() throws {
        let directory = try TemporaryDirectory()
        try perform([.register(actionName: "A", undo: [1], redo: [1], mergeKey: "")], in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        let bytes = try directory.bytes(of: name)
        try directory.write(Array(bytes.prefix(7)), to: name)
        let (store, report) = reloaded(directory)
        XCTAssertEqual(report.findings.map(\.kind), [.discarded])
        XCTAssertEqual(store.documentCount, 0)
        XCTAssertEqual(try directory.journalNames(), [])
    }

    func testLeftoverTemporaryFileIsRemovedAtLoad() throws {
        let directory = try TemporaryDirectory()
        try perform([.register(actionName: "A", undo: [1], redo: [1], mergeKey: "")], in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        try directory.write([1, 2, 3], to: name + ".tmp")
        let (store, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(store.documentCount, 1)
        XCTAssertEqual(try directory.journalNames(), [name])
    }

    // MARK: Compaction

    func testCompactionKeepsTheStateAndShrinksTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        var operations: [UndoOperation] = []
        for index in 0..<200 {
            operations.append(.register(actionName: "Step", undo: [UInt8](repeating: UInt8(index), count: 100),
                                        redo: [], mergeKey: ""))
        }
        for _ in 0..<5_000 { operations += [.undo, .redo] }
        var largest = 0
        for operation in operations {
            try store.perform(operation, appId: app, documentId: document, now: Time.start)
            largest = max(largest, try XCTUnwrap(store.documents[try key()]).journal.size)
        }
        let live = try XCTUnwrap(store.documents[try key()]).stack.totalBytes
        let name = try XCTUnwrap(directory.journalNames().first)
        let size = try directory.size(of: name)
        XCTAssertLessThanOrEqual(largest, UndoStore.compactionFactor * live + UndoStore.compactionSlackBytes + 64)
        XCTAssertLessThan(size, 10_000 * 13, "10,000 undo and redo records would take 130 kB")
        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(again.documents[try key()]?.stack, try stack(after: operations))
    }

    func testCompactionOfTypingIntoOneStepShrinksTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let typing = UndoOperation.register(actionName: "Typing", undo: [8], redo: [97], mergeKey: "typing")
        for _ in 0..<20_000 { try perform([typing], in: store) }
        let name = try XCTUnwrap(directory.journalNames().first)
        XCTAssertLessThan(try directory.size(of: name), 20_000 * typing.recordBytes)
        let (again, _) = reloaded(directory)
        XCTAssertEqual(again.documents[try key()]?.stack, try stack(after: repeatElement(typing, count: 20_000)))
        XCTAssertEqual(again.state(appId: app, documentId: document)?.undoCount, 1)
    }

    func testSnapshotKeepsAnOpenGroupAndTheCounters() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let operations: [UndoOperation] = [
            .setLimit(levels: 2),
            .register(actionName: "A", undo: [1], redo: [], mergeKey: ""),
            .register(actionName: "B", undo: [2], redo: [], mergeKey: ""),
            .register(actionName: "C", undo: [3], redo: [], mergeKey: ""),
            .markClean, .undo,
            .beginGroup(actionName: "G"), .beginGroup(actionName: "H"),
            .register(actionName: "", undo: [4], redo: [5], mergeKey: ""),
        ]
        try perform(operations, in: store)
        let document = try XCTUnwrap(store.documents[try key()])
        try document.journal.rewrite(document)
        try perform([.register(actionName: "", undo: [6], redo: [7], mergeKey: "")], in: store)
        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(again.documents[try key()]?.stack,
                       try stack(after: operations + [.register(actionName: "", undo: [6], redo: [7], mergeKey: "")]))
    }

    func testReloadUnderALowerQuotaDropsTheOldestSteps() throws {
        let directory = try TemporaryDirectory()
        try perform((0..<10).map { _ in .register(actionName: "S", undo: [UInt8](repeating: 0, count: 1_000), redo: [], mergeKey: "") },
                    in: UndoStore(stateDirectory: directory.path))
        let (store, _) = reloaded(directory, limits: UndoLimits(bytesPerDocument: 5_000))
        let state = try XCTUnwrap(store.state(appId: app, documentId: document))
        XCTAssertEqual(state.undoCount, 4)
        XCTAssertEqual(state.dropped, 6)
    }

    // MARK: Files

    func testFilesArePrivateToTheUserWhateverTheUmask() throws {
        let directory = try TemporaryDirectory()
        let old = umask(0)
        defer { umask(old) }
        let state = directory.path + "/state/menubus"
        let store = UndoStore(stateDirectory: state)
        _ = store.loadAll()
        try store.perform(.register(actionName: "A", undo: [1], redo: [1], mergeKey: ""), appId: app, documentId: document, now: Time.start)
        XCTAssertEqual(UndoFiles.mode(directory.path + "/state"), 0o700)
        XCTAssertEqual(UndoFiles.mode(state), 0o700)
        XCTAssertEqual(UndoFiles.mode(state + "/undo"), 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: state + "/undo")
        XCTAssertEqual(names.count, 1)
        for name in names { XCTAssertEqual(UndoFiles.mode(state + "/undo/" + name), 0o600) }
        let document = try XCTUnwrap(store.documents[try key()])
        try document.journal.rewrite(document)
        for name in try FileManager.default.contentsOfDirectory(atPath: state + "/undo") {
            XCTAssertEqual(UndoFiles.mode(state + "/undo/" + name), 0o600, "after compaction too")
        }
    }

    func testAnExistingJournalDirectoryIsMadePrivate() throws {
        let directory = try TemporaryDirectory()
        XCTAssertEqual(mkdir(directory.undoDirectory, 0o755), 0)
        chmod(directory.undoDirectory, 0o755)
        _ = UndoStore(stateDirectory: directory.path).loadAll()
        XCTAssertEqual(UndoFiles.mode(directory.undoDirectory), 0o700)
    }

    func testOddIdsMapToSafeFileNamesAndLoadBackExactly() throws {
        let directory = try TemporaryDirectory()
        let ids: [(String, String)] = [
            (app, "../../etc/passwd"), (app, "a/b/c"), (app, "."), (app, ".."), (app, ".hidden"),
            (app, "naïve résumé ✓ 文書 🙂"), (app, "nul\u{0}inside"), (app, "new\nline"),
            (app, String(repeating: "x", count: UndoLimits.maxDocumentIdBytes)),
            ("../../evil/app", "doc"), (".app", "doc"), ("app with spaces/ünïcødé", "doc"),
            (String(repeating: "a", count: Limits.maxAppIdBytes), "doc"),
        ]
        let store = UndoStore(stateDirectory: directory.path)
        for (index, (appId, documentId)) in ids.enumerated() {
            try store.perform(.register(actionName: "S", undo: [UInt8(index)], redo: [], mergeKey: ""),
                              appId: appId, documentId: documentId, now: Time.start)
        }
        let names = try directory.journalNames()
        XCTAssertEqual(names.count, ids.count)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        for name in names {
            XCTAssertTrue(name.utf8.allSatisfy(allowed.contains), name)
            XCTAssertLessThanOrEqual(name.utf8.count, 100)
            XCTAssertFalse(name.hasPrefix("."), name)
            XCTAssertTrue(name.hasSuffix(".undo"))
        }
        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.findings, [])
        for (index, (appId, documentId)) in ids.enumerated() {
            var stack = try XCTUnwrap(again.documents[try UndoDocumentKey(appId: appId, documentId: documentId)]?.stack)
            XCTAssertEqual(try stack.undo().payloads, [[UInt8(index)]])
        }
    }

    func testCollidingFileNamesAreProbedAndTheHeaderDecides() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        _ = store.loadAll()
        // Someone else's file already has the name this document's hash gives.
        let taken = UndoFileName.name(for: try key("a"))
        try directory.write([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], to: taken)
        try perform([.register(actionName: "A", undo: [1], redo: [], mergeKey: "")], in: store, document: "a")
        try perform([.register(actionName: "B", undo: [2], redo: [], mergeKey: "")], in: store, document: "b")
        XCTAssertTrue(try directory.journalNames().contains(UndoFileName.name(for: try key("a"), probe: 1)))
        XCTAssertEqual(try directory.bytes(of: taken), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        let (again, report) = reloaded(directory)
        XCTAssertEqual(report.documents, [try key("a"), try key("b")])
        XCTAssertEqual(again.state(appId: app, documentId: "a")?.undoActionName, "A")
    }

    // MARK: Store

    func testOperationsThatNeedADocumentAnswerNoSuchDocument() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        for operation in [UndoOperation.undo, .redo, .endGroup, .clear] {
            XCTAssertThrowsError(try store.perform(operation, appId: app, documentId: "none", now: Time.start)) {
                XCTAssertEqual(($0 as? UndoError)?.kind, .noSuchDocument)
            }
        }
        XCTAssertNil(store.state(appId: app, documentId: "none"))
        XCTAssertEqual(store.documentCount, 0)
        for operation in [UndoOperation.markClean, .setLimit(levels: 3), .beginGroup(actionName: "G"),
                          .register(actionName: "", undo: [], redo: [], mergeKey: "")] {
            XCTAssertNoThrow(try store.perform(operation, appId: app, documentId: "\(operation)", now: Time.start))
        }
        XCTAssertEqual(store.documentCount, 4)
    }

    func testEmptyAndOverlongIdsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let register = UndoOperation.register(actionName: "", undo: [], redo: [], mergeKey: "")
        XCTAssertThrowsError(try store.perform(register, appId: app, documentId: "", now: 0)) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .invalidArgument)
        }
        XCTAssertThrowsError(try store.perform(register, appId: app, documentId: String(repeating: "d", count: 4097), now: 0)) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.documentIdBytes))
        }
    }

    func testDocumentsPerAppAreBounded() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let register = UndoOperation.register(actionName: "", undo: [], redo: [], mergeKey: "")
        for index in 0..<UndoLimits.maxDocumentsPerApp {
            try store.perform(register, appId: app, documentId: "d\(index)", now: Time.start)
        }
        XCTAssertThrowsError(try store.perform(register, appId: app, documentId: "one more", now: Time.start)) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.documentsPerApp))
            XCTAssertTrue("\($0)".contains("documents per app"))
        }
        XCTAssertNoThrow(try store.perform(register, appId: "org.example.Other", documentId: "d0", now: Time.start))
        XCTAssertNoThrow(try store.perform(register, appId: app, documentId: "d0", now: Time.start), "existing documents still work")
        XCTAssertTrue(try store.remove(appId: app, documentId: "d0"))
        XCTAssertNoThrow(try store.perform(register, appId: app, documentId: "one more", now: Time.start))
        XCTAssertEqual(try directory.journalNames().count, UndoLimits.maxDocumentsPerApp + 1)
        XCTAssertTrue(store.sync(), "descriptors beyond the open bound were closed and reopened to sync")
    }

    func testOutcomeCarriesTheMoveAndSaysWhetherTheStateChanged() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let typing = UndoOperation.register(actionName: "Typing", undo: [1], redo: [2], mergeKey: "t")
        let first = try XCTUnwrap(try perform([typing], in: store))
        XCTAssertTrue(first.stateChanged)
        XCTAssertEqual(first.state.undoCount, 1)
        XCTAssertNil(first.move)
        XCTAssertFalse(try XCTUnwrap(try perform([typing], in: store)).stateChanged, "a merge changes no state")
        let undo = try XCTUnwrap(try perform([.undo], in: store))
        XCTAssertEqual(undo.move, UndoStack.Move(actionName: "Typing", payloads: [[1], [1]]))
        XCTAssertTrue(undo.stateChanged)
        XCTAssertEqual(undo.state.redoTitle, "Redo Typing")
    }

    func testRetentionRemovesDocumentsUntouchedForTheirAgeAndTheirFiles() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let register = UndoOperation.register(actionName: "", undo: [], redo: [], mergeKey: "")
        try store.perform(register, appId: app, documentId: "old", now: Time.start)
        try store.perform(register, appId: app, documentId: "recent", now: Time.start)
        try store.perform(register, appId: app, documentId: "recent", now: Time.start + 20 * Time.day)
        XCTAssertEqual(store.removeUntouched(olderThanSeconds: 30 * Time.day, now: Time.start + 29 * Time.day), 0)
        XCTAssertEqual(store.removeUntouched(olderThanSeconds: 30 * Time.day, now: Time.start + 30 * Time.day), 1)
        XCTAssertNil(store.state(appId: app, documentId: "old"))
        XCTAssertEqual(store.documentIds(of: app), ["recent"])
        XCTAssertEqual(try directory.journalNames().count, 1)
        let (again, _) = reloaded(directory)
        XCTAssertEqual(again.documentIds(of: app), ["recent"])
        XCTAssertEqual(again.documents[try key("recent")]?.lastTouched, Time.start + 20 * Time.day,
                       "the time of the last operation survives a restart")
        XCTAssertEqual(again.removeUntouched(olderThanSeconds: 30 * Time.day, now: Time.start + 50 * Time.day), 1)
        XCTAssertEqual(again.documentCount, 0)
    }

    func testTouchedTimeIsJournaledToTheHour() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let register = UndoOperation.register(actionName: "", undo: [], redo: [], mergeKey: "")
        try perform([register], in: store, now: Time.start)
        try perform([register], in: store, now: Time.start + 600)
        let (again, _) = reloaded(directory)
        XCTAssertEqual(again.documents[try key()]?.lastTouched, Time.start, "ten minutes later is not journaled")
        try perform([register], in: again, now: Time.start + 3_600)
        let (third, _) = reloaded(directory)
        XCTAssertEqual(third.documents[try key()]?.lastTouched, Time.start + 3_600)
    }

    func testRemoveForgetsTheDocumentAndItsFiles() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        try perform([.register(actionName: "A", undo: [1], redo: [], mergeKey: "")], in: store)
        XCTAssertTrue(try store.remove(appId: app, documentId: document))
        XCTAssertFalse(try store.remove(appId: app, documentId: document))
        XCTAssertNil(store.state(appId: app, documentId: document))
        XCTAssertEqual(try directory.journalNames(), [])
        XCTAssertTrue(store.sync())
        try perform([.register(actionName: "B", undo: [2], redo: [], mergeKey: "")], in: store)
        let (again, _) = reloaded(directory)
        XCTAssertEqual(again.state(appId: app, documentId: document)?.undoCount, 1)
    }

    func testPerformWithoutLoadAllLoadsFirstAndReportsFindingsAsProblems() throws {
        let directory = try TemporaryDirectory()
        try perform([.register(actionName: "A", undo: [1], redo: [], mergeKey: ""),
                     .register(actionName: "Torn", undo: [9], redo: [], mergeKey: "")],
                    in: UndoStore(stateDirectory: directory.path))
        let name = try XCTUnwrap(directory.journalNames().first)
        try directory.write(Array(try directory.bytes(of: name).dropLast(1)), to: name)
        let store = UndoStore(stateDirectory: directory.path)
        try perform([.register(actionName: "B", undo: [2], redo: [], mergeKey: "")], in: store)
        XCTAssertEqual(store.state(appId: app, documentId: document)?.undoCount, 2)
        XCTAssertEqual(try directory.journalNames().count, 1)
        let problems = store.takeProblems()
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.description.contains("torn tail") == true, "\(problems)")
        XCTAssertEqual(store.takeProblems(), [])
    }

    func testAnUnusableStateDirectoryRefusesWithAStorageError() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/not-a-directory"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
        let store = UndoStore(stateDirectory: file)
        let report = store.loadAll()
        guard case .failed = report.findings.first?.kind else { return XCTFail("\(report)") }
        XCTAssertThrowsError(try store.perform(.register(actionName: "", undo: [], redo: [], mergeKey: ""),
                                               appId: app, documentId: document, now: 0)) {
            guard case .storage = ($0 as? UndoError)?.kind else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(store.documentCount, 0)
    }
}

extension UndoOperation {
    /// Bytes of this operation's journal record.
    var recordBytes: Int { UndoRecord.operation(self).encoded.count }
}
