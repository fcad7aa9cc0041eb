import MenuBus
import MenuBusModel

/// `menubus-cli lint FILE`: the design rules, offline.
enum Lint {
    static let command = CommandLineTool.Command(
        name: "lint", summary: "check a menu file against the design rules",
        usage: """
            Usage: menubus-cli lint FILE [--edit] [--fill ID=FILE]... [--json]

            Reads a menu written as nested JSON (see the README; FILE '-' reads
            standard input) and prints one finding a line, 'severity id:
            message', using the same rules as menubusd's Lint. Checks a context
            menu, or with --edit (or a file whose "kind" is "edit") an edit
            menu's own items, and warns of a deferred element that neither
            carries "provides" nor is given --fill, since 'publish' could not
            answer it. A file 'menu --json' wrote also carries the menu menubusd
            composed ("composed"): that is checked as composed (its menubus: ids
            are MenuBus's own), each of its findings marked 'composed'. Needs no
            daemon. Exits 3 when any error or warning is
            found, 0 on a clean menu (info findings alone are fine), 1 when the
            file cannot be read.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        var edit = arguments.remove("--edit")
        var filled: Set<String> = []
        while let fill = try arguments.option("--fill") {
            filled.insert(try MenuJSON.fill(fill).0)
        }
        let file = try arguments.required("FILE")
        try arguments.finish()
        let document = try MenuJSON.read(file: file)
        if document.kind == .edit { edit = true }
        filled.formUnion(document.fills.keys)
        let kind: MenuKind = edit ? .edit : .context
        var findings = MenuComposer.lint(kind: kind, elements: document.items).map { (menu: "items", finding: $0) }
        for element in document.items where element.kind == .deferred && !filled.contains(element.id) {
            findings.append(("items", LintFinding(severity: .warning, elementId: element.id,
                                                  message: "Deferred element '\(element.id)' has no content: give it \"provides\" or publish it with --fill \(element.id)=FILE, or it answers NoSuchItem.")))
        }
        if let composed = document.composed {
            findings += MenuComposer.lint(kind: kind, elements: composed, composed: true).map { ("composed", $0) }
        }
        if options.json {
            let items = findings.map { "{\"severity\": \(MenuJSON.quote($0.finding.severity.rawValue)), \"id\": \(MenuJSON.quote($0.finding.elementId)), \"message\": \(MenuJSON.quote($0.finding.message)), \"menu\": \(MenuJSON.quote($0.menu))}" }
            Output.out("[" + items.joined(separator: ",\n ") + "]\n")
        } else {
            for (menu, finding) in findings {
                Output.out(line(finding, marker: menu == "composed" ? "composed " : ""))
            }
            if findings.isEmpty { Output.out("\(file): clean\n") }
        }
        return findings.contains { $0.finding.severity != .info } ? 3 : 0
    }

    /// "warning id: message", the severity coloured on a terminal.
    static func line(_ finding: LintFinding, marker: String = "") -> String {
        let style: Output.Style = finding.severity == .error ? .red : finding.severity == .warning ? .yellow : .blue
        return Output.styled(finding.severity.rawValue, style) + " \(marker)\(finding.elementId): \(finding.message)\n"
    }
}
