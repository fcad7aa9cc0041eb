import Foundation
import XCTest

/// A handler or a call that disagrees with the shared declarations
/// (MenuBusProtocol's `MenuBusAPI`) does not compile: small snippets in
/// Fixtures/typecheck are type-checked against the built modules; the
/// well-typed one must compile (so a failure of the others is their types),
/// each other one must fail with the error its mistake makes.
final class TypedDeclarationTests: XCTestCase {
    private func typecheck(_ snippet: String) throws -> ProcessResult {
        let file = Repository.root.appendingPathComponent("Tests/MenuBusTests/Fixtures/typecheck/\(snippet).swift")
        let include = try runTool("pkg-config", ["--cflags-only-I", "dbus-1"]).stdout
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var arguments = ["-typecheck", "-package-name", packageName(),
                         "-I", Binaries.directory.appendingPathComponent("Modules").path,
                         "-I", Repository.root.appendingPathComponent("Sources/CDBus").path,
                         "-I", Repository.root.appendingPathComponent("Sources/CGettext").path]
        for flag in include { arguments += ["-Xcc", flag] }
        return try runTool("swiftc", arguments + [file.path])
    }

    /// The name SwiftPM gives `package` access (`-package-name`), as the build recorded it.
    private func packageName() -> String {
        let description = Binaries.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("debug.yaml")
        if let text = try? String(contentsOf: description, encoding: .utf8),
           let range = text.range(of: #""-package-name","([^"]+)""#, options: .regularExpression) {
            return String(text[range].dropFirst(#""-package-name",""#.count).dropLast())
        }
        return Repository.root.lastPathComponent.lowercased()
    }

    func testWellTypedHandlerAndCallCompile() throws {
        let result = try typecheck("well-typed")
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testMistypedHandlersAndCallsDoNotCompile() throws {
        let cases: [(snippet: String, error: String)] = [
            ("handler-reads-wrong-type", "error: cannot convert value of type 'String' to specified type 'UInt32'"),
            ("handler-replies-wrong-type", "error: cannot convert value of type 'String' to closure result type 'UInt32'"),
            ("call-with-wrong-type", "error: cannot convert value of type 'String' to expected argument type 'ObjectPath'"),
            ("call-with-missing-argument", "error: pack expansion requires that 'String, DBusValue' and 'String' have the same shape"),
        ]
        for (snippet, error) in cases {
            let result = try typecheck(snippet)
            XCTAssertNotEqual(result.status, 0, "\(snippet) compiled")
            XCTAssertTrue(result.stderr.contains(error), "\(snippet): \(result.stderr)")
        }
    }
}
