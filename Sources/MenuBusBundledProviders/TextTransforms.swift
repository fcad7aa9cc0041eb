#if canImport(Glibc)
import Glibc
#endif
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

    /// Lines in the user's collation order (`LC_COLLATE`), as a file
    /// manager sorts names: case ignored but to break ties, numbers by
    /// value ("file2" before "file10"). A final newline stays final.
    static func sortLines(_ text: String) -> String {
        let hasFinalNewline = text.hasSuffix("\n")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if hasFinalNewline { lines.removeLast() }
        let width = lines.map(LineKey.longestNumber).max() ?? 0
        let sorted = lines.map { LineKey($0, numberWidth: width) }.sorted(by: LineKey.precedes).map(\.line)
        return sorted.joined(separator: "\n") + (hasFinalNewline ? "\n" : "")
    }
}

/// A line as Sort Lines orders it: its case-folded text with every run of
/// digits zero-padded to one width, compared with strcoll(3); ties go to
/// fewer leading zeros, then to the line's own collation.
struct LineKey {
    let line: String
    private let folded: [CChar]

    init(_ line: String, numberWidth: Int) {
        self.line = line
        var folded = "", digits = ""
        func flush() {
            folded += String(repeating: "0", count: max(0, numberWidth - digits.count)) + digits
            digits = ""
        }
        for character in line.lowercased() {
            if let digit = Self.digit(character) {
                digits += String(digit)
            } else {
                flush()
                folded.append(character)
            }
        }
        flush()
        self.folded = folded.utf8CString.map { $0 }
    }

    /// The longest run of digits in `line`.
    static func longestNumber(_ line: String) -> Int {
        var longest = 0, run = 0
        for character in line {
            run = digit(character) == nil ? 0 : run + 1
            longest = max(longest, run)
        }
        return longest
    }

    /// A decimal digit of any script (fullwidth ones too) and its value.
    private static func digit(_ character: Character) -> Int? {
        guard character.isNumber, let value = character.wholeNumberValue, (0...9).contains(value) else { return nil }
        return value
    }

    static func precedes(_ a: LineKey, _ b: LineKey) -> Bool {
        let order = strcoll(a.folded, b.folded)
        if order != 0 { return order < 0 }
        if a.line.unicodeScalars.count != b.line.unicodeScalars.count {
            return a.line.unicodeScalars.count < b.line.unicodeScalars.count
        }
        return strcoll(a.line, b.line) < 0
    }
}
