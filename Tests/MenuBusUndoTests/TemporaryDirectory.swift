import Foundation
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// A fresh directory under /tmp for one test, removed afterwards.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/menubus-undo-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw UndoFileError(call: "mkdtemp", path: "/tmp", errno: errno) }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The store's journal directory for a state directory here.
    var undoDirectory: String { path + "/" + UndoStore.directoryName }

    func journalNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: undoDirectory).sorted()
    }

    func journalPath(_ name: String) -> String { undoDirectory + "/" + name }

    func bytes(of name: String) throws -> [UInt8] {
        try UndoFiles.read(journalPath(name))
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        let data = Data(bytes)
        guard FileManager.default.createFile(atPath: journalPath(name), contents: data) else {
            throw UndoFileError(call: "create", path: journalPath(name), errno: errno)
        }
    }

    func size(of name: String) throws -> Int {
        try bytes(of: name).count
    }
}

enum Time {
    static let start: Int64 = 1_800_000_000
    static let day: Int64 = 86_400
}
