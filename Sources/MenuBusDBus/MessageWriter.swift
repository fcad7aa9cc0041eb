internal import CDBus

/// Writes validated `DBusValue`s into a libdbus message iterator.
/// Returns false only when libdbus runs out of memory.
enum MessageWriter {
    static func write(_ value: DBusValue, into iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_BYTE, &v) != 0
        case .boolean(let b):
            var v: dbus_bool_t = b ? 1 : 0
            return dbus_message_iter_append_basic(&iter, MB_TYPE_BOOLEAN, &v) != 0
        case .int16(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_INT16, &v) != 0
        case .uint16(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_UINT16, &v) != 0
        case .int32(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_INT32, &v) != 0
        case .uint32(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_UINT32, &v) != 0
        case .int64(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_INT64, &v) != 0
        case .uint64(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_UINT64, &v) != 0
        case .double(var v): return dbus_message_iter_append_basic(&iter, MB_TYPE_DOUBLE, &v) != 0
        case .string(let text): return appendString(text, type: MB_TYPE_STRING, into: &iter)
        case .objectPath(let path): return appendString(path.rawValue, type: MB_TYPE_OBJECT_PATH, into: &iter)
        case .signature(let sig): return appendString(sig.rawValue, type: MB_TYPE_SIGNATURE, into: &iter)
        case .variant(let inner):
            return container(MB_TYPE_VARIANT, inner.signature.rawValue, &iter) { sub in
                write(inner, into: &sub)
            }
        case .structure(let members):
            return container(MB_TYPE_STRUCT, nil, &iter) { sub in
                members.allSatisfy { write($0, into: &sub) }
            }
        case .dictEntry(let key, let item):
            return container(MB_TYPE_DICT_ENTRY, nil, &iter) { sub in
                write(key, into: &sub) && write(item, into: &sub)
            }
        case .array(let element, let items):
            return container(MB_TYPE_ARRAY, element.rawValue, &iter) { sub in
                items.allSatisfy { write($0, into: &sub) }
            }
        case .bytes(let bytes):
            return container(MB_TYPE_ARRAY, "y", &iter) { sub in
                bytes.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    if base == nil { return true }
                    return dbus_message_iter_append_fixed_array(&sub, MB_TYPE_BYTE, &base, Int32(buffer.count)) != 0
                }
            }
        }
    }

    private static func appendString(_ text: String, type: Int32, into iter: inout DBusMessageIter) -> Bool {
        text.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &p) != 0
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }
}
