import Foundation
import MenuBus

/// Make Uppercase, Make Lowercase, Capitalize, Sort Lines: one process,
/// four providers, each replacing the selection in an editable context.
enum TextTransforms {
    static let busName = "org.menubus.TextTransforms"

    struct Transform: Sendable {
        let id: String
        let title: String
        let icon: String
        let apply: @Sendable (String) -> String
    }

    static let all: [Transform] = [
        Transform(id: "org.menubus.TextTransforms.Uppercase", title: "Make Uppercase",
                  icon: "format-text-uppercase") { $0.uppercased() },
        Transform(id: "org.menubus.TextTransforms.Lowercase", title: "Make Lowercase",
                  icon: "format-text-lowercase") { $0.lowercased() },
        Transform(id: "org.menubus.TextTransforms.Capitalize", title: "Capitalize",
                  icon: "format-text-capitalize") { capitalize($0) },
        Transform(id: "org.menubus.TextTransforms.SortLines", title: "Sort Lines",
                  icon: "view-sort-ascending") { sortLines($0) },
    ]

    /// `titles`: the key files' titles in the user's language, by id.
    static func register(_ client: MenuBusClient, titles: [String: String] = [:],
                         onRequest: @escaping () -> Void) throws {
        for transform in all {
            let description = ProviderInfo(id: transform.id, title: titles[transform.id] ?? transform.title,
                                                  icon: transform.icon,
                                                  returnsText: true, requiresEditable: true)
            try client.registerProvider(description) { text, _ in
                onRequest()
                return transform.apply(text)
            }
        }
    }

    /// The first letter of every word upper case, the rest lower case.
    static func capitalize(_ text: String) -> String {
        var out = ""
        var atWordStart = true
        for character in text {
            if character.isLetter || character.isNumber {
                out += atWordStart ? character.uppercased() : character.lowercased()
                atWordStart = false
            } else {
                out.append(character)
                atWordStart = character != "'" && character != "’"
            }
        }
        return out
    }

    /// Lines in the user's collation order; a final newline stays final.
    static func sortLines(_ text: String) -> String {
        let hasFinalNewline = text.hasSuffix("\n")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if hasFinalNewline { lines.removeLast() }
        lines.sort { $0.localizedStandardCompare($1) == .orderedAscending }
        return lines.joined(separator: "\n") + (hasFinalNewline ? "\n" : "")
    }
}
