import MenuBusModel
import MenuBusCodec

/// A file in the freedesktop key-file syntax (`.desktop` files): groups in
/// `[brackets]`, `Key=value` and `Key[locale]=value` lines, `#` comments.
/// Every entry remembers its line, so a fault can name file and line.
struct KeyFile: Sendable {
    struct Entry: Sendable {
        let key: String
        /// `ru` in `Title[ru]=`, nil for the untranslated value.
        let locale: String?
        let value: String
        let line: Int
    }

    struct Group: Sendable {
        let name: String
        let line: Int
        var entries: [Entry] = []

        /// The untranslated entry for `key`.
        func entry(_ key: String) -> Entry? {
            entries.first { $0.key == key && $0.locale == nil }
        }

        /// The value for `key` best matching `locales` (most specific first),
        /// else the untranslated one.
        func localized(_ key: String, locales: [String]) -> Entry? {
            for locale in locales {
                if let match = entries.first(where: { $0.key == key && $0.locale == locale }) { return match }
            }
            return entry(key)
        }
    }

    /// A line that is not a comment, a group header or a `Key=value` entry.
    struct SyntaxError: Error, Sendable, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    private(set) var groups: [Group] = []

    func group(_ name: String) -> Group? { groups.first { $0.name == name } }

    /// Parses `text`; throws at the first malformed line.
    init(parsing text: String) throws(SyntaxError) {
        var number = 0
        // "\r\n" is one Character in Swift, so splitting on "\n" alone would
        // make a file with CRLF line ends one line.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            if trimmed.first == "[" {
                guard trimmed.last == "]", trimmed.count > 2 else {
                    throw SyntaxError(line: number, message: "a group header must be '[Name]'")
                }
                let name = String(trimmed.dropFirst().dropLast())
                guard !name.contains("[") && !name.contains("]") else {
                    throw SyntaxError(line: number, message: "a group name may not contain brackets")
                }
                guard group(name) == nil else {
                    throw SyntaxError(line: number, message: "group [\(name)] appears twice")
                }
                groups.append(Group(name: name, line: number))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw SyntaxError(line: number, message: "expected 'Key=value', a '[Group]' or a '#' comment")
            }
            guard !groups.isEmpty else {
                throw SyntaxError(line: number, message: "an entry before the first group")
            }
            var name = trimmed[..<equals]
            while name.last == " " || name.last == "\t" { name = name.dropLast() }
            var value = trimmed[trimmed.index(after: equals)...]
            value = value.drop { $0 == " " || $0 == "\t" }
            var locale: String?
            if let open = name.firstIndex(of: "[") {
                guard name.last == "]" else {
                    throw SyntaxError(line: number, message: "a translated key must be 'Key[locale]'")
                }
                let tag = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
                guard !tag.isEmpty, tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_@.-".contains($0)) }) else {
                    throw SyntaxError(line: number, message: "'\(tag)' is not a locale")
                }
                locale = tag
                name = name[..<open]
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw SyntaxError(line: number, message: "a key is made of A-Z, a-z, 0-9 and '-'")
            }
            let key = String(name)
            if groups[groups.count - 1].entries.contains(where: { $0.key == key && $0.locale == locale }) {
                throw SyntaxError(line: number, message: "key \(key)\(locale.map { "[\($0)]" } ?? "") appears twice in its group")
            }
            groups[groups.count - 1].entries.append(
                Entry(key: key, locale: locale, value: KeyFile.unescape(value), line: number))
        }
    }

    /// `\s`, `\n`, `\t`, `\r`, `\\` as the specification has them; `\;` is
    /// kept for `list` to split on. By Unicode scalar, as the escapes and
    /// `escape` work: a combining mark after `\t` would make "t" another
    /// Character.
    static func unescape(_ value: Substring) -> String {
        guard value.unicodeScalars.contains("\\") else { return String(value) }
        var out = String.UnicodeScalarView()
        var escaped = false
        for scalar in value.unicodeScalars {
            if escaped {
                switch scalar {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case ";": out.append(contentsOf: "\\;".unicodeScalars)
                default: out.append(scalar)
                }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A `;`-separated list (a trailing `;` is allowed); `\;` is a literal
    /// `;`. By Unicode scalar, as `unescape`.
    static func list(_ value: String) -> [String] {
        var items: [String] = []
        var current = String.UnicodeScalarView()
        var escaped = false
        for scalar in value.unicodeScalars {
            if escaped {
                current.append(scalar == ";" ? ";" : "\\")
                if scalar != ";" { current.append(scalar) }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == ";" {
                items.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { items.append(String(current)) }
        return items.filter { !$0.isEmpty }
    }

    /// Writes groups and entries back in the same syntax (lists joined with `;`).
    static func render(_ groups: [(name: String, entries: [(key: String, value: String)])]) -> String {
        var text = ""
        for (index, group) in groups.enumerated() {
            if index > 0 { text += "\n" }
            text += "[\(group.name)]\n"
            for entry in group.entries {
                text += "\(entry.key)=\(escape(entry.value))\n"
            }
        }
        return text
    }

    /// The locale names to try for a menu asked for in `locale` (`ru`,
    /// `ja_JP.UTF-8`, `de:fr`), most specific first.
    static func locales(of locale: String) -> [String] {
        locales(environment: ["LANGUAGE": locale, "LANG": String(locale.split(separator: ":").first ?? "")])
    }

    /// `value` as `unescape` reads it back: backslashes, line ends and tabs
    /// escaped, and a leading space (which reading skips) as `\s`.
    static func escape(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case " " where out.isEmpty: out.append(contentsOf: "\\s".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The locale names to try for translated keys, most specific first, from
    /// `LANGUAGE`, `LC_ALL`, `LC_MESSAGES` and `LANG` as gettext reads them:
    /// `sr_RS.UTF-8@latin` gives `sr_RS@latin`, `sr_RS`, `sr@latin`, `sr`.
    static func locales(environment: [String: String]) -> [String] {
        var names: [String] = []
        let primary = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        var sources: [String] = []
        if let language = environment["LANGUAGE"], !language.isEmpty, primary != "C", primary != "POSIX" {
            sources += language.split(separator: ":").map(String.init)
        }
        if let primary { sources.append(primary) }
        for source in sources where source != "C" && source != "POSIX" {
            var rest = Substring(source)
            var modifier: Substring?
            if let at = rest.firstIndex(of: "@") { modifier = rest[rest.index(after: at)...]; rest = rest[..<at] }
            if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }
            var language = rest, country: Substring?
            if let underscore = rest.firstIndex(of: "_") {
                language = rest[..<underscore]
                country = rest[rest.index(after: underscore)...]
            }
            guard !language.isEmpty else { continue }
            var candidates: [String] = []
            if let country, let modifier { candidates.append("\(language)_\(country)@\(modifier)") }
            if let country { candidates.append("\(language)_\(country)") }
            if let modifier { candidates.append("\(language)@\(modifier)") }
            candidates.append(String(language))
            for candidate in candidates where !names.contains(candidate) { names.append(candidate) }
        }
        return names
    }
}
