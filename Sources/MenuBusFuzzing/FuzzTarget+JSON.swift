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
    FuzzCheck.require(JSONSyntax.agreesWithFoundation(Array(data)), "the CLI's JSON reader and JSONSerialization disagree")
    defer { FuzzJSONFile.remove() }
    guard let path = FuzzJSONFile.write(data), let document = try? MenuJSON.read(file: path) else { return }
    let text = MenuJSON.write(document.items)
    guard let again = FuzzJSONFile.write(Array(text.utf8)).flatMap({ try? MenuJSON.read(file: $0) }) else {
        return FuzzCheck.require(false, "the elements read do not read back from what they write")
    }
    FuzzCheck.require(again.items == document.items, "the elements read do not read back to themselves")
}

extension JSONSyntax {
    /// Whether `JSONSerialization`, which the CLI read with before it had a
    /// reader of its own, takes the same texts to the same values. Texts it
    /// would read as UTF-16 or UTF-32 are left out: the CLI reads UTF-8.
    static func agreesWithFoundation(_ bytes: [UInt8]) -> Bool {
        if bytes.prefix(4).contains(0) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return true }
        let mine = try? parse(bytes)
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        return mine == theirs.flatMap(value)
    }

    private static func value(_ object: Any) -> Value? {
        switch object {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let number as NSNumber:
            return String(describing: type(of: number)) == "__NSCFBoolean" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]:
            let values = array.compactMap(value)
            return values.count == array.count ? .array(values) : nil
        case let object as [String: Any]:
            let members = object.compactMapValues(value)
            return members.count == object.count ? .object(members) : nil
        default: return nil
        }
    }
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
