import Foundation
import XCTest
@testable import MenuBusSupport

/// The libc file and environment calls of the daemon's rooms, checked
/// against Foundation's view of the same files.
final class FilesTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "menubus-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func testTheEnvironmentIsTheProcesss() {
        XCTAssertEqual(Files.environment(), ProcessInfo.processInfo.environment)
    }

    func testNamesSizesAndContents() throws {
        try Data("one".utf8).write(to: URL(fileURLWithPath: directory + "/a.provider"))
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: false)
        XCTAssertEqual(Files.names(in: directory)?.sorted(), ["a.provider", "sub"])
        XCTAssertNil(Files.names(in: directory + "/missing"))
        XCTAssertEqual(Files.regularFileSize(directory + "/a.provider"), 3)
        XCTAssertNil(Files.regularFileSize(directory + "/sub"), "a folder is not a regular file")
        XCTAssertNil(Files.regularFileSize(directory + "/missing"))
        XCTAssertEqual(Files.contents(directory + "/a.provider"), Array("one".utf8))
        XCTAssertNil(Files.contents(directory + "/a.provider", maxBytes: 2), "longer than allowed: nothing, not a prefix")
        let large = [UInt8](repeating: 7, count: 100_000)
        try Data(large).write(to: URL(fileURLWithPath: directory + "/large"))
        XCTAssertEqual(Files.contents(directory + "/large"), large, "read across chunks")
    }

    func testFoldersAndAtomicWrites() throws {
        let path = directory + "/x/y/providers.conf"
        try Files.makeDirectories(Files.parent(of: path))
        try Files.writeAtomically(Array("[Providers]\n".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "[Providers]\n")
        try Files.writeAtomically(Array("new".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/x/y"), ["providers.conf"], "no temporary file left")
        XCTAssertThrowsError(try Files.makeDirectories(path + "/below"), "a file is in the way") { error in
            XCTAssertTrue("\(error)".contains("Not a directory"), "\(error)")
        }
        XCTAssertEqual(Files.parent(of: "/a"), "/")
        XCTAssertEqual(Files.parent(of: "name"), ".")
    }
}
