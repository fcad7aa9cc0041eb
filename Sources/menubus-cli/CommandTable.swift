import MenuBusModel
/// The one description of every command's operands and options: the help's
/// synopsis and Options, the bash and zsh completions and the man page are
/// all generated from it, so they cannot disagree.
enum CommandTable {
    /// What a word is, for completion.
    enum Kind: String {
        /// An app id, live from the daemon.
        case app
        /// A context id of the app named before it, live from the daemon.
        case context
        /// An item id of the menu of the app and context before it (the edit
        /// menu with `--edit`), live from the daemon.
        case item
        /// An undo document named by a context of the app before it, live from the daemon.
        case document
        /// A file name, '-' for standard input.
        case file
        /// A fixed list of words.
        case words
        /// Anything (a number, an id, an address): nothing to complete.
        case text
    }

    struct Operand {
        let name: String
        let kind: Kind
        var words: [String] = []
        /// May be left out: the synopsis shows it in brackets.
        var optional = false
        /// A presented menu's path may stand instead (completed live, after '/').
        var orMenuPath = false
    }

    struct Option {
        let name: String
        /// nil for a flag.
        let value: String?
        let kind: Kind
        let help: String
        /// May be given more than once.
        var repeats = false
        /// Written `--name=VALUE`, never as two words.
        var attached = false

        /// `--name VALUE`, `--name=VALUE` or `--name`.
        var spelled: String { name + (value.map { (attached ? "=" : " ") + $0 } ?? "") }
    }

    struct Entry {
        let operands: [Operand]
        let options: [Option]
    }

    static let json = Option(name: "--json", value: nil, kind: .text, help: "print data as JSON")
    static let edit = Option(name: "--edit", value: nil, kind: .text, help: "the edit menu for the current selection, not the context menu")
    static let locale = Option(name: "--locale", value: "LOCALE", kind: .text,
                               help: "title MenuBus's own items in LOCALE (ru, de_DE.UTF-8), not the session's language")
    static let seconds = Option(name: "--for", value: "SECONDS", kind: .text, help: "run for SECONDS, then stop")
    static let fill = Option(name: "--fill", value: "ID=FILE", kind: .file,
                             help: "answer deferred element ID with the items of FILE", repeats: true)

    /// Options every command takes, anywhere before '--'.
    static let global: [Option] = [
        Option(name: "--address", value: "ADDRESS", kind: .text, help: "talk to the bus at ADDRESS instead of the session bus"),
        json,
        Option(name: "--color", value: "WHEN", kind: .words, help: "colour output: auto (the default), always or never",
               attached: true),
        Option(name: "--version", value: nil, kind: .text, help: "print the command line's and the daemon's version"),
        Option(name: "--help", value: nil, kind: .text, help: "print help and exit"),
    ]

    static let colourWords = ["auto", "always", "never"]

    static let entries: [String: Entry] = [
        "status": Entry(operands: [], options: [json]),
        "contexts": Entry(operands: [], options: [json]),
        "menu": Entry(operands: [Operand(name: "APP", kind: .app, orMenuPath: true), Operand(name: "CONTEXT", kind: .context)],
                      options: [edit, locale, json]),
        "present": Entry(operands: [Operand(name: "APP", kind: .app), Operand(name: "CONTEXT", kind: .context)],
                         options: [edit, locale,
                                   Option(name: "--compact", value: nil, kind: .text,
                                          help: "the compact appearance: no preview above the items"),
                                   Option(name: "--changes", value: "N", kind: .text, help: "stop after N changes"),
                                   Option(name: "--follow", value: nil, kind: .text, help: "present again after menubusd restarts"),
                                   Option(name: "--wait-result", value: "SECONDS", kind: .text,
                                          help: "after the menu closes, wait up to SECONDS for a provider's result"),
                                   json]),
        "activate": Entry(operands: [Operand(name: "APP", kind: .app), Operand(name: "CONTEXT", kind: .context),
                                     Operand(name: "ITEM", kind: .item)], options: [edit, locale, json]),
        "show-menu": Entry(operands: [], options: [
            Option(name: "--timestamp", value: "N", kind: .text, help: "the time of the input event that asked, passed to the app"),
            json,
        ]),
        "monitor": Entry(operands: [], options: [Option(name: "--count", value: "N", kind: .text, help: "stop after N messages"), json]),
        "lint": Entry(operands: [Operand(name: "FILE", kind: .file)], options: [edit, fill, json]),
        "publish": Entry(operands: [Operand(name: "FILE", kind: .file)], options: [
            Option(name: "--app", value: "APP", kind: .text, help: "register as APP instead of the file's \"app\""),
            Option(name: "--context", value: "ID", kind: .text, help: "publish as context ID instead of the file's \"context-id\""),
            fill, seconds, json,
        ]),
        "undo-state": Entry(operands: [Operand(name: "APP", kind: .app), Operand(name: "DOCUMENT", kind: .document)], options: [json]),
        "provider": Entry(operands: [], options: [
            Option(name: "--id", value: "ID", kind: .text, help: "the provider id (default org.menubus.Demo.Uppercase)"),
            Option(name: "--title", value: "TITLE", kind: .text, help: "the item's title (default Make Uppercase)"),
            seconds,
        ]),
        "providers": Entry(operands: [], options: [
            Option(name: "--enable", value: "ID", kind: .text, help: "offer provider ID in menus again"),
            Option(name: "--disable", value: "ID", kind: .text, help: "never offer provider ID in a menu"),
            Option(name: "--prefer", value: "ROLE ID", kind: .text,
                   help: "let provider ID serve ROLE (translate, lookup, search-web, share) when several could"),
            Option(name: "--check", value: nil, kind: .text,
                   help: "report key files that cannot be read and shortcuts that clash"),
            json,
        ]),
        "integrate": Entry(operands: [Operand(name: "TOOLKIT", kind: .words,
                                              words: Integrate.Toolkit.allCases.map(\.rawValue) + [ShortcutIntegration.word, EditBarIntegration.word],
                                              optional: true)],
                           options: [
                               Option(name: "--enable", value: nil, kind: .text, help: "load MenuBus's module in the toolkit's apps from the next login on"),
                               Option(name: "--disable", value: nil, kind: .text, help: "remove what --enable wrote"),
                               Option(name: "--status", value: nil, kind: .text,
                                      help: "say whether it is enabled, installed and loaded in this session"),
                               Option(name: "--key", value: "ACCEL", kind: .text,
                                      help: "shortcut: bind ACCEL (GTK syntax) instead of <Super>period"),
                               Option(name: "--app", value: "NAME", kind: .text,
                                      help: "edit-bar: turn the bar on or off for the program NAME only"),
                               json,
                           ]),
        "demo": Entry(operands: [], options: []),
        "completions": Entry(operands: [Operand(name: "SHELL", kind: .words, words: ["bash", "zsh", "man"])], options: []),
    ]

    static func entry(_ name: String) -> Entry {
        entries[name] ?? Entry(operands: [], options: [])
    }

    /// `menu APP CONTEXT [--edit] [--json]`.
    static func synopsis(_ name: String) -> String {
        synopsisWords(name).joined(separator: " ")
    }

    /// The synopsis's words: the command, its operands, each option in brackets.
    static func synopsisWords(_ name: String) -> [String] {
        let entry = entry(name)
        var words = [name]
        for operand in entry.operands {
            let word = operand.kind == .words ? operand.words.joined(separator: "|") : operand.name
            words.append(operand.optional ? "[" + word + "]" : word)
        }
        for option in entry.options {
            let text = "[" + option.spelled + "]"
            words.append(option.repeats ? text + "..." : text)
        }
        return words
    }

    /// `Usage: menubus-cli NAME …` wrapped before 80 columns, the
    /// continuation lines indented under the first operand.
    static func usageLine(_ name: String) -> String {
        let lead = "Usage: menubus-cli " + name
        let indent = String(repeating: " ", count: lead.count + 1)
        var lines = [lead]
        for word in synopsisWords(name).dropFirst() {
            if lines[lines.count - 1].count + 1 + word.count > 79 && lines[lines.count - 1] != indent {
                lines.append(indent + word)
            } else {
                lines[lines.count - 1] += (lines[lines.count - 1] == indent ? "" : " ") + word
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A command's help: the generated synopsis, its own description, the
    /// generated options.
    static func help(_ command: CommandLineTool.Command) -> String {
        var lines = command.usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.first?.hasPrefix("Usage:") == true {
            // The written synopsis and its wrapped lines give way to the
            // generated one; another form of the command ('menubus-cli …') stays.
            lines.removeFirst()
            while let next = lines.first, next.hasPrefix(" "), !next.contains("menubus-cli ") { lines.removeFirst() }
        }
        var text = usageLine(command.name) + "\n" + lines.joined(separator: "\n")
        let options = entry(command.name).options
        if !options.isEmpty {
            if !text.hasSuffix("\n\n") { text += "\n" }
            text += "Options:\n"
            for option in options {
                let left = option.spelled
                // Two spaces at least between the option and its description.
                text += "  " + (left + " ").padding(18) + option.help + "\n"
            }
            text += "\n"
        }
        return text
    }
}
