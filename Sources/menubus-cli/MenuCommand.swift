import MenuBus

/// `menubus-cli menu APP CONTEXT [--edit]`: the composed menu.
enum MenuCommand {
    static let command = CommandLineTool.Command(
        name: "menu", summary: "print the composed context (or edit) menu of a context",
        usage: """
            Usage: menubus-cli menu APP CONTEXT [--edit] [--json]

            Prints the menu menubusd composes for CONTEXT of APP (an app id such as
            org.example.Editor, or a unique bus name): the context menu, or with
            --edit the edit menu for the current selection. --json prints the
            nested JSON form that 'publish' and 'lint' read.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let app = try arguments.required("APP")
        let context = try arguments.required("CONTEXT")
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        let menu = edit ? try client.editMenu(owner: app, contextId: context) : try client.contextMenu(owner: app, contextId: context)
        if options.json {
            Output.out("{\"app\": \(MenuJSON.quote(app)), \"context-id\": \(MenuJSON.quote(context)), \"kind\": \"\(edit ? "edit" : "context")\", \"revision\": \(menu.revision),\n \"items\": \(MenuJSON.write(menu.elements, indent: "  "))}\n")
        } else {
            Output.out(Output.styled("\(edit ? "Edit" : "Context") menu of \(app) › \(context)", .bold) + Output.styled("  (revision \(menu.revision))", .dim) + "\n")
            Output.out(MenuDrawing.draw(menu.elements))
        }
        return 0
    }
}
