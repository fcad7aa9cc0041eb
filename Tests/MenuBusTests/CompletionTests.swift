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
                       ["--enable", "--disable", "--status", "--key", "--json", "--help"])
        XCTAssertEqual(try complete(["menubus-cli", "integrate", "--enable", ""], script: script), ["gtk", "qt", "shortcut"])
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
        XCTAssertTrue(zsh.contains("'1::toolkit:(gtk qt shortcut)'"), "the toolkit may be left out: \(zsh)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("_menubus-\(UUID().uuidString)")
            try zsh.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let (status, _, err) = try shell("/usr/bin/zsh", "zsh -n '\(file.path)'")
            XCTAssertEqual(status, 0, err)
        }
    }

    func testManPagesAreGeneratedAndRenderWithoutWarnings() throws {
        let committed = try String(contentsOf: Repository.root.appendingPathComponent("docs/man/menubus-cli.1"), encoding: .utf8)
        XCTAssertEqual(try cli(["completions", "man"]).stdout, committed,
                       "docs/man/menubus-cli.1 is 'menubus-cli completions man'; regenerate it")
        XCTAssertTrue(committed.contains(".SH OPTIONS"))
        XCTAssertTrue(committed.contains("\\fBundo\\-state\\fR"))
        XCTAssertTrue(committed.contains("\\fBintegrate\\fR [\\fBgtk\\fR|\\fBqt\\fR|\\fBshortcut\\fR] [\\fB\\-\\-enable\\fR]"), "an operand that may be left out")
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
