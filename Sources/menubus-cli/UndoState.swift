import MenuBus
import MenuBusModel

/// `menubus-cli undo-state APP DOCUMENT`: a document's undo state.
enum UndoState {
    static let command = CommandLineTool.Command(
        name: "undo-state", summary: "print the undo state of an app's document",
        usage: """
            Usage: menubus-cli undo-state APP DOCUMENT [--json]

            Prints whether DOCUMENT of APP can undo and redo, the menu titles
            ("Undo Typing"), the step counts, whether it is at its clean mark, and
            how many steps the limits dropped; --json prints every key of
            GetUndoState's reply. Undo documents belong to an app id,
            so this command registers as APP for the moment it asks.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let app = try arguments.required("APP")
        let document = try arguments.required("DOCUMENT")
        try arguments.finish()
        let client = try CommandLineTool.connectToRunningDaemon(options)
        try client.register(appId: app, clientPath: "/org/menubus/Cli")
        if options.json {
            // Every key the daemon sends, in its order and under its names
            // (docs/API.md, GetUndoState), not the few this command shows.
            let reply = try client.call(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                        interface: MenuBusNames.managerInterface, member: "GetUndoState",
                                        arguments: [.string(document)])
            guard let entries = reply.first?.dictEntries else { throw CommandFailure("GetUndoState answered no a{sv}") }
            let fields = entries.compactMap { entry -> String? in
                guard case .string(let key) = entry.key else { return nil }
                return "\(MenuJSON.quote(key)): \(JSONValue.scalar(entry.value.unwrapped))"
            }
            Output.out("{" + fields.joined(separator: ", ") + "}\n")
        } else {
            let (state, undoTitle, redoTitle) = try client.undoStateAndTitles(document: document)
            Output.out(Output.styled("\(app) › \(document)", .bold) + "\n")
            Output.out("  undo      \(state.canUndo ? undoTitle : "(nothing to undo)")  \(state.undoCount) step\(state.undoCount == 1 ? "" : "s")\n")
            Output.out("  redo      \(state.canRedo ? redoTitle : "(nothing to redo)")  \(state.redoCount) step\(state.redoCount == 1 ? "" : "s")\n")
            Output.out("  clean     \(state.clean ? "yes" : "no")\n")
            Output.out("  dropped   \(state.dropped)\n")
        }
        return 0
    }
}
