import Foundation
import XCTest

/// One codec, one transport (issue 29): the bus socket is libdbus's, and
/// nothing in Sources writes to it, shuts it down or asks for it except to
/// poll it. A message that bypassed libdbus's queue relied on its
/// internals, and one the bus refused would disconnect menubusd.
final class OneTransportTests: XCTestCase {
    /// Every Swift file under Sources, by its path from the repository.
    static func sources() throws -> [(path: String, text: String)] {
        let root = Repository.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.map { file in
            (String(file.path.dropFirst(Repository.root.path.count + 1)), try String(contentsOf: file, encoding: .utf8))
        }.sorted { $0.path < $1.path }
    }

    /// The lines of `sources` that match `pattern`, as "path: line".
    static func lines(matching pattern: String, in sources: [(path: String, text: String)]) -> [String] {
        sources.flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                let code = line.components(separatedBy: "//").first ?? ""
                return code.range(of: pattern, options: .regularExpression) != nil
            }.map { "\(file.path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
    }

    func testNoSourceWritesToTheSocketLibdbusOwns() throws {
        let sources = try Self.sources()
        XCTAssertGreaterThan(sources.count, 100)
        // The descriptor is asked for in one place, the loop's poll reads it.
        XCTAssertEqual(Self.lines(matching: #"dbus_connection_get_(socket|unix_fd|unix_process_id)|DBUS_.*_FD"#,
                                  in: sources),
                       ["Sources/MenuBusDBus/Connection.swift: return dbus_connection_get_socket(raw, &fd) != 0 ? fd : nil"])
        // Nothing that holds the connection's descriptor writes to it.
        let holders = sources.filter { $0.text.contains("dbus_connection_get_socket") || $0.text.contains(".socket") }
        XCTAssertEqual(Set(holders.map(\.path)), ["Sources/MenuBusDBus/Connection.swift",
                                                  "Sources/MenuBusDBus/MessageLoop.swift",
                                                  "Sources/MenuBus/Client/MenuBusClient+Async.swift"])
        let writes = #"(^|[^\w.])(Glibc\.)?(send|sendmsg|sendto|sendmmsg|write|writev|pwrite|shutdown|splice)\(\s*(fd|socket|self\.socket|connection\.socket|[a-z]+\.fd)\b"#
        XCTAssertEqual(Self.lines(matching: writes, in: holders), [])
        XCTAssertEqual(Self.lines(matching: #"MSG_DONTWAIT|MSG_NOSIGNAL|SHUT_RDWR|SHUT_WR"#, in: sources), [])
    }
}

extension OneTransportTests {
    /// Every message MenuBus sends is made by `MessageMarshaller`: no source
    /// writes values or header fields with libdbus. The one exception is a
    /// prepared reply's copy, whose reply serial and destination libdbus
    /// sets on its copy of the marshalled template (`PreparedReply`).
    func testOneMarshallerWritesEveryMessage() throws {
        let sources = try Self.sources()
        let writers = #"dbus_message_(iter_(init_append|append_basic|append_fixed_array|open_container|close_container|abandon_container)|append_args|new|new_method_call|new_method_return|new_error|new_error_printf|new_signal|set_(path|interface|member|error_name|destination|reply_serial|sender|no_reply|auto_start|container_instance|allow_interactive_authorization))\b"#
        XCTAssertEqual(Self.lines(matching: writers, in: sources), [
            "Sources/MenuBusDBus/PreparedReply.swift: guard dbus_message_set_reply_serial(copy, call.serial) != 0 else { return nil }",
            "Sources/MenuBusDBus/PreparedReply.swift: if let sender = call.sender, dbus_message_set_destination(copy, sender) == 0 { return nil }",
        ])
        XCTAssertEqual(sources.filter { $0.text.contains("struct MessageMarshaller") }.map(\.path),
                       ["Sources/MenuBusCodec/MessageMarshaller.swift"])
    }
}

extension OneTransportTests {
    /// Every message MenuBus reads is read by `MessageReader` from its
    /// marshalled bytes (byte counts included); libdbus's iterator reads in
    /// one place only, where it must: a descriptor travels beside the body,
    /// and only the iterator takes one (`Message.duplicatedUnixFD`).
    func testOneReaderReadsEveryMessage() throws {
        let sources = try Self.sources()
        let readers = #"dbus_message_(iter_[a-z_]+|get_args|get_args_valist)\b|mb_iter_"#
        let found = Self.lines(matching: readers, in: sources)
        XCTAssertEqual(Set(found.map { String($0.prefix { $0 != ":" }) }), ["Sources/MenuBusDBus/Connection+BusDaemon.swift"])
        let credentials = try XCTUnwrap(sources.first { $0.path == "Sources/MenuBusDBus/Connection+BusDaemon.swift" })
        let fdReader = try XCTUnwrap(credentials.text.range(of: "func duplicatedUnixFD"))
        // The function's body: up to the first line that closes at its indentation.
        let fdReaderEnd = try XCTUnwrap(credentials.text[fdReader.upperBound...].range(of: "\n    }\n"))
        XCTAssertNil(credentials.text[..<fdReader.lowerBound].range(of: readers, options: .regularExpression),
                     "the credentials are read by MessageReader; only the descriptor by the iterator")
        XCTAssertNil(credentials.text[fdReaderEnd.upperBound...].range(of: readers, options: .regularExpression),
                     "nothing after the descriptor's reader uses the iterator")
        XCTAssertEqual(sources.filter { $0.text.contains("struct MessageReader") }.map(\.path),
                       ["Sources/MenuBusCodec/MessageReader.swift"])
    }
}

extension OneTransportTests {
    /// The value types, the name checks, the marshaller and the reader are
    /// a room of their own without libdbus (`MenuBusCodec`), and the
    /// declared providers, which need only values and names, link no libdbus.
    func testTheCodecAndTheProvidersLinkNoLibdbus() throws {
        let sources = try Self.sources()
        let codec = sources.filter { $0.path.hasPrefix("Sources/MenuBusCodec/") }
        XCTAssertEqual(Set(codec.map(\.path)), Set(["BodyCursor", "BusError", "DBusType", "DBusValue", "MessageKind", "MessageMarshaller",
                                                    "MessageReader", "Names", "ObjectPath", "Signature"]
                                                    .map { "Sources/MenuBusCodec/\($0).swift" }))
        XCTAssertEqual(Self.lines(matching: #"import (CDBus|MenuBusDBus)|\bdbus_"#, in: codec), [])
        let providers = sources.filter { $0.path.hasPrefix("Sources/MenuBusProviders/") }
        XCTAssertEqual(Self.lines(matching: #"import (CDBus|MenuBusDBus)"#, in: providers), [])
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = manifest.split(separator: "\n").filter { $0.contains(#".target(name: "MenuBusCodec""#)
            || $0.contains(#".target(name: "MenuBusProviders""#) }
        XCTAssertEqual(targets.count, 2)
        for target in targets { XCTAssertFalse(target.contains("MenuBusDBus") || target.contains("CDBus"), "\(target)") }
    }
}
