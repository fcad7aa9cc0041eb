import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Help, completions and man pages come from one table: bash completion run
/// for real (`complete -p`, the completion function with COMP_WORDS), zsh
/// parsed, man pages rendered with warnings on.
final class CompletionTests: BusTestCase {
    private func cli(_ arguments: [String]) throws -> ProcessResult {
        try bus.run("menubus-cli", arguments, extraEnvironment: ["NO_COLOR": "1"])
    }

    private func shell(_ program: String, _ script: String, environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-c", script]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = Binaries.directory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        process.environment = env.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, errors)
    }

    private func bashScript() throws -> URL {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-completion-\(UUID().uuidString).bash")
        try cli(["completions", "bash"]).stdout.write(to: script, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: script) }
        return script
    }

    /// What bash's completion function offers for `words`, the last being the word under the cursor.
    private func complete(_ words: [String], script: URL, environment: [String: String] = [:]) throws -> [String] {
        let quoted = words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        let (status, out, err) = try shell("/bin/bash", """
            source '\(script.path)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _menubus_cli
            printf '%s\\n' "${COMPREPLY[@]}"
            """, environment: environment)
        XCTAssertEqual(status, 0, err)
        return out.split(separator: "\n").map(String.init)
    }

    func testBashCompletionFollowsTheTable() throws {
        let script = try bashScript()
        let (_, spec, _) = try shell("/bin/bash", "source '\(script.path)' && complete -p menubus-cli")
        XCTAssertTrue(spec.contains("-o filenames"), spec)
        XCTAssertTrue(spec.contains("-F _menubus_cli"), spec)
        XCTAssertTrue(try complete(["menubus-cli", ""], script: script).contains("undo-state"))
        XCTAssertEqual(try complete(["menubus-cli", "help", "pu"], script: script), ["publish"])
        // Options per command, as the table (and so the help) has them.
        XCTAssertEqual(Set(try complete(["menubus-cli", "menu", "--"], script: script)), ["--edit", "--locale", "--json", "--help"])
        XCTAssertFalse(try complete(["menubus-cli", "menu", "--"], script: script).contains("--changes"))
        XCTAssertTrue(try complete(["menubus-cli", "present", "--"], script: script).contains("--changes"))
        for command in ["status", "menu", "present", "monitor", "lint", "publish", "provider", "undo-state", "integrate"] {
            let help = try cli(["help", command]).stdout
            for option in try complete(["menubus-cli", command, "--"], script: script) where option != "--help" {
                XCTAssertTrue(help.contains("  " + option), "\(command) --help lacks \(option)")
            }
        }
        XCTAssertEqual(try complete(["menubus-cli", "--color", "=", "al"], script: script), ["always"])
        // integrate: its actions, and the toolkit it may be given.
        XCTAssertEqual(Set(try complete(["menubus-cli", "integrate", "--"], script: script)),
                       ["--enable", "--disable", "--status", "--key", "--app", "--json", "--help"])
        XCTAssertEqual(try complete(["menubus-cli", "integrate", "--enable", ""], script: script), ["gtk", "qt", "shortcut", "edit-bar"])
        XCTAssertEqual(try complete(["menubus-cli", "integrate", "gtk", ""], script: script), [])
    }

    func testBashCompletesFileNamesWithSpacesAsOneWord() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub dir"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let script = try bashScript()
        XCTAssertEqual(try complete(["menubus-cli", "lint", directory.path + "/su"], script: script), [directory.path + "/sub dir"])
        XCTAssertEqual(try complete(["menubus-cli", "publish", "--for", "3", directory.path + "/su"], script: script),
                       [directory.path + "/sub dir"])
    }

    func testBashCompletesLiveAppIdsAndContextsAfterAddress() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Notes")
        try app.publishContext("note-7", ContextInfo())
        let script = try bashScript()
        // No session bus in the environment: only --address leads to the daemon.
        let away = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
        let address = try bus.address
        XCTAssertEqual(try complete(["menubus-cli", "--address", address, "menu", "org.ex"], script: script, environment: away),
                       ["org.example.Notes"])
        XCTAssertEqual(try complete(["menubus-cli", "menu", "--address", address, "org.example.Notes", ""], script: script,
                                    environment: away), ["note-7"])
        XCTAssertEqual(try complete(["menubus-cli", "menu", "org.ex"], script: script, environment: away), [])
        // As bash really passes an address: split at ':' and '=', and as --address=ADDRESS too.
        let split = bashWords(address)
        XCTAssertGreaterThan(split.count, 3, "\(split)")
        XCTAssertTrue(try complete(["menubus-cli", "--address"] + split + [""], script: script, environment: away).contains("menu"))
        XCTAssertEqual(try complete(["menubus-cli", "--address"] + split + ["menu", "org.ex"], script: script, environment: away),
                       ["org.example.Notes"])
        XCTAssertEqual(try complete(["menubus-cli", "--address", "="] + split + ["menu", "org.example.Notes", ""], script: script,
                                    environment: away), ["note-7"])
        XCTAssertEqual(try complete(["menubus-cli", "--address"] + split, script: script, environment: away), [],
                       "nothing to offer inside the address")
    }

    /// `text` as bash's COMP_WORDS has it: ':' and '=' (of COMP_WORDBREAKS) are words of their own.
    private func bashWords(_ text: String) -> [String] {
        var words: [String] = []
        for character in text {
            let isBreak = character == ":" || character == "="
            if let last = words.last, (last == ":" || last == "=") == isBreak, !isBreak {
                words[words.count - 1].append(character)
            } else {
                words.append(String(character))
            }
        }
        return words
    }

    func testBashCompletesLiveItemIdsOfTheMenuAndDocuments() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Notes")
        try app.publishContext("note-7", ContextInfo(kind: .text, editable: true, hasContent: true, document: "notes-doc"),
                               items: [MenuElement(id: "pin", title: "Pin"), MenuElement(id: "archive", title: "Archive"),
                                       MenuElement(id: "gone", title: "Gone", attributes: [.hidden])])
        try app.updateSelection("note-7", Selection(kind: .range, length: 3, text: "abc"))
        let script = try bashScript()
        let env = ["DBUS_SESSION_BUS_ADDRESS": try bus.address]
        let base = ["menubus-cli", "activate", "org.example.Notes", "note-7"]
        // The context menu's actions, composed ones too; the hidden one cannot be chosen.
        XCTAssertEqual(try complete(base + [""], script: script, environment: env).sorted(), ["archive", "menubus:copy", "pin"])
        XCTAssertEqual(try complete(base + ["p"], script: script, environment: env), ["pin"])
        // The edit menu with --edit; bash splits 'menubus:c' at the colon, and the replies continue after it.
        let edit = try complete(["menubus-cli", "activate", "--edit", "org.example.Notes", "note-7", "menubus", ":", "c"],
                                script: script, environment: env)
        XCTAssertEqual(Set(edit), ["copy", "cut"], "\(edit)")
        XCTAssertTrue(try complete(["menubus-cli", "activate", "org.example.Notes", "note-7", "--edit", "menubus", ":"],
                                   script: script, environment: env).contains("select-all"))
        XCTAssertEqual(try complete(["menubus-cli", "activate", "--edit", "org.example.Notes", "note-7", "menubus:c"],
                                    script: script, environment: env).sorted(), ["menubus:copy", "menubus:cut"])
        // Every word the completion offered is an item activate takes.
        let chosen = try cli(["--address", try bus.address, "activate", "org.example.Notes", "note-7", "archive"])
        XCTAssertEqual(chosen.status, 0, chosen.stderr)
        XCTAssertEqual(try complete(["menubus-cli", "undo-state", "org.example.Notes", ""], script: script, environment: env),
                       ["notes-doc"])
        // What a menu carries beside its items: a preview, a button's tap.
        try app.publishContext("photo", ContextInfo(kind: .image, preview: ContextPreview(title: "Beach.png")),
                               items: [MenuElement(id: "rename", title: "Rename")])
        try app.publishContext("new", ContextInfo(kind: .button, primaryAction: "blank"),
                               items: [MenuElement(id: "blank", title: "Blank", attributes: [.hidden]),
                                       MenuElement(id: "letter", title: "Letter")])
        XCTAssertEqual(try complete(["menubus-cli", "activate", "org.example.Notes", "photo", ""], script: script,
                                    environment: env).sorted(), ["menubus:copy", "menubus:preview", "rename"])
        XCTAssertEqual(try complete(["menubus-cli", "activate", "org.example.Notes", "new", ""], script: script,
                                    environment: env).sorted(), ["letter", "menubus:primary-action"])
        XCTAssertEqual(try complete(base + [""], script: script, environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"]),
                       [], "no daemon, nothing offered")
    }

    /// `menu PATH` prints a menu presented now, and bash completes the
    /// paths of the menus the running daemon presents, app ids otherwise.
    func testBashCompletesThePathsOfMenusPresentedNow() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Notes")
        try app.publishContext("note-7", ContextInfo(), items: [MenuElement(id: "pin", title: "Pin Note")])
        let script = try bashScript()
        let env = ["DBUS_SESSION_BUS_ADDRESS": try bus.address]
        let prefix = "/org/menubus/MenuBus1/menu/"
        XCTAssertEqual(try complete(["menubus-cli", "menu", prefix], script: script, environment: env), [], "none presented")
        let presenter = try client()
        let shown = try presenter.present(owner: "org.example.Notes", contextId: "note-7", kind: .context)
        let other = try presenter.present(owner: "org.example.Notes", contextId: "note-7", kind: .edit)
        XCTAssertEqual(Set(try complete(["menubus-cli", "menu", prefix], script: script, environment: env)),
                       [shown.path.rawValue, other.path.rawValue])
        XCTAssertEqual(try complete(["menubus-cli", "menu", "/"], script: script, environment: env).count, 2)
        XCTAssertEqual(try complete(["menubus-cli", "menu", "org.ex"], script: script, environment: env), ["org.example.Notes"],
                       "app ids where no path is begun")
        XCTAssertEqual(try complete(["menubus-cli", "undo-state", "/"], script: script, environment: env), [],
                       "only where a path may stand")

        let printed = try cli(["menu", shown.path.rawValue])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        XCTAssertTrue(printed.stdout.hasPrefix("Presented menu \(shown.path.rawValue)") && printed.stdout.contains("Pin Note"),
                      printed.stdout)
        XCTAssertEqual(try cli(["menu", shown.path.rawValue, "--edit"]).status, 2, "a presented menu has its kind")
        try presenter.dismiss(shown)
        XCTAssertTrue(eventually(timeout: 10) {
            (try? self.complete(["menubus-cli", "menu", prefix], script: script, environment: env)) == [other.path.rawValue]
        }, "a dismissed menu is no longer offered")
        XCTAssertEqual(try cli(["menu", shown.path.rawValue]).status, 1, "nor printed")
    }

    func testZshCompletionKeepsApostrophesAndHasOptionsForEveryCommand() throws {
        let zsh = try cli(["completions", "zsh"]).stdout
        XCTAssertTrue(zsh.hasPrefix("#compdef menubus-cli"))
        XCTAssertTrue(zsh.contains("daemon'\\''s version"), "apostrophes kept")
        for command in ["monitor", "publish", "provider", "undo-state", "lint", "present"] {
            let line = try XCTUnwrap(zsh.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(command + ")") })
            XCTAssertTrue(line.contains("_arguments"), String(line))
        }
        XCTAssertTrue(zsh.contains("'--count=[stop after N messages]:n:'"), zsh)
        XCTAssertTrue(zsh.contains("'3:item:{_menubus_cli_live items $line[1] $line[2] ${(M)words:#--edit}}'"), zsh)
        XCTAssertTrue(zsh.contains("'2:document:{_menubus_cli_live documents $line[1]}'"), zsh)
        XCTAssertTrue(zsh.contains("'1:app:{_menubus_cli_live apps; _menubus_cli_live menus}'"), "menu's APP or PATH: \(zsh)")
        XCTAssertTrue(zsh.contains("'1::toolkit:(gtk qt shortcut edit-bar)'"), "the toolkit may be left out: \(zsh)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("_menubus-\(UUID().uuidString)")
            try zsh.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let (status, _, err) = try shell("/usr/bin/zsh", "zsh -n '\(file.path)'")
            XCTAssertEqual(status, 0, err)
        }
    }

    /// What zsh's completion really lists for each of `lines` (a command
    /// line, completed at its end), as (line, match, description): the
    /// generated script loaded by compinit in an interactive zsh on a
    /// pseudo-terminal, `compadd` wrapped to print what it adds.
    private func zshCompletions(_ lines: [String]) throws -> [(line: String, match: String, description: String)] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-zsh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        try cli(["completions", "zsh"]).stdout.write(to: directory.appendingPathComponent("_menubus_cli"), atomically: true,
                                                    encoding: .utf8)
        let out = directory.appendingPathComponent("out").path, done = directory.appendingPathComponent("done").path
        let typed = lines.enumerated().map { "typed '\($1.replacing("'", with: "'\\''"))' \($0 + 1)" }.joined(separator: "\n")
        let driver = #"""
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z "stty columns 300 rows 200; unsetopt autolist; PROMPT=''; fpath=(\#(directory.path) \$fpath); autoload -Uz compinit; compinit -u -D"
            zpty -w z 'compadd () {
              if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
              local -a hits descriptions
              local given
              if (( $@[(I)-d] )); then
                given=${@[$[${@[(i)-d]}+1]]}
                if [[ $given == \(* ]]; then eval "descriptions=$given"; else descriptions=( "${(@P)given}" ); fi
              fi
              builtin compadd -A hits -D descriptions "$@"
              local i
              for i in {1..$#hits}; do print -r -- "$BUFFER<MATCH>$hits[$i]<DESC>$descriptions[$i]" >> \#(out); done
            }'
            zpty -w z "bindkey '^I' complete-word; bindkey '^U' kill-whole-line"
            # Types a line and Tab, clears it, marks its end, and waits for
            # the mark, reading what zsh draws so the terminal never fills.
            typed() {
              zpty -w z "$1"$'\t'; zpty -w z $'\C-u'; zpty -w z $'print -r -- "<END>" >> \#(out)\n'
              local i drawn
              for i in {1..500}; do
                while zpty -r -t z drawn; do :; done
                [[ $(grep -c '<END>' \#(out) 2>/dev/null) == $2 ]] && return
                sleep 0.02
              done
            }
            \#(typed)
            zpty -w z $'print done > \#(done)\n'
            for i in {1..500}; do [[ -e \#(done) ]] && break; while zpty -r -t z drawn; do :; done; sleep 0.02; done
            zpty -d z
            """#
        // No daemon: the live lists answer nothing at once.
        let (status, _, errors) = try shell("/usr/bin/zsh", driver,
                                            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        XCTAssertEqual(status, 0, errors)
        XCTAssertTrue(FileManager.default.fileExists(atPath: done), "zsh finished: \(errors)")
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { row in
            guard let match = row.range(of: "<MATCH>"), let description = row.range(of: "<DESC>") else { return nil }
            let shown = row[description.upperBound...]
            // A described match shows as 'name   -- description'.
            let said = shown.range(of: " -- ").map { String(shown[$0.upperBound...]) } ?? ""
            return (String(row[..<match.lowerBound]), String(row[match.upperBound..<description.lowerBound]), said)
        }
    }

    /// zsh describes each command with the summary `menubus-cli --help`
    /// lists and each option with its line in the command's help, every one
    /// of them, `--help` included.
    func testZshDescriptionsAreTheHelpsOwn() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else { throw XCTSkip("no zsh") }
        let commands = try cli(["--help"]).stdout.split(separator: "\n").drop { $0 != "Commands:" }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.map { line -> (String, String) in
                let name = line.dropFirst(2).prefix { $0 != " " }
                return (String(name), line.dropFirst(2 + name.count).trimmingCharacters(in: .whitespaces))
            }
        XCTAssertGreaterThan(commands.count, 10)
        let listed = try zshCompletions(["menubus-cli "] + commands.map { "menubus-cli \($0.0) --" })
        let top = listed.filter { $0.line == "menubus-cli " }
        XCTAssertEqual(top.map(\.match), commands.map(\.0))
        for (name, summary) in commands {
            XCTAssertEqual(top.first { $0.match == name }?.description, summary, "zsh's description of \(name)")
            let help = try cli(["help", name]).stdout.split(separator: "\n").drop { $0 != "Options:" }.dropFirst()
                .prefix { $0.hasPrefix("  ") }.map { line -> (String, String) in
                    // '  --prefer ROLE ID  let provider ID…': the option, its value, two spaces, the description.
                    let text = line.dropFirst(2)
                    let gap = text.range(of: "  ")
                    let option = text.prefix { $0 != " " && $0 != "=" }
                    return (String(option), gap.map { text[$0.upperBound...].trimmingCharacters(in: .whitespaces) } ?? "")
                } + [("--help", "print help and exit")]
            let offered = listed.filter { $0.line == "menubus-cli \(name) --" && !$0.match.isEmpty }
            XCTAssertEqual(Set(offered.map(\.match)), Set(help.map(\.0)), "zsh's options of \(name)")
            for (option, description) in help {
                XCTAssertEqual(offered.first { $0.match == option }?.description, description, "\(name) \(option)")
            }
        }
    }

    func testManPagesAreGeneratedAndRenderWithoutWarnings() throws {
        let committed = try String(contentsOf: Repository.root.appendingPathComponent("docs/man/menubus-cli.1"), encoding: .utf8)
        XCTAssertEqual(try cli(["completions", "man"]).stdout, committed,
                       "docs/man/menubus-cli.1 is 'menubus-cli completions man'; regenerate it")
        XCTAssertTrue(committed.contains(".SH OPTIONS"))
        XCTAssertTrue(committed.contains("\\fBundo\\-state\\fR"))
        XCTAssertTrue(committed.contains("\\fBintegrate\\fR [\\fBgtk\\fR|\\fBqt\\fR|\\fBshortcut\\fR|\\fBedit\\-bar\\fR] [\\fB\\-\\-enable\\fR]"), "an operand that may be left out")
        XCTAssertTrue(committed.contains(".I $XDG_CONFIG_HOME/environment.d/60\\-menubus.conf"))
        for page in ["docs/man/menubus-cli.1", "docs/man/menubusd.8", "docs/man/menubus-provider.8"] {
            let path = Repository.root.appendingPathComponent(page).path
            let (status, text, warnings) = try shell("/bin/sh", "man --warnings -l '\(path)'", environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
            XCTAssertEqual(status, 0, warnings)
            XCTAssertEqual(warnings, "", "\(page) renders with warnings")
            XCTAssertFalse(text.contains("[--edit][--changes"), text)
        }
        let daemon = try String(contentsOfFile: Repository.root.appendingPathComponent("docs/man/menubusd.8").path, encoding: .utf8)
        let synopsis = daemon.components(separatedBy: ".SH DESCRIPTION")[0]
        for flag in ["\\-\\-state\\-dir", "\\-\\-undo\\-retention\\-days", "\\-\\-address"] {
            XCTAssertEqual(synopsis.components(separatedBy: flag).count, 2, "\(flag) once in the SYNOPSIS")
        }
    }
}
