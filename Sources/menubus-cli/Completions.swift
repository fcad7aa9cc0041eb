/// `menubus-cli completions SHELL`: shell completion scripts.
enum Completions {
    static let command = CommandLineTool.Command(
        name: "completions", summary: "print a bash or zsh completion script",
        usage: """
            Usage: menubus-cli completions bash|zsh

            Prints a completion script. 'make install' installs both; by hand:
              menubus-cli completions bash > ~/.local/share/bash-completion/completions/menubus-cli

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let shell = try arguments.required("SHELL")
        try arguments.finish()
        let names = CommandLineTool.commands.map(\.name).joined(separator: " ")
        switch shell {
        case "bash":
            Output.out("""
                # bash completion for menubus-cli
                _menubus_cli() {
                    local cur prev words cword
                    _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
                    local commands="\(names) help"
                    case "$prev" in
                        --address) return ;;
                        lint|publish) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                        completions) COMPREPLY=($(compgen -W "bash zsh" -- "$cur")); return ;;
                    esac
                    local i command=""
                    for ((i = 1; i < COMP_CWORD; i++)); do
                        case "${COMP_WORDS[i]}" in
                            --address) ((i++)) ;;
                            -*) ;;
                            *) command=${COMP_WORDS[i]}; break ;;
                        esac
                    done
                    if [[ -z $command ]]; then
                        COMPREPLY=($(compgen -W "$commands --address --json --help --version" -- "$cur"))
                        return
                    fi
                    case "$command" in
                        menu) COMPREPLY=($(compgen -W "--edit --json --changes --help" -- "$cur")) ;;
                        present) COMPREPLY=($(compgen -W "--edit --json --changes --follow --help" -- "$cur")) ;;
                        monitor) COMPREPLY=($(compgen -W "--count --json --help" -- "$cur")) ;;
                        lint) COMPREPLY=($(compgen -W "--edit --json --help" -- "$cur") $(compgen -f -- "$cur")) ;;
                        publish) COMPREPLY=($(compgen -W "--app --context --for --json --help" -- "$cur") $(compgen -f -- "$cur")) ;;
                        provider) COMPREPLY=($(compgen -W "--id --title --for --help" -- "$cur")) ;;
                        providers) COMPREPLY=($(compgen -W "--enable --disable --prefer --json --help" -- "$cur")) ;;
                        *) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
                    esac
                }
                complete -F _menubus_cli menubus-cli

                """)
        case "zsh":
            let described = CommandLineTool.commands.map { "'\($0.name):\($0.summary.replacingQuotes())'" }.joined(separator: " ")
            Output.out("""
                #compdef menubus-cli
                # zsh completion for menubus-cli
                _menubus_cli() {
                    local -a commands
                    commands=(\(described))
                    _arguments -C \\
                        '--address[D-Bus address]:address:' \\
                        '--json[print data as JSON]' \\
                        '(- *)--help[show help]' \\
                        '(- *)--version[show the version]' \\
                        '1:command:->command' \\
                        '*::argument:->argument'
                    case $state in
                        command) _describe 'command' commands ;;
                        argument)
                            case $words[1] in
                                lint|publish) _files ;;
                                completions) _values 'shell' bash zsh ;;
                                menu) _arguments '--edit[the edit menu]' '--json[JSON output]' ;;
                                present) _arguments '--edit[the edit menu]' '--json[JSON output]' '--changes[stop after N changes]:N' '--follow[present again after a daemon restart]' ;;
                            esac ;;
                    esac
                }
                _menubus_cli "$@"

                """)
        default:
            throw UsageError("unknown shell '\(shell)'; bash or zsh")
        }
        return 0
    }
}

extension String {
    func replacingQuotes() -> String {
        replacing("'", with: "")
    }
}
