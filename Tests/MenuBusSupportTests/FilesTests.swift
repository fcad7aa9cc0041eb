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
        XCTAssertEqual(try Files.contents(directory + "/a.provider", maxBytes: 10), Array("one".utf8))
        XCTAssertNil(try Files.contents(directory + "/missing", maxBytes: 10), "no file: nil")
        XCTAssertThrowsError(try Files.contents(directory + "/a.provider", maxBytes: 2), "longer than allowed: an error, not a prefix")
        XCTAssertThrowsError(try Files.contents(directory + "/sub", maxBytes: 10), "a folder")
        let large = [UInt8](repeating: 7, count: 100_000)
        try Data(large).write(to: URL(fileURLWithPath: directory + "/large"))
        XCTAssertEqual(try Files.contents(directory + "/large", maxBytes: 200_000), large, "read across chunks")
    }

    func testLinksAreFollowedAndAFifoDoesNotBlock() throws {
        try Data("linked".utf8).write(to: URL(fileURLWithPath: directory + "/target"))
        XCTAssertEqual(symlink(directory + "/target", directory + "/link.provider"), 0)
        XCTAssertEqual(Files.regularFileSize(directory + "/link.provider"), 6, "a key file linked into the folder counts")
        XCTAssertEqual(try Files.contents(directory + "/link.provider", maxBytes: 10), Array("linked".utf8))
        XCTAssertEqual(symlink(directory + "/nowhere", directory + "/dangling"), 0)
        XCTAssertNil(Files.regularFileSize(directory + "/dangling"))
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        XCTAssertNil(Files.regularFileSize(directory + "/fifo"))
        XCTAssertThrowsError(try Files.contents(directory + "/fifo", maxBytes: 10), "opened without blocking, refused") { error in
            XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
        }
    }

    func testFoldersAndAtomicWrites() throws {
        let path = directory + "/x/y/providers.conf"
        try Files.makeDirectories(Files.parent(of: path))
        try Files.writeAtomically(Array("[Providers]\n".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "[Providers]\n")
        try Files.writeAtomically(Array("new".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/x/y"), ["providers.conf"], "no temporary file left")
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let mask = umask(0o022)
        umask(mask)
        XCTAssertEqual(info.st_mode & 0o777, 0o666 & ~mask, "a new file: 0666 less the umask")
        XCTAssertEqual(chmod(path, 0o640), 0)
        try Files.writeAtomically(Array("again".utf8), to: path)
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640, "the old file's mode is kept")
        XCTAssertThrowsError(try Files.makeDirectories(path + "/below"), "a file is in the way") { error in
            XCTAssertTrue("\(error)".contains("Not a directory"), "\(error)")
        }
        XCTAssertEqual(Files.parent(of: "/a"), "/")
        XCTAssertEqual(Files.parent(of: "name"), ".")
    }
}
