import MenuBusSupport

/// Heuristics for menu titles (HIG: title-style capitalization, items
/// start with a verb). Kept simple so normal titles ("Copy Link",
/// "Add to Photos", "Delete", "Zoom In", "iCloud Settings…") pass.
enum TitleStyle {
    /// Short words title style leaves lower-case unless they come first
    /// (HIG, "Title-style capitalization"): articles, coordinating
    /// conjunctions, and prepositions of four letters or fewer.
    static let minorWords: Set<Substring> = [
        "a", "an", "the",
        "and", "or", "nor", "but", "yet", "so",
        "as", "at", "by", "for", "from", "in", "into", "of", "off", "on", "onto", "over", "per", "to", "upon",
        "via", "with",
    ]

    /// Words that cannot start an action: articles, possessives,
    /// demonstratives, prepositions, conjunctions. A title starting with one
    /// ("The Photo", "My Files") names a thing instead of saying what
    /// happens. Nouns are not caught, by design: "Settings…" is normal.
    static let nonVerbStarts: Set<Substring> = [
        "a", "an", "the", "my", "your", "our", "their", "his", "her", "its",
        "this", "that", "these", "those", "of", "to", "in", "on", "for", "with", "at", "by",
        "from", "about", "and", "or", "but",
    ]

    /// The first word that breaks title style, if any: the first word must
    /// not start lower-case; a later word must not start lower-case unless
    /// it is a minor word. Words holding any capital (iCloud, macOS), words
    /// not starting with a letter, and quoted words (the user's own text, as
    /// in Look Up “word”) are left alone; capitalized minor words are
    /// accepted ("Zoom In", "Log In").
    static func lowerCaseWord(in title: String) -> Substring? {
        var position = 0
        var inQuote = false
        for raw in title.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            defer { position += 1 }
            let opens = !inQuote && raw.first.map(quotes.contains) == true
            if opens { inQuote = true }
            if inQuote {
                // Closed by a word ending in a quote mark (the opening word
                // itself, unless it is the mark alone).
                if raw.last.map(quotes.contains) == true && !(opens && raw.count == 1) { inQuote = false }
                continue
            }
            guard let word = trimmed(raw), let first = word.first, first.isLetter, first.isLowercase else { continue }
            if word.contains(where: \.isUppercase) { continue }
            if position > 0 && minorWords.contains(word) { continue }
            return word
        }
        return nil
    }

    private static let quotes: Set<Character> = ["\"", "'", "“", "”", "‘", "’", "«", "»"]

    /// True when the title starts with a word an action cannot start with.
    static func startsWithNonVerb(_ title: String) -> Bool {
        guard let first = words(of: title).first else { return false }
        return nonVerbStarts.contains(Substring(first.lowercased()))
    }

    /// Words split on spaces, without surrounding punctuation ("Share…" → "Share").
    static func words(of title: String) -> [Substring] {
        title.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap(trimmed)
    }

    /// `word` without leading and trailing punctuation; nil when nothing is left.
    private static func trimmed(_ word: Substring) -> Substring? {
        let start = word.drop(while: { !$0.isLetter && !$0.isNumber })
        guard let end = start.lastIndex(where: { $0.isLetter || $0.isNumber }) else { return nil }
        return start[...end]
    }

    /// A title as compared for duplicates: case folded, surrounding
    /// punctuation and an ellipsis dropped ("Share…" and "share" are one
    /// title); nil when nothing is left. Composition asks this of every app
    /// item, so an ASCII title takes a byte-wise path with the same result.
    static func comparable(_ title: String) -> String? {
        if let ascii = asciiComparable(title) { return ascii.isEmpty ? nil : ascii }
        let words = words(of: title)
        guard !words.isEmpty else { return nil }
        return words.joined(separator: " ").lowercased()
    }

    /// The first four letters and digits of `comparable(title)` (fewer when
    /// it has fewer), lower-cased and packed into one number, read from an
    /// ASCII title without building it; nil when a non-ASCII character
    /// comes before them. A title and its comparable form have the same
    /// head, so a head no key has rules the title out (`TitleHeads`).
    static func comparableHead(_ title: String) -> UInt32? {
        var head: UInt32 = 0, count = 0
        var bytes = title.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte >= 0x80 { return nil }
            guard isAlphanumeric(byte) else { continue }
            head |= UInt32(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) << (8 * count)
            count += 1
            guard count < 4 else {
                // A combining mark on the fourth would make it another
                // letter ("Usun" + U+0301 is "Usuń"): no head then either.
                if let next = bytes.next(), next >= 0x80 { return nil }
                break
            }
        }
        return head
    }

    /// The first character of `comparable(title)`, found without building
    /// it; canonically equivalent titles ("Über" and "U" + U+0308 "ber")
    /// have equal ones, as `Set` and `==` compare them.
    static func comparableStart(_ title: String) -> Character? {
        guard let first = title.first(where: { $0.isLetter || $0.isNumber }) else { return nil }
        if let ascii = first.asciiValue {
            return Character(Unicode.Scalar(ascii >= 0x41 && ascii <= 0x5A ? ascii | 0x20 : ascii))
        }
        return String(first).lowercased().first
    }

    /// `comparable` for an ASCII title, "…" allowed (nil for any other): words split on
    /// spaces and tabs, each trimmed of leading and trailing characters that
    /// are neither letters nor digits, joined by one space, lower-cased.
    private static func asciiComparable(_ title: String) -> String? {
        var title = title
        // One pass over the UTF-8 in place: a word is the bytes from its
        // first to its last letter or digit; "…" counts as punctuation.
        return title.withUTF8 { bytes -> String? in
            // The result is never longer than the title: built on the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { result -> String? in
                var count = 0
                var wordStart = -1, wordEnd = -1  // the word's first and last alphanumeric byte
                func flush() {
                    guard wordStart >= 0 else { return }
                    if count > 0 {
                        result[count] = 0x20
                        count += 1
                    }
                    var position = wordStart
                    while position <= wordEnd {
                        let byte = bytes[position]
                        if byte >= 0x80 {
                            // A "…" inside the word (checked below) stays, as
                            // in the general path.
                            for offset in 0..<3 { result[count + offset] = bytes[position + offset] }
                            count += 3
                            position += 3
                            continue
                        }
                        result[count] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                        count += 1
                        position += 1
                    }
                    wordStart = -1
                    wordEnd = -1
                }
                var index = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte >= 0x80 {
                        // Any non-ASCII other than "…" (E2 80 A6): the general path.
                        guard byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA6 else { return nil }
                        index += 3
                        continue
                    }
                    if byte == 0x20 || byte == 0x09 {
                        flush()
                    } else if isAlphanumeric(byte) {
                        if wordStart < 0 { wordStart = index }
                        wordEnd = index
                    }
                    index += 1
                }
                flush()
                return String(decoding: UnsafeBufferPointer(rebasing: result[..<count]), as: UTF8.self)
            }
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// True for "Open", "Open…" and "Open..." in any case.
    static func isBareOpen(_ title: String) -> Bool {
        let words = words(of: title)
        return words.count == 1 && words[0].lowercased() == "open"
    }
}
