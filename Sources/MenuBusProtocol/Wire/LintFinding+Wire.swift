import MenuBusModel
import MenuBusDBus

extension LintFinding {
    /// `Lint`'s reply: `(severity, element id, message)`.
    static let wireListSignature: Signature = "a(sss)"

    static func wireList(_ findings: [LintFinding]) -> DBusValue {
        .array("(sss)", findings.map {
            .structure([.string($0.severity.rawValue), .string($0.elementId), .string($0.message)])
        })
    }

    /// Decodes a `Lint` reply (for clients).
    package static func list(fromWire value: DBusValue, field: String = "findings") throws(BusError) -> [LintFinding] {
        guard case .array(let element, let items) = value, element == "(sss)" else {
            throw WireValue.mismatch(value, expected: wireListSignature, field: field).busError
        }
        var result: [LintFinding] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .structure(let members) = item, members.count == 3,
                  case .string(let severity) = members[0], case .string(let id) = members[1],
                  case .string(let message) = members[2] else {
                throw WireValue.mismatch(item, expected: "(sss)", field: "\(field)[\(index)]").busError
            }
            do throws(ModelError) {
                let parsed = try WireValue.parse(severity, Severity.self, field: "\(field)[\(index)].severity")
                result.append(LintFinding(severity: parsed, elementId: id, message: message))
            } catch {
                throw error.busError
            }
        }
        return result
    }
}
