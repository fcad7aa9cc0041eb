import MenuBus
import MenuBusModel

/// `menubus-cli contexts`: every published context.
enum Contexts {
    static let command = CommandLineTool.Command(
        name: "contexts", summary: "the contexts apps have published",
        usage: """
            Usage: menubus-cli contexts [--json]

            Lists every context apps have published: app id, context id, and the
            unique bus name of the connection that owns it.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        try arguments.finish()
        let rows = try CommandLineTool.connect(options).listContexts()
        if options.json {
            let items = rows.map { "{\"app\": \(MenuJSON.quote($0.appId)), \"context-id\": \(MenuJSON.quote($0.contextId)), \"owner\": \(MenuJSON.quote($0.owner))}" }
            Output.out("[" + items.joined(separator: ", ") + "]\n")
        } else if rows.isEmpty {
            Output.out("no contexts published\n")
        } else {
            let width = max(4, rows.map(\.appId.count).max() ?? 0) + 2
            let contextWidth = max(8, rows.map(\.contextId.count).max() ?? 0) + 2
            Output.out(Output.styled("APP".padding(width) + "CONTEXT".padding(contextWidth) + "OWNER", .bold) + "\n")
            for row in rows {
                Output.out(row.appId.padding(width) + row.contextId.padding(contextWidth) + row.owner + "\n")
            }
        }
        return 0
    }
}
