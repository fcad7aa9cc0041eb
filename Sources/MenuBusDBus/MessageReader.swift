internal import CDBus

/// Reads `DBusValue`s from a libdbus message iterator.
enum MessageReader {
    static func read(_ iter: inout DBusMessageIter) throws -> DBusValue {
        try read(&iter, type: dbus_message_iter_get_arg_type(&iter))
    }

    /// The value at `iter`, whose type code the caller has just read.
    private static func read(_ iter: inout DBusMessageIter, type: Int32) throws -> DBusValue {
        switch type {
        case MB_TYPE_BYTE:
            var v: UInt8 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .byte(v)
        case MB_TYPE_BOOLEAN:
            var v: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .boolean(v != 0)
        case MB_TYPE_INT16:
            var v: Int16 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .int16(v)
        case MB_TYPE_UINT16:
            var v: UInt16 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .uint16(v)
        case MB_TYPE_INT32:
            var v: Int32 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .int32(v)
        case MB_TYPE_UINT32:
            var v: UInt32 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .uint32(v)
        case MB_TYPE_INT64:
            var v: Int64 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .int64(v)
        case MB_TYPE_UINT64:
            var v: UInt64 = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .uint64(v)
        case MB_TYPE_DOUBLE:
            var v: Double = 0
            dbus_message_iter_get_basic(&iter, &v)
            return .double(v)
        case MB_TYPE_STRING, MB_TYPE_OBJECT_PATH, MB_TYPE_SIGNATURE:
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iter, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            if type == MB_TYPE_STRING { return .string(text) }
            if type == MB_TYPE_OBJECT_PATH { return .objectPath(ObjectPath(stringLiteral: text)) }
            return .signature(Signature(unchecked: text))
        case MB_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        case MB_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var members: [DBusValue] = []
            members.reserveCapacity(4)
            var member = dbus_message_iter_get_arg_type(&sub)
            while member != MB_TYPE_INVALID {
                members.append(try read(&sub, type: member))
                dbus_message_iter_next(&sub)
                member = dbus_message_iter_get_arg_type(&sub)
            }
            return .structure(members)
        case MB_TYPE_DICT_ENTRY:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            let key = try read(&sub)
            dbus_message_iter_next(&sub)
            let value = try read(&sub)
            return .dictEntry(key, value)
        case MB_TYPE_ARRAY:
            return try readArray(&iter)
        default:
            throw BusError.invalidArgs("unsupported D-Bus type code \(type)")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws -> DBusValue {
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if dbus_message_iter_get_element_type(&iter) == MB_TYPE_BYTE {
            var pointer: UnsafeMutableRawPointer? = nil
            var count: Int32 = 0
            dbus_message_iter_get_fixed_array(&sub, &pointer, &count)
            guard let pointer, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: Int(count))))
        }
        var items: [DBusValue] = []
        var item = dbus_message_iter_get_arg_type(&sub)
        while item != MB_TYPE_INVALID {
            items.append(try read(&sub, type: item))
            dbus_message_iter_next(&sub)
            item = dbus_message_iter_get_arg_type(&sub)
        }
        // The first element tells the element type without asking libdbus
        // for a malloc'd signature; only an empty array needs that.
        let element: Signature
        if let first = items.first {
            element = first.signature
        } else if let full = dbus_message_iter_get_signature(&iter) {
            element = Signature(unchecked: String(String(cString: full).dropFirst()))
            dbus_free(full)
        } else {
            throw BusError(name: BusError.Standard.noMemory, message: "out of memory")
        }
        return .array(element, items)
    }
}
