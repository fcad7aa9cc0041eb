/// The titles of the items MenuBus adds, in one language: the standard
/// commands, "Format", "Services", "Loading…", and the formats "Undo %s" / "Redo %s"
/// (a format, since word order differs: ja "%sを取り消す").
///
/// A plain value the rules take, so composing stays a function of its
/// inputs; `Localization` fills one from the gettext catalogues. Apps' own
/// titles never pass through here.
package struct SystemTitles: Hashable, Sendable {
    /// The English source strings (gettext msgids) of every title.
    static let sourceStrings: [String] = StandardCommand.allCases.map(\.title)
        + [formatTitle, servicesTitle, loadingTitle, undoFormat, redoFormat]
    static let formatTitle = "Format"
    static let servicesTitle = "Services"
    package static let loadingTitle = "Loading…"
    static let undoFormat = "Undo %s"
    static let redoFormat = "Redo %s"

    /// The untranslated titles.
    package static let english = SystemTitles(translations: [:], rightToLeft: false)

    /// msgid → translation; a missing entry stays English.
    let translations: [String: String]
    /// The language is written right to left.
    package let rightToLeft: Bool
    /// `TitleStyle.comparable` of every title MenuBus adds (the commands,
    /// Format and Services, in this language), and their first characters: what app
    /// items are compared against to leave out a system item they repeat.
    package let keys: Set<String>
    let keyStarts: Set<Character>
    /// The keys' `TitleStyle.comparableHead`s, to rule out most ASCII app
    /// titles without building their comparable form.
    let keyHeads: TitleHeads

    package init(translations: [String: String], rightToLeft: Bool) {
        self.translations = translations
        self.rightToLeft = rightToLeft
        var keys: Set<String> = []
        for source in StandardCommand.allCases.map(\.title) + [Self.formatTitle, Self.servicesTitle] {
            if let key = TitleStyle.comparable(translations[source] ?? source) { keys.insert(key) }
        }
        self.keys = keys
        keyStarts = Set(keys.compactMap(\.first))
        var heads = TitleHeads()
        for key in keys { if let head = TitleStyle.comparableHead(key) { heads.insert(head) } }
        keyHeads = heads
    }

    package func text(_ source: String) -> String {
        translations[source] ?? source
    }

    package func title(_ command: StandardCommand) -> String {
        text(command.title)
    }

    package var format: String { text(Self.formatTitle) }
    package var services: String { text(Self.servicesTitle) }
    package var loading: String { text(Self.loadingTitle) }

    /// "Undo Typing", or "Undo" when the step has no name.
    package func undo(_ name: String?) -> String { named(.undo, Self.undoFormat, name) }

    /// "Redo Typing", or "Redo" when the step has no name.
    package func redo(_ name: String?) -> String { named(.redo, Self.redoFormat, name) }

    private func named(_ command: StandardCommand, _ format: String, _ name: String?) -> String {
        guard let name, !name.allSatisfy(\.isWhitespace) else { return title(command) }
        let pattern = text(format)
        // A catalogue entry without exactly one %s would drop or garble the
        // name: fall back to the English format.
        let parts = pattern.split(separator: "%s", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return command.title + " " + name }
        return parts[0] + name + parts[1]
    }
}

/// A set of `TitleStyle.comparableHead`s that answers "maybe" or "no" with
/// one bit and no hashing: a 2,048-bit table, so a few dozen keys leave
/// nearly every other head a "no".
struct TitleHeads: Hashable, Sendable {
    private var bits = [UInt64](repeating: 0, count: 32)

    mutating func insert(_ head: UInt32) {
        let slot = Self.slot(head)
        bits[slot >> 6] |= 1 << UInt64(slot & 63)
    }

    /// False only for a head never inserted.
    func mayContain(_ head: UInt32) -> Bool {
        let slot = Self.slot(head)
        return bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    private static func slot(_ head: UInt32) -> Int {
        Int((head &* 0x9E37_79B1) >> 21)
    }
}
