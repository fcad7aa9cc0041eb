import MenuBus
import MenuBusModel

/// `menubus-cli publish FILE`: act as an app serving a menu from a file.
enum Publish {
    static let command = CommandLineTool.Command(
        name: "publish", summary: "publish a menu file as an app's context and serve it",
        usage: """
            Usage: menubus-cli publish FILE [--app APP] [--context ID] [--fill ID=FILE]... [--for SECONDS] [--json]

            Registers as APP (default: the file's "app", else org.menubus.Cli),
            publishes the file's items as context ID (default: the file's
            "context-id", else "main") with the file's "context" (default: an item
            context) and "selection", and serves it: chosen items and commands, and
            ShowEditMenu (show-menu, with "focused" true in the selection), are
            printed as they arrive. A deferred element is answered with its inline
            "provides", or with the items of FILE given as --fill ID=FILE; one with
            neither answers NoSuchItem (lint warns of it). Runs until Ctrl-C, or for
            SECONDS. Contexts live as long as their connection, so the menu goes
            when this command ends. When menubusd restarts, it registers and
            publishes again.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let appOption = try arguments.option("--app")
        let contextOption = try arguments.option("--context")
        let seconds = try arguments.seconds("--for")
        var fills: [String: [MenuElement]] = [:]
        while let fill = try arguments.option("--fill") {
            let (id, items) = try MenuJSON.fill(fill)
            fills[id] = items
        }
        let file = try arguments.required("FILE")
        try arguments.finish()
        let document = try MenuJSON.read(file: file)
        let appId = appOption ?? document.appId ?? "org.menubus.Cli"
        let contextId = contextOption ?? document.contextId ?? "main"
        fills = document.fills.merging(fills) { _, given in given }
        for id in fills.keys.sorted() where !document.items.contains(where: { $0.id == id && $0.kind == .deferred }) {
            throw UsageError("--fill \(id): the menu has no deferred element '\(id)'")
        }
        let client = try CommandLineTool.connect(options)
        client.provideElements = { [fills] _, elementId in
            guard let items = fills[elementId] else {
                throw BusError(.noSuchItem, "no content for deferred element '\(elementId)': give it \"provides\" or --fill \(elementId)=FILE")
            }
            return items
        }
        client.onAction = { action in
            let data = action.platformData.map { "\($0.key)=\(MenuDrawing.describe($0.value))" }.sorted().joined(separator: " ")
            Output.out(options.json
                ? "{\"event\": \"ActionInvoked\", \"context-id\": \(MenuJSON.quote(action.contextId)), \"item\": \(MenuJSON.quote(action.itemId)), "
                    + "\"platform-data\": \(JSONValue.object(action.platformData))}\n"
                : "ActionInvoked \(action.contextId) \(action.itemId) \(data)\n")
        }
        client.onCommand = { command in
            let args = command.arguments.map { "\($0.key)=\(MenuDrawing.describe($0.value))" }.sorted().joined(separator: " ")
            Output.out(options.json
                ? "{\"event\": \"PerformCommand\", \"context-id\": \(MenuJSON.quote(command.contextId)), \"command\": \(MenuJSON.quote(command.name)), "
                    + "\"arguments\": \(JSONValue.object(command.arguments))}\n"
                : "PerformCommand \(command.contextId) \(command.name) \(args)\n")
        }
        client.onShowEditMenu = { contextId, platformData in
            let data = platformData.map { "\($0.key)=\(MenuDrawing.describe($0.value))" }.sorted().joined(separator: " ")
            Output.out(options.json
                ? "{\"event\": \"ShowEditMenu\", \"context-id\": \(MenuJSON.quote(contextId)), \"platform-data\": \(JSONValue.object(platformData))}\n"
                : "ShowEditMenu \(contextId) \(data)\n")
        }
        client.onDaemonLost = {
            Output.out(options.json ? "{\"event\": \"DaemonLost\"}\n" : "menubusd left the bus; waiting for it to come back\n")
        }
        client.onDaemonRestart = {
            Output.out(options.json
                ? "{\"event\": \"Republished\", \"context-id\": \(MenuJSON.quote(contextId))}\n"
                : "menubusd restarted; published \(contextId) again\n")
        }
        try client.register(appId: appId)
        var revision = try client.publishContext(contextId, document.context ?? ContextInfo(), items: document.items)
        if let selection = document.selection {
            try client.updateSelection(contextId, selection)
            revision = try client.publishedContext(contextId: contextId).revision
        }
        Output.out(options.json
            ? "{\"event\": \"Published\", \"app\": \(MenuJSON.quote(appId)), \"context-id\": \(MenuJSON.quote(contextId)), \"owner\": \(MenuJSON.quote(client.uniqueName)), \"revision\": \(revision)}\n"
            : "published \(contextId) as \(appId) (\(client.uniqueName)), revision \(revision); Ctrl-C stops\n")
        CommandLineTool.serve(client, for: seconds)
        return 0
    }
}
