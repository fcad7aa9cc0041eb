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
            how many steps the limits dropped. Undo documents belong to an app id,
            so this command registers as APP for the moment it asks.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let app = try arguments.required("APP")
        let document = try arguments.required("DOCUMENT")
        try arguments.finish()
        let client = try CommandLineTool.connectToRunningDaemon(options)
        try client.register(appId: app, clientPath: "/org/menubus/Cli")
        let (state, undoTitle, redoTitle) = try client.undoStateAndTitles(document: document)
        if options.json {
            Output.out("{\"can-undo\": \(state.canUndo), \"can-redo\": \(state.canRedo), \"undo-title\": \(MenuJSON.quote(undoTitle)), \"redo-title\": \(MenuJSON.quote(redoTitle)), \"undo-count\": \(state.undoCount), \"redo-count\": \(state.redoCount), \"clean\": \(state.clean), \"dropped\": \(state.dropped)}\n")
        } else {
            Output.out(Output.styled("\(app) › \(document)", .bold) + "\n")
            Output.out("  undo      \(state.canUndo ? undoTitle : "(nothing to undo)")  \(state.undoCount) step\(state.undoCount == 1 ? "" : "s")\n")
            Output.out("  redo      \(state.canRedo ? redoTitle : "(nothing to redo)")  \(state.redoCount) step\(state.redoCount == 1 ? "" : "s")\n")
            Output.out("  clean     \(state.clean ? "yes" : "no")\n")
            Output.out("  dropped   \(state.dropped)\n")
        }
        return 0
    }
}
