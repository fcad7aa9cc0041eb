import MenuBus

/// `menubus-cli lint FILE`: the design rules, offline.
enum Lint {
    static let command = CommandLineTool.Command(
        name: "lint", summary: "check a menu file against the design rules",
        usage: """
            Usage: menubus-cli lint FILE [--edit] [--json]

            Reads a menu written as nested JSON (see the README) and prints one
            finding a line, 'severity id: message', using the same rules as
            menubusd's Lint. Checks a context menu, or with --edit an edit menu's
            own items. Needs no daemon. Exits 1 when any error or warning is found,
            0 on a clean menu (info findings alone are fine).

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let file = try arguments.required("FILE")
        try arguments.finish()
        let document = try MenuJSON.read(file: file)
        let findings = MenuComposer.lint(kind: edit ? .edit : .context, elements: document.items)
        if options.json {
            let items = findings.map { "{\"severity\": \(MenuJSON.quote($0.severity.rawValue)), \"id\": \(MenuJSON.quote($0.elementId)), \"message\": \(MenuJSON.quote($0.message))}" }
            Output.out("[" + items.joined(separator: ",\n ") + "]\n")
        } else {
            for finding in findings {
                let style: Output.Style = finding.severity == .error ? .red : finding.severity == .warning ? .yellow : .blue
                Output.out(Output.styled(finding.severity.rawValue, style) + " \(finding.elementId): \(finding.message)\n")
            }
            if findings.isEmpty { Output.out("\(file): clean\n") }
        }
        return findings.contains { $0.severity != .info } ? 1 : 0
    }
}
