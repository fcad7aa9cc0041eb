import MenuBus
import MenuBusModel

/// `menubus-cli provider`: a demonstration provider.
enum Provider {
    static let command = CommandLineTool.Command(
        name: "provider", summary: "run a demonstration provider (Make Uppercase)",
        usage: """
            Usage: menubus-cli provider [--id ID] [--title TITLE] [--for SECONDS]

            Registers a provider that offers "Make Uppercase" (or TITLE) in every
            app's edit menu for selected text in editable contexts, and answers
            each Process with the text in upper case, which menubusd sends back to
            the app as replace-selection. Prints each request. Runs until Ctrl-C,
            or for SECONDS. When menubusd restarts, it registers again.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let id = try arguments.option("--id") ?? "org.menubus.Demo.Uppercase"
        let title = try arguments.option("--title") ?? "Make Uppercase"
        let seconds = try arguments.seconds("--for")
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        let description = ProviderInfo(id: id, title: title, icon: "format-text-uppercase",
                                              returnsText: true, requiresEditable: true)
        try client.registerProvider(description) { text, context in
            let app = context["app-id"].map(MenuDrawing.describe) ?? "?"
            Output.out("Process from \(app): \(text.count) characters\n")
            return text.uppercased()
        }
        client.onDaemonLost = { Output.out("menubusd left the bus; waiting for it to come back\n") }
        client.onDaemonRestart = { Output.out("menubusd restarted; provider \(id) registered again\n") }
        Output.out("provider \(id) (\"\(title)\") registered as \(client.uniqueName); Ctrl-C stops\n")
        CommandLineTool.serve(client, for: seconds)
        return 0
    }
}
