/// Strings and lists of strings in GVariant text, as `gsettings get`
/// prints them and `gsettings set` reads them.
enum GVariantStrings {
    /// `'text'`, with backslash escapes for the quote and the backslash.
    static func quote(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    static func list(_ items: [String]) -> String {
        items.isEmpty ? "@as []" : "[" + items.map(quote).joined(separator: ", ") + "]"
    }

    /// `['a', "b"]` or `@as []` → the strings; nil for anything else.
    static func parse(_ text: String) -> [String]? {
        var rest = Substring(text.trimmingWhitespace())
        if rest.hasPrefix("@as") { rest = rest.dropFirst(3).drop { $0 == " " } }
        guard rest.first == "[", rest.last == "]" else { return nil }
        rest = rest.dropFirst().dropLast()
        var items: [String] = []
        while true {
            rest = rest.drop { $0 == " " }
            if rest.isEmpty { return items }
            guard let (item, after) = string(rest) else { return nil }
            items.append(item)
            rest = after.drop { $0 == " " }
            if rest.isEmpty { return items }
            guard rest.first == "," else { return nil }
            rest = rest.dropFirst()
        }
    }

    /// `'text'` → text; nil for anything else.
    static func parseString(_ text: String) -> String? {
        guard let (item, rest) = string(Substring(text.trimmingWhitespace())), rest.isEmpty else { return nil }
        return item
    }

    /// One quoted string at the front of `text`, and what follows it. An
    /// escaped character stands for itself (enough for paths, names and
    /// accelerators; `\\n` and `\\u` escapes are not decoded).
    private static func string(_ text: Substring) -> (String, Substring)? {
        guard let mark = text.first, mark == "'" || mark == "\"" else { return nil }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == mark { return (result, text[text.index(after: index)...]) }
            if character == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
            }
            result.append(text[index])
            index = text.index(after: index)
        }
        return nil
    }
}

extension String {
    /// Without the spaces and line ends around it.
    func trimmingWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
