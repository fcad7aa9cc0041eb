#if DEBUG
import Foundation
import MenuBusModel

/// `json`: any bytes as a menu file the CLI reads (`publish`, `lint`,
/// `present`, `--fill`): `MenuJSON.read(file:)`, the CLI's own code (its two
/// files are linked here from Sources/menubus-cli/, as the module of an
/// executable cannot be imported). A document that reads writes out (`menu
/// --json`'s form) and reads back to the same elements.
package func fuzzMenuJSON(_ data: UnsafeRawBufferPointer) {
    _ = JSONSyntax.error(in: Array(data))
    defer { FuzzJSONFile.remove() }
    guard let path = FuzzJSONFile.write(data), let document = try? MenuJSON.read(file: path) else { return }
    let text = MenuJSON.write(document.items)
    guard let again = FuzzJSONFile.write(Array(text.utf8)).flatMap({ try? MenuJSON.read(file: $0) }) else {
        return FuzzCheck.require(false, "the elements read do not read back from what they write")
    }
    FuzzCheck.require(again.items == document.items, "the elements read do not read back to themselves")
}

/// The one scratch file the JSON target hands the CLI's reader (it reads
/// paths, as the CLI's commands do).
enum FuzzJSONFile {
    static let path: String = {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        return "\(folder)/menubus-fuzz-json-\(getpid()).json"
    }()

    static func write<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        FileManager.default.createFile(atPath: path, contents: Data(bytes)) ? path : nil
    }

    static func remove() {
        unlink(path)
    }
}
#endif
