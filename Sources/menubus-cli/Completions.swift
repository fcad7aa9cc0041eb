import MenuBus
import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// `menubus-cli completions SHELL`: shell completion scripts and the man
/// page, generated from `CommandTable`.
enum Completions {
    static let command = CommandLineTool.Command(
        name: "completions", summary: "print a bash or zsh completion script, or the man page",
        usage: """
            Usage: menubus-cli completions bash|zsh|man

            Prints a completion script (or with 'man' the menubus-cli(1) page), made
            from the same table as this help. 'make install' installs them; by hand:
              menubus-cli completions bash > ~/.local/share/bash-completion/completions/menubus-cli
            The scripts ask the running daemon for app ids, context ids, the item ids
            of a context's menu, the undo documents its contexts name and the paths
            of the menus presented now (menubus-cli completions --list apps,
            --list contexts APP, --list items APP CONTEXT [--edit],
            --list documents APP, --list menus).

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        if let what = try arguments.option("--list") {
            return try list(what, &arguments, options)
        }
        let shell = try arguments.required("SHELL")
        try arguments.finish()
        switch shell {
        case "bash": Output.out(bash())
        case "zsh": Output.out(zsh())
        case "man": Output.out(ManPage.cli())
        default: throw UsageError("unknown shell '\(shell)'; bash, zsh or man")
        }
        return 0
    }

    /// Live names for completion, one a line; nothing (and status 0) when no daemon answers.
    static func list(_ what: String, _ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        guard ["apps", "contexts", "items", "documents", "menus"].contains(what) else {
            throw UsageError("--list takes apps, contexts, items, documents or menus")
        }
        let edit = arguments.remove("--edit")
        let app = what == "apps" || what == "menus" ? nil : try arguments.required("APP")
        let contextId = what == "items" ? try arguments.required("CONTEXT") : nil
        try arguments.finish()
        guard let client = try? MenuBusClient(address: options.address) else { return 0 }
        client.callTimeout = 1
        var names: [String] = []
        switch what {
        case "menus":
            // The numbered objects below the presented menus' root, as introspection lists them.
            let root = String(MenuCommand.presentedPrefix.dropLast())
            guard let reply = try? client.connection.callBlocking(
                destination: MenuBusNames.busName, path: ObjectPath(validating: root),
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect", arguments: [], timeout: 1),
                case .string(let xml)? = reply.first else { return 0 }
            names = xml.matches(of: #/<node name="([0-9]+)"/#).map { MenuCommand.presentedPrefix + $0.output.1 }
        case "items":
            // What activate can choose: the actions of the menu it presents.
            guard let app, let contextId,
                  let menu = try? edit ? client.editMenu(owner: app, contextId: contextId)
                                       : client.contextMenu(owner: app, contextId: contextId) else { return 0 }
            names = menu.elements.filter { $0.kind == .action && $0.attributes.isDisjoint(with: [.disabled, .hidden]) }.map(\.id)
            // And what the menu carries beside its items: its preview, a button's tap.
            if let context = try? client.publishedContext(owner: app, contextId: contextId).context {
                if context.preview != nil { names.append(ElementID.preview) }
                if context.primaryAction != nil { names.append(ElementID.primaryAction) }
            }
        default:
            guard let contexts = try? client.listContexts() else { return 0 }
            let own = contexts.filter { $0.appId == app || $0.owner == app }
            switch what {
            case "apps": names = contexts.map(\.appId)
            case "contexts": names = own.map(\.contextId)
            default:
                names = own.compactMap { try? client.publishedContext(owner: $0.owner, contextId: $0.contextId).context.document }
            }
        }
        var seen: Set<String> = []
        for name in names where seen.insert(name).inserted { Output.out(name + "\n") }
        return 0
    }

    static var commandNames: [String] { CommandLineTool.commands.map(\.name) }

    static func bash() -> String {
        let valueOptions = Set((CommandTable.global + CommandTable.entries.values.flatMap(\.options)).filter { $0.value != nil }.map(\.name))
        var perCommand = ""
        for name in commandNames {
            let entry = CommandTable.entry(name)
            var valueCases = ""
            for option in entry.options where option.value != nil {
                valueCases += "                \(option.name)) \(bashValue(option)) ;;\n"
            }
            var operandCases = ""
            for (index, operand) in entry.operands.enumerated() {
                operandCases += "                \(index)) \(bashOperand(operand)) ;;\n"
            }
            let optionWords = (entry.options.map(\.name) + ["--help"]).joined(separator: " ")
            perCommand += """
                        \(name))
                            case "$prev" in
                \(valueCases)            esac
                            if [[ $cur == -* && -z $ended ]]; then _menubus_cli_words "\(optionWords)"; return; fi
                            case ${#operands[@]} in
                \(operandCases)            esac ;;

                """
        }
        return """
            # bash completion for menubus-cli, generated from its command table
            # ('menubus-cli completions bash'); live ids come from the daemon.
            _menubus_cli_words() {
                local words
                words=$(printf '%s\\n' $1)
                local IFS=$'\\n'
                COMPREPLY+=($(compgen -W "$words" -- "$cur"))
            }
            _menubus_cli_files() {
                local IFS=$'\\n'
                COMPREPLY+=($(compgen -f -- "$cur"))
            }
            _menubus_cli_live() {
                local IFS=$'\\n'
                COMPREPLY+=($(compgen -W "$(menubus-cli "${address[@]}" completions --list "$@" 2>/dev/null)" -- "$cur"))
            }
            _menubus_cli() {
                # Ids hold ':' (menubus:copy) and addresses ':' and '='
                # (unix:path=/run/user/1000/bus), where bash splits words: join
                # them again, but not an option's '=' (--color=WHEN).
                local -a words=()
                local j last
                for ((j = 0; j <= COMP_CWORD; j++)); do
                    last=${words[${#words[@]}-1]}
                    if ((${#words[@]} > 1)) && { [[ ${COMP_WORDS[j]} == : || $last == *: ]] ||
                            { [[ ${COMP_WORDS[j]} == = || $last == *= ]] && [[ $last != -* && $last != = ]]; }; }; then
                        words[${#words[@]}-1]+=${COMP_WORDS[j]}
                    else
                        words+=("${COMP_WORDS[j]}")
                    fi
                done
                local cword=$((${#words[@]} - 1))
                local cur=${words[cword]} prev=${words[cword-1]}
                # Replies are for the part of the word after bash's last split.
                local split=${cur%"${COMP_WORDS[COMP_CWORD]}"}
                [[ ${COMP_WORDS[COMP_CWORD]} == [:=] ]] && split=$cur
                local IFS=$' \\t\\n'
                COMPREPLY=()
                _menubus_cli_words_of "$@"
                local k
                if [[ -n $split ]]; then
                    for k in "${!COMPREPLY[@]}"; do COMPREPLY[k]=${COMPREPLY[k]#"$split"}; done
                fi
            }
            _menubus_cli_words_of() {
                # --color=WHEN arrives as '--color' '=' 'WHEN'.
                if [[ $cur == = ]]; then cur=""; fi
                if [[ $prev == = ]]; then prev=${words[cword-2]}; fi
                local -a address=() operands=()
                local i word command="" ended="" edit=""
                for ((i = 1; i < cword; i++)); do
                    word=${words[i]}
                    if [[ -n $ended ]]; then operands+=("$word"); continue; fi
                    case "$word" in
                        --) ended=1 ;;
                        --edit) edit=--edit ;;
                        --address) ((i++)); [[ ${words[i]} == = ]] && ((i++)); address=(--address "${words[i]}") ;;
                        \(valueOptions.sorted().filter { $0 != "--address" }.joined(separator: "|"))) ((i++)); [[ ${words[i]} == = ]] && ((i++)) ;;
                        -*) ;;
                        *) if [[ -z $command ]]; then command=$word; else operands+=("$word"); fi ;;
                    esac
                done
                case "$prev" in
                    --address) return ;;
                    --color) _menubus_cli_words "\(CommandTable.colourWords.joined(separator: " "))"; return ;;
                esac
                if [[ -z $command ]]; then
                    if [[ $cur == -* ]]; then
                        _menubus_cli_words "\(CommandTable.global.map(\.name).joined(separator: " ")) -h"
                    else
                        _menubus_cli_words "\(commandNames.joined(separator: " ")) help"
                    fi
                    return
                fi
                case "$command" in
                    help) [[ ${#operands[@]} == 0 ]] && _menubus_cli_words "\(commandNames.joined(separator: " "))" ;;
            \(perCommand)    esac
            }
            complete -o filenames -F _menubus_cli menubus-cli

            """
    }

    private static func bashValue(_ option: CommandTable.Option) -> String {
        switch option.kind {
        case .file:
            // ID=FILE: complete the file after the '=' bash splits off.
            option.value?.contains("=") == true ? "return" : "_menubus_cli_files; return"
        case .app: "_menubus_cli_live apps; return"
        default: "return"
        }
    }

    private static func bashOperand(_ operand: CommandTable.Operand) -> String {
        switch operand.kind {
        case .app where operand.orMenuPath:
            "if [[ $cur == /* ]]; then _menubus_cli_live menus; else _menubus_cli_live apps; fi"
        case .app: "_menubus_cli_live apps"
        case .context: "_menubus_cli_live contexts \"${operands[0]}\""
        case .item: "_menubus_cli_live items \"${operands[0]}\" \"${operands[1]}\" $edit"
        case .document: "_menubus_cli_live documents \"${operands[0]}\""
        case .file: "_menubus_cli_files"
        case .words: "_menubus_cli_words \"\(operand.words.joined(separator: " "))\""
        case .text: ":"
        }
    }

    /// A string for inside zsh single quotes, and for an _arguments description.
    private static func zshQuoted(_ text: String) -> String {
        text.replacing("'", with: "'\\''").replacing("[", with: "\\[").replacing("]", with: "\\]").replacing(":", with: "\\:")
    }

    /// A `_describe` entry `name:description` inside zsh single quotes: only
    /// the name's colons are escaped, the description is shown as it is.
    private static func zshDescribed(_ name: String, _ description: String) -> String {
        "'" + name.replacing(":", with: "\\:").replacing("'", with: "'\\''") + ":" + description.replacing("'", with: "'\\''") + "'"
    }

    static func zsh() -> String {
        // The descriptions are the help's: the summaries 'menubus-cli --help' lists, each option's line of its Options.
        let described = CommandLineTool.commands.map { zshDescribed($0.name, $0.summary) }.joined(separator: " ")
        let help = CommandTable.global.first { $0.name == "--help" }?.help ?? ""
        var perCommand = ""
        for name in commandNames {
            let entry = CommandTable.entry(name)
            var specs: [String] = []
            for option in entry.options {
                let prefix = option.repeats ? "*" : ""
                if let value = option.value {
                    let action = option.kind == .file && !value.contains("=") ? "_files" : ""
                    specs.append("'\(prefix)\(option.name)=[\(zshQuoted(option.help))]:\(value.lowercased()):\(action)'")
                } else {
                    specs.append("'\(option.name)[\(zshQuoted(option.help))]'")
                }
            }
            for (index, operand) in entry.operands.enumerated() {
                let action: String
                switch operand.kind {
                case .app where operand.orMenuPath: action = "{_menubus_cli_live apps; _menubus_cli_live menus}"
                case .app: action = "{_menubus_cli_live apps}"
                case .context: action = "{_menubus_cli_live contexts $line[1]}"
                case .item: action = "{_menubus_cli_live items $line[1] $line[2] ${(M)words:#--edit}}"
                case .document: action = "{_menubus_cli_live documents $line[1]}"
                case .file: action = "_files"
                case .words: action = "(\(operand.words.joined(separator: " ")))"
                case .text: action = " "
                }
                specs.append("'\(index + 1):\(operand.optional ? ":" : "")\(operand.name.lowercased()):\(action)'")
            }
            specs.append("'(- *)--help[\(zshQuoted(help))]'")
            perCommand += "                \(name)) _arguments \(specs.joined(separator: " ")) ;;\n"
        }
        let globals = CommandTable.global.map { option -> String in
            switch option.name {
            case "--address": return "'--address=[\(zshQuoted(option.help))]:address: '"
            case "--color": return "'--color=[\(zshQuoted(option.help))]:when:(\(CommandTable.colourWords.joined(separator: " ")))'"
            case "--help", "--version": return "'(- *)\(option.name)[\(zshQuoted(option.help))]'"
            default: return "'\(option.name)[\(zshQuoted(option.help))]'"
            }
        }
        return """
            #compdef menubus-cli
            # zsh completion for menubus-cli, generated from its command table
            _menubus_cli_live() {
                local -a names
                names=(${(f)"$(menubus-cli completions --list "$@" 2>/dev/null)"})
                compadd -a names
            }
            _menubus_cli() {
                local -a commands
                local curcontext=$curcontext state line
                commands=(\(described))
                _arguments -C \\
                    \(globals.joined(separator: " \\\n        ")) \\
                    '1:command:->command' \\
                    '*::argument:->argument'
                case $state in
                    command) _describe 'command' commands ;;
                    argument)
                        case $words[1] in
                            help) _describe 'command' commands ;;
            \(perCommand)            esac ;;
                esac
            }
            _menubus_cli "$@"

            """
    }
}
