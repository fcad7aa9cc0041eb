import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// docs/API.md is made from the DocString annotations of dbus/*.xml: the
/// committed reference is what the generator makes of them, every part of
/// the contract is documented, gdbus-codegen reads the annotations, and
/// the keys and error names the code uses are all in the reference.
final class APIReferenceTests: XCTestCase {
    static let files = ["org.menubus.MenuBus1", "org.menubus.MenuBus1.Menu", "org.menubus.MenuBus1.Client",
                        "org.menubus.MenuBus1.Provider", "com.canonical.dbusmenu", "org.gtk.Menus", "org.gtk.Actions"]

    func testCommittedReferenceIsWhatTheGeneratorMakesOfTheXML() throws {
        let generated = try runTool("/usr/bin/python3", ["scripts/build-api-docs", "--stdout"])
        XCTAssertEqual(generated.status, 0, generated.stderr)
        let committed = try String(contentsOf: Repository.root.appendingPathComponent("docs/API.md"), encoding: .utf8)
        XCTAssertFalse(committed.isEmpty)
        XCTAssertTrue(generated.stdout == committed, "docs/API.md is stale: run scripts/build-api-docs")
        let check = try runTool("/usr/bin/python3", ["scripts/build-api-docs", "--check"])
        XCTAssertEqual(check.status, 0, check.stderr)
    }

    func testEveryInterfaceMemberAndArgumentHasADocString() throws {
        var elements = 0
        for name in Self.files {
            let xml = try contract(name)
            let open = try NSRegularExpression(pattern: #"<(interface|method|signal|property|arg) ([^>]*?)(/?)>"#)
            for match in open.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)) {
                elements += 1
                let tag = String(xml[Range(match.range(at: 0), in: xml)!])
                guard match.range(at: 3).length == 0 else {
                    XCTFail("\(name).xml: \(tag) has no DocString")
                    continue
                }
                // The first child: a DocString (the interface's short form, then its DocString).
                var rest = xml[Range(match.range(at: 0), in: xml)!.upperBound...].drop { $0.isWhitespace }
                if rest.hasPrefix(#"<annotation name="org.gtk.GDBus.DocString.Short""#), let end = rest.range(of: "/>") {
                    rest = rest[end.upperBound...].drop { $0.isWhitespace }
                }
                XCTAssertTrue(rest.hasPrefix(#"<annotation name="org.gtk.GDBus.DocString""#),
                              "\(name).xml: \(tag) has no DocString")
            }
        }
        XCTAssertGreaterThan(elements, 100, "the contract files were read")
    }

    func testStrippingDocStringsGivesWhatTheCodeServes() {
        let documented = """
            <method name="Dismiss">
              <annotation name="org.gtk.GDBus.DocString" value="Closes.&#10;
                  Errors: `AccessDenied`."/>
            </method>
            <method name="Get">
              <annotation name="org.gtk.GDBus.DocString" value="Gets."/>
              <arg name="a" type="s" direction="in">
                <annotation name="org.gtk.GDBus.DocString" value="The &quot;a&quot;."/>
              </arg>
            </method>
            <property name="Stats" type="a{sv}" access="read">
              <annotation name="org.gtk.GDBus.DocString" value="Counters."/>
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
            """
        XCTAssertEqual(Repository.withoutDocStrings(documented), """
            <method name="Dismiss"/>
            <method name="Get">
              <arg name="a" type="s" direction="in"/>
            </method>
            <property name="Stats" type="a{sv}" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
            """)
    }

    /// gdbus-codegen's DocBook output has the first line of every DocString:
    /// the annotations are where and what gdbus-codegen expects.
    func testGdbusCodegenReadsEveryDocString() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-docbook-\(getpid())")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        var checked = 0
        for name in Self.files {
            let result = try runTool("/usr/bin/gdbus-codegen", ["--generate-docbook", output.appendingPathComponent("doc").path,
                                                            "dbus/\(name).xml"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let docbook = try String(contentsOf: output.appendingPathComponent("doc-\(name).xml"), encoding: .utf8)
            let text = Self.plain(Self.unescape(docbook))
            for value in try docStrings(in: contract(name)) {
                let firstLine = Self.plain(String(Self.unescape(value).split(separator: "\n").first ?? ""))
                XCTAssertTrue(text.contains(firstLine), "\(name): gdbus-codegen lost \"\(firstLine)\"")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    func testEveryErrorNameIsInTheReference() throws {
        let errors = try section("## Errors")
        for domain in BusError.Domain.allCases {
            XCTAssertTrue(errors.contains("`\(domain.rawValue)`"), "\(domain.errorName) is not in the Errors table")
        }
        XCTAssertTrue(errors.contains("org.freedesktop.DBus.Error.InvalidArgs"))
    }

    /// Every key the code writes, from values with every field set, is in
    /// the reference's part about that dict.
    func testEveryKeyTheCodeWritesIsInTheReference() throws {
        var element = MenuElement(id: "x", title: "T")
        element.kind = .deferred
        element.subtitle = "s"; element.icon = "i"; element.attributes = [.disabled]; element.state = .on
        element.shortcut = "<Control>c"; element.command = .copy; element.options = [.inline]
        element.elementSize = .small; element.cached = false
        let context = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true,
                                  richText: true, document: "d", supportedCommands: [.copy], title: "t", enabled: false)
        var selection = Selection(kind: .range, length: 1, text: "a", attributes: [.bold], pasteboardTypes: ["text/plain"])
        selection.rect = Rect(x: 1, y: 2)
        selection.uris = ["file:///a"]
        selection.focused = true
        var provider = ProviderInfo(id: "p", title: "P")
        provider.icon = "i"; provider.role = .translate; provider.returnsText = true; provider.requiresEditable = true
        let undoState = UndoStack().state.wireValue()
        let cases: [(String, DBusValue)] = [
            ("## Menu elements", element.wireProperties),
            ("## Context keys", Wire.encode(context)),
            ("## Selection keys", Wire.encode(selection)),
            ("### Method `RegisterProvider`", provider.wireValue),
            ("### Method `GetUndoState`", undoState),
            ("### Property `Stats`", Stats(undoHistory: "moved").dbusValue(residentBytes: 1)),
        ]
        for (heading, value) in cases {
            let text = try section(heading)
            let keys = (value.dictEntries ?? []).compactMap { $0.key.stringValue }
            XCTAssertFalse(keys.isEmpty, heading)
            for key in keys {
                XCTAssertTrue(text.contains("`\(key)`"), "\(heading) does not document the key \(key)")
            }
        }
    }

    // MARK: Helpers

    private func contract(_ name: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("dbus/\(name).xml"), encoding: .utf8)
    }

    /// The raw values of the DocString annotations of `xml`.
    private func docStrings(in xml: String) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: #"<annotation name="org\.gtk\.GDBus\.DocString" value="([^"]*)"/>"#)
        return pattern.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)).map {
            String(xml[Range($0.range(at: 1), in: xml)!])
        }
    }

    /// The part of docs/API.md from `heading` to the next heading of its level or above.
    private func section(_ heading: String) throws -> String {
        let reference = try String(contentsOf: Repository.root.appendingPathComponent("docs/API.md"), encoding: .utf8)
        let lines = reference.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else {
            XCTFail("docs/API.md has no \(heading)")
            return ""
        }
        let level = heading.prefix { $0 == "#" }.count
        let end = lines[(start + 1)...].firstIndex { line in
            let hashes = line.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.dropFirst(hashes).hasPrefix(" ")
        } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&#10;", with: "\n").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Text without markup, whitespace runs as one space.
    private static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
    }

}
