#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// A history kept in another state directory is brought into the one in
/// use: moved when only it has a document, the newer journal kept when both
/// do, nothing touched when the two are one folder.
final class UndoHistoryMergeTests: XCTestCase {
    private let app = "org.example.Editor"

    /// Writes documents `names` to a store in `directory`, each with `steps` steps.
    private func write(_ directory: TemporaryDirectory, _ names: [String], steps: Int = 1, title: String = "Step") throws {
        let store = UndoStore(stateDirectory: directory.path)
        for name in names {
            for step in 1...steps {
                try store.perform(.register(actionName: "\(title) \(step)", undo: [UInt8(step)], redo: [0], mergeKey: ""),
                                  appId: app, documentId: name, now: Time.start)
            }
        }
        store.close()
    }

    private func loaded(_ directory: TemporaryDirectory) -> [String: UndoState] {
        let store = UndoStore(stateDirectory: directory.path)
        XCTAssertEqual(store.loadAll().findings, [])
        var states: [String: UndoState] = [:]
        for key in store.documents.keys { states[key.documentId] = store.state(appId: app, documentId: key.documentId) }
        return states
    }

    /// Sets the modification time of `document`'s journal `seconds` into the past.
    private func age(_ directory: TemporaryDirectory, _ document: String, seconds: Double) throws {
        let name = UndoFileName.name(for: try UndoDocumentKey(appId: app, documentId: document))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)],
                                              ofItemAtPath: directory.journalPath(name))
    }

    func testOnlyTheOtherHistoryIsMovedAndItsFolderGoes() throws {
        let other = try TemporaryDirectory(), inUse = try TemporaryDirectory()
        try write(other, ["a", "b"], steps: 2)
        let report = try XCTUnwrap(UndoHistoryMerge.merge(from: other.path, into: inUse.path))
        XCTAssertEqual(report.moved, 2)
        XCTAssertFalse(report.mergedTwo)
        XCTAssertEqual(report.failures, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.undoDirectory), "the emptied folder goes")
        XCTAssertEqual(loaded(inUse).mapValues(\.undoCount), ["a": 2, "b": 2])
        XCTAssertEqual(UndoFiles.mode(inUse.undoDirectory), 0o700)
        XCTAssertNil(UndoFiles.identity(other.undoDirectory))
        XCTAssertNil(UndoHistoryMerge.merge(from: other.path, into: inUse.path), "once: nothing is left to move")
    }

    func testTwoHistoriesAreMergedAndADocumentInBothKeepsItsNewerJournal() throws {
        let other = try TemporaryDirectory(), inUse = try TemporaryDirectory()
        try write(inUse, ["mine", "older-here", "newer-here"], steps: 1, title: "Here")
        try write(other, ["theirs", "older-here", "newer-here"], steps: 3, title: "There")
        try age(inUse, "older-here", seconds: 600)
        try age(other, "older-here", seconds: 60)
        try age(other, "newer-here", seconds: 60)
        let report = try XCTUnwrap(UndoHistoryMerge.merge(from: other.path, into: inUse.path))
        XCTAssertTrue(report.mergedTwo)
        XCTAssertEqual(report.existing, 3)
        XCTAssertEqual(report.moved, 1)
        XCTAssertEqual(report.inBoth, 2)
        XCTAssertEqual(report.replaced, 1, "older-here: the other's journal is newer")
        let states = loaded(inUse)
        XCTAssertEqual(states.mapValues(\.undoCount), ["mine": 1, "theirs": 3, "older-here": 3, "newer-here": 1])
        XCTAssertEqual(states["newer-here"]?.undoActionName, "Here 1", "the newer journal, the one in use")
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.undoDirectory))
    }

    func testOneFolderUnderTwoNamesIsLeftAlone() throws {
        let inUse = try TemporaryDirectory(), links = try TemporaryDirectory()
        try write(inUse, ["a"])
        let alias = links.path + "/alias"
        XCTAssertEqual(symlink(inUse.path, alias), 0)
        XCTAssertNil(UndoHistoryMerge.merge(from: alias, into: inUse.path))
        XCTAssertEqual(loaded(inUse).mapValues(\.undoCount), ["a": 1], "nothing removed")
    }

    func testAnEmptyOtherFolderGoesAndALeftOverSnapshotWithIt() throws {
        let other = try TemporaryDirectory(), inUse = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: other.undoDirectory, withIntermediateDirectories: true)
        try other.write([1, 2, 3], to: "x-0123456789abcdef.undo.tmp")
        XCTAssertNil(UndoHistoryMerge.merge(from: other.path, into: inUse.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.undoDirectory))
        XCTAssertNil(UndoHistoryMerge.merge(from: other.path + "/none", into: inUse.path))
    }

    func testAHistoryWhoseDaemonRunsIsLeftAlone() throws {
        let other = try TemporaryDirectory(), inUse = try TemporaryDirectory()
        try write(other, ["a"])
        guard case .held(let fd) = UndoHistoryMerge.lockStateDirectory(other.path) else { return XCTFail("the lock is free") }
        XCTAssertEqual(UndoHistoryMerge.lockStateDirectory(other.path), .busy, "one menubusd a state directory")
        let report = try XCTUnwrap(UndoHistoryMerge.merge(from: other.path, into: inUse.path))
        XCTAssertTrue(report.inUse)
        XCTAssertFalse(report.isEmpty)
        XCTAssertEqual(try other.journalNames().count, 1, "nothing moved")
        UndoFiles.close(fd)
        XCTAssertEqual(UndoHistoryMerge.merge(from: other.path, into: inUse.path)?.moved, 1, "moved once its daemon let go")
    }
}
