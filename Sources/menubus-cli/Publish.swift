import MenuBus

/// `menubus-cli publish FILE`: act as an app serving a menu from a file.
enum Publish {
    static let command = CommandLineTool.Command(
        name: "publish", summary: "publish a menu file as an app's context and serve it",
        usage: """
            Usage: menubus-cli publish FILE [--app APP] [--context ID] [--for SECONDS] [--json]

            Registers as APP (default: the file's "app", else org.menubus.Cli),
            publishes the file's items as context ID (default: the file's
            "context-id", else "main") with the file's "context" (default: an item
            context), and serves it: chosen items and commands are printed as they
            arrive. Runs until Ctrl-C, or for SECONDS. Contexts live as long as
            their connection, so the menu goes when this command ends. When
            menubusd restarts, it registers and publishes again.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let appOption = try arguments.option("--app")
        let contextOption = try arguments.option("--context")
        let seconds = try arguments.seconds("--for")
        let file = try arguments.required("FILE")
        try arguments.finish()
        let document = try MenuJSON.read(file: file)
        let appId = appOption ?? document.appId ?? "org.menubus.Cli"
        let contextId = contextOption ?? document.contextId ?? "main"
        let client = try CommandLineTool.connect(options)
        client.onAction = { action in
            let data = action.platformData.map { "\($0.key)=\(MenuDrawing.describe($0.value))" }.sorted().joined(separator: " ")
            Output.out(options.json
                ? "{\"event\": \"ActionInvoked\", \"context\": \(MenuJSON.quote(action.contextId)), \"item\": \(MenuJSON.quote(action.itemId))}\n"
                : "ActionInvoked \(action.contextId) \(action.itemId) \(data)\n")
        }
        client.onCommand = { command in
            let args = command.arguments.map { "\($0.key)=\(MenuDrawing.describe($0.value))" }.sorted().joined(separator: " ")
            Output.out(options.json
                ? "{\"event\": \"PerformCommand\", \"context\": \(MenuJSON.quote(command.contextId)), \"command\": \(MenuJSON.quote(command.name))}\n"
                : "PerformCommand \(command.contextId) \(command.name) \(args)\n")
        }
        client.onDaemonLost = {
            Output.out(options.json ? "{\"event\": \"daemon-lost\"}\n" : "menubusd left the bus; waiting for it to come back\n")
        }
        client.onDaemonRestart = {
            Output.out(options.json
                ? "{\"event\": \"republished\", \"context-id\": \(MenuJSON.quote(contextId))}\n"
                : "menubusd restarted; published \(contextId) again\n")
        }
        try client.register(appId: appId)
        let revision = try client.publishContext(contextId, document.context ?? ContextInfo(), items: document.items)
        Output.out(options.json
            ? "{\"event\": \"published\", \"app\": \(MenuJSON.quote(appId)), \"context-id\": \(MenuJSON.quote(contextId)), \"owner\": \(MenuJSON.quote(client.uniqueName)), \"revision\": \(revision)}\n"
            : "published \(contextId) as \(appId) (\(client.uniqueName)), revision \(revision); Ctrl-C stops\n")
        CommandLineTool.serve(client, for: seconds)
        return 0
    }
}
