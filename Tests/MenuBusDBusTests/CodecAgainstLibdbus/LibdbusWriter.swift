#if canImport(Glibc)
import Glibc
#endif
@testable import MenuBusDBus

/// libdbus's own writer (its message iterators), reached through `dlsym`:
/// MenuBus's sources no longer write with it (one marshaller, issue 29),
/// and the tests keep it as the reference `MessageMarshaller` must match
/// byte for byte. (Only MenuBusDBus may import CDBus, so it is not imported
/// here.)
enum LibdbusWriter {
    private typealias NewMethodCall = @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias InitAppend = @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> Void
    private typealias AppendBasic = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer) -> UInt32
    private typealias OpenContainer = @convention(c) (
        UnsafeMutableRawPointer, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer) -> UInt32
    private typealias CloseContainer = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> UInt32
    private typealias AppendFixedArray = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer, Int32) -> UInt32

    /// A function of libdbus, by its C name and type.
    static func function<T>(_ name: String, _: T.Type) -> T {
        // The library the process already links: dlopen only counts a reference.
        guard let library = dlopen("libdbus-1.so.3", RTLD_NOW), let symbol = dlsym(library, name) else { fatalError("libdbus has no \(name)") }
        return unsafeBitCast(symbol, to: T.self)
    }
    private static let newMethodCall = function("dbus_message_new_method_call", NewMethodCall.self)
    private static let initAppend = function("dbus_message_iter_init_append", InitAppend.self)
    private static let appendBasic = function("dbus_message_iter_append_basic", AppendBasic.self)
    private static let openContainer = function("dbus_message_iter_open_container", OpenContainer.self)
    private static let closeContainer = function("dbus_message_iter_close_container", CloseContainer.self)
    private static let appendFixedArray = function("dbus_message_iter_append_fixed_array", AppendFixedArray.self)
    /// More than `sizeof(DBusMessageIter)` (72 bytes on 64-bit machines).
    private static let iteratorBytes = 256

    /// A method call to `/a`, `org.example.I.M`, whose body libdbus's writer
    /// made of `values`, after the checks MenuBus made before it wrote with
    /// libdbus (which aborts on what they refuse).
    static func written(_ values: [DBusValue]) throws -> Message {
        _ = try Message.checkedBody(values)
        guard let raw = newMethodCall(nil, "/a", "org.example.I", "M") else { throw BusError.failed("out of memory") }
        let message = Message(owning: raw)
        try withIterator { iter in
            initAppend(raw, iter)
            for value in values where !write(value, into: iter) { throw BusError.failed("out of memory") }
        }
        return message
    }

    private static func withIterator<T>(_ body: (UnsafeMutableRawPointer) throws -> T) rethrows -> T {
        let iter = UnsafeMutableRawPointer.allocate(byteCount: iteratorBytes, alignment: 16)
        defer { iter.deallocate() }
        return try body(iter)
    }

    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(character.value) }

    private static func basic<T>(_ value: T, _ type: Unicode.Scalar, _ iter: UnsafeMutableRawPointer) -> Bool {
        withUnsafePointer(to: value) { appendBasic(iter, code(type), $0) != 0 }
    }

    private static func text(_ text: String, _ type: Unicode.Scalar, _ iter: UnsafeMutableRawPointer) -> Bool {
        text.withCString { basic($0, type, iter) }
    }

    private static func write(_ value: DBusValue, into iter: UnsafeMutableRawPointer) -> Bool {
        switch value {
        case .byte(let v): return basic(v, "y", iter)
        case .boolean(let b): return basic(UInt32(b ? 1 : 0), "b", iter)
        case .int16(let v): return basic(v, "n", iter)
        case .uint16(let v): return basic(v, "q", iter)
        case .int32(let v): return basic(v, "i", iter)
        case .uint32(let v): return basic(v, "u", iter)
        case .int64(let v): return basic(v, "x", iter)
        case .uint64(let v): return basic(v, "t", iter)
        case .double(let v): return basic(v, "d", iter)
        case .string(let v): return text(v, "s", iter)
        case .objectPath(let path): return text(path.rawValue, "o", iter)
        case .signature(let signature): return text(signature.rawValue, "g", iter)
        case .variant(let inner):
            return container("v", inner.signature.rawValue, iter) { write(inner, into: $0) }
        case .structure(let members):
            return container("r", nil, iter) { sub in members.allSatisfy { write($0, into: sub) } }
        case .dictEntry(let key, let item):
            return container("e", nil, iter) { sub in write(key, into: sub) && write(item, into: sub) }
        case .array(let element, let items):
            return container("a", element.rawValue, iter) { sub in items.allSatisfy { write($0, into: sub) } }
        case .bytes(let bytes):
            return container("a", "y", iter) { sub in
                bytes.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return true }
                    return withUnsafePointer(to: base) { appendFixedArray(sub, code("y"), $0, Int32(buffer.count)) != 0 }
                }
            }
        }
    }

    private static func container(_ type: Unicode.Scalar, _ signature: String?, _ iter: UnsafeMutableRawPointer,
                                  _ body: (UnsafeMutableRawPointer) -> Bool) -> Bool {
        withIterator { sub in
            let opened = signature.map { $0.withCString { openContainer(iter, code(type), $0, sub) } }
                ?? openContainer(iter, code(type), nil, sub)
            guard opened != 0, body(sub) else { return false }
            return closeContainer(iter, sub) != 0
        }
    }
}
