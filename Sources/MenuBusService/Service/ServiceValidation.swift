import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Checks of the service's own arguments (ids the model does not cover).
enum ServiceValidation {
    /// Reverse-DNS: two or more dot-separated elements of `[A-Za-z0-9_-]`,
    /// none starting with a digit, at most 255 bytes.
    static func appId(_ appId: String) throws {
        guard appId.utf8.count <= Limits.maxAppIdBytes else {
            throw BusError(.limitExceeded, "appId: longer than \(Limits.maxAppIdBytes) bytes")
        }
        let elements = appId.split(separator: ".", omittingEmptySubsequences: false)
        let valid = elements.count >= 2 && elements.allSatisfy { element in
            guard let first = element.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
            return element.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
        }
        guard valid else {
            throw BusError.invalidArgs("appId: \(ModelError.quoted(appId)) is not a reverse-DNS id such as org.example.Editor")
        }
    }

    /// Context ids follow the element id rules: 1–128 bytes of `[A-Za-z0-9._:-]`.
    static func contextId(_ contextId: String) throws {
        do {
            try ElementID.check(contextId, field: "contextId")
        } catch {
            throw error.busError
        }
    }

    static func optionCount(_ options: DBusValue, field: String) throws {
        if case .array(_, let entries) = options, entries.count > ServiceLimits.maxOptionEntries {
            throw BusError(.limitExceeded, "\(field): more than \(ServiceLimits.maxOptionEntries) entries")
        }
    }
}
