import MenuBus
import MenuBusModel

/// menubus-cli(1), generated from `CommandTable` and the commands' summaries
/// ('menubus-cli completions man'); docs/man/menubus-cli.1 is its output.
enum ManPage {
    /// Text for roff: hyphens and backslashes escaped, no line starting with a control character.
    static func roff(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// `.B name` then `.RI`/`.RB` words for an option or synopsis.
    static func option(_ option: CommandTable.Option) -> String {
        var line = "\\fB" + roff(option.name) + "\\fR"
        if let value = option.value { line += (option.attached ? "=" : " ") + "\\fI" + roff(value) + "\\fR" }
        return line
    }

    static func synopsis(_ name: String) -> String {
        let entry = CommandTable.entry(name)
        var words = ["\\fB" + roff(name) + "\\fR"]
        for operand in entry.operands {
            let word = operand.kind == .words
                ? operand.words.map { "\\fB" + roff($0) + "\\fR" }.joined(separator: "|") : "\\fI" + roff(operand.name) + "\\fR"
            words.append(operand.optional ? "[" + word + "]" : word)
        }
        for item in entry.options {
            words.append("[" + option(item) + "]" + (item.repeats ? "..." : ""))
        }
        return words.joined(separator: " ")
    }

    /// "print data as JSON" → "Print data as JSON."
    static func sentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    static func cli() -> String {
        var page = """
            .TH MENUBUS\\-CLI 1 "2026-12" "MenuBus \(MenuBusNames.softwareVersion)" "MenuBus"
            .SH NAME
            menubus\\-cli \\- query and debug menubusd, the MenuBus session service
            .SH SYNOPSIS
            .B menubus\\-cli
            [\\fIOPTIONS\\fR]
            .I COMMAND
            [\\fIARGS\\fR] [\\fB\\-\\-\\fR] [\\fIOPERANDS\\fR]
            .SH DESCRIPTION
            .B menubus\\-cli
            talks to
            .BR menubusd (8)
            on the session bus: it shows what apps published and the menus menubusd
            composes, presents and chooses from menus, watches the messages to and
            from menubusd, checks menu files against the design rules, turns
            MenuBus's GTK 3 module on or off for the user's sessions, and runs a
            small demo. Help, this page and the shell completions are generated from
            one table, so they agree.
            .SH OPTIONS
            These stand anywhere before
            .BR \\-\\- ,
            which ends options: what follows is an operand even when it starts with
            a hyphen. A
            .I FILE
            of
            .B \\-
            is standard input.

            """
        for item in CommandTable.global {
            page += ".TP\n" + option(item) + "\n" + roff(sentence(item.help)) + "\n"
        }
        page += ".SH COMMANDS\n"
        for command in CommandLineTool.commands {
            page += ".TP\n" + synopsis(command.name) + "\n" + roff(sentence(command.summary)) + "\n"
            let options = CommandTable.entry(command.name).options
            if !options.isEmpty {
                page += ".RS\n"
                for item in options {
                    page += ".TP\n" + option(item) + "\n" + roff(sentence(item.help)) + "\n"
                }
                page += ".RE\n"
            }
        }
        page += """
            .SH MENU FILES
            A menu is a JSON array of elements, each an object with
            .B id
            (required),
            .BR title ,
            .BR subtitle ,
            .B type
            .RB ( action ", " menu ", " deferred ),
            .BR icon ,
            .BR attributes ,
            .BR state ,
            .BR shortcut ,
            .BR command ,
            .BR options ,
            .BR element\\-size ,
            .BR cached ,
            .B children
            and, on a deferred element,
            .B provides
            (the elements
            .B publish
            answers it with). A file may instead be an object with
            .B items
            and optionally
            .BR app ", " context\\-id ", " context ", " selection ,
            and what
            .B menu \\-\\-json
            adds
            .RB ( kind ", " revision ", " composed ),
            so its output publishes as it is and prints again byte for byte.
            .SH ENVIRONMENT
            .TP
            .B NO_COLOR
            When set, colour
            .B auto
            uses no colour.
            .TP
            .B TERM
            When
            .BR dumb ,
            colour
            .B auto
            uses no colour.
            .TP
            .B DBUS_SESSION_BUS_ADDRESS
            The session bus.
            .TP
            .B XDG_CONFIG_HOME
            Where
            .B providers
            and
            .B integrate
            write their files (default
            .IR ~/.config ).
            .TP
            .BR GTK_PATH ", " GTK_EXE_PREFIX
            Where
            .B integrate \\-\\-status
            looks for the GTK 3 module, as GTK 3 does.
            .TP
            .B GTK_MODULES
            .B integrate \\-\\-status
            says whether it names
            .BR menubus ,
            that is whether this session loads the module.
            .TP
            .B QT_PLUGIN_PATH
            Where
            .B integrate \\-\\-status
            looks for the Qt platform theme, before Qt's own plugin folders.
            .TP
            .BR QT_QPA_PLATFORMTHEME ", " MENUBUS_QT_WRAPPED_THEME
            The session's Qt theme, which
            .B integrate qt \\-\\-enable
            records as the one to wrap; and whether this session loads the wrapper.
            .SH FILES
            .TP
            .I $XDG_CONFIG_HOME/environment.d/60\\-menubus.conf
            Written by
            .B integrate \\-\\-enable
            and removed by
            .BR "integrate \\-\\-disable" :
            it appends
            .B menubus
            to the session's
            .BR GTK_MODULES .
            A file of that name without its first comment line is never changed.
            .TP
            .I $XDG_CONFIG_HOME/environment.d/90\\-menubus\\-qt.conf
            Written by
            .B integrate qt \\-\\-enable
            and removed by
            .BR "integrate qt \\-\\-disable" :
            it sets
            .B MENUBUS_QT_WRAPPED_THEME
            to the session's
            .B QT_QPA_PLATFORMTHEME
            (else the one it had at
            .BR \\-\\-enable ),
            then
            .BR QT_QPA_PLATFORMTHEME=menubus .
            Removing it puts back what was there. A file of that name without its first comment line is never changed.
            .TP
            .I $XDG_CONFIG_HOME/menubus/providers.conf
            The choices
            .B providers
            makes.
            .SH EXIT STATUS
            0 ok; 1 a failure reported by or about the daemon, or reading a file;
            2 a usage error; 3 findings of lint or providers --check.
            .SH SEE ALSO
            .BR menubusd (8),
            .BR environment.d (5),
            .BR busctl (1),
            .BR dbus\\-monitor (1)

            """
        return page
    }
}
