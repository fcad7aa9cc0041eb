import MenuBus
import MenuBusModel

/// `menubus-cli show-menu`: the focused app shows MenuBus's edit menu at
/// its caret (`ShowMenuForFocus`), as a desktop shortcut asks
/// (`menubus-cli integrate shortcut`).
enum ShowMenu {
    static let command = CommandLineTool.Command(
        name: "show-menu", summary: "have the focused app show MenuBus's menu at its caret",
        usage: """
            Usage: menubus-cli show-menu [--timestamp N] [--json]

            Asks the app whose text field has the keyboard focus to show MenuBus's
            edit menu at its selection or caret, drawn by the app itself, so it works
            on Wayland as on X11. Bind it to a key with 'menubus-cli integrate
            shortcut'. Prints which app showed its menu; --json gives {"app",
            "context-id"}. Exits 1 when no field of an app that takes part in MenuBus
            has the focus, when the app could not show its menu, or when run inside
            a sandbox (only an unsandboxed caller may ask).

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let timestamp = try arguments.option("--timestamp").map { value in
            guard let number = UInt32(value) else { throw UsageError("--timestamp needs a whole number from 0 to 4294967295") }
            return number
        }
        try arguments.finish()
        let client = try CommandLineTool.connectToRunningDaemon(options)
        let shown: (appId: String, contextId: String)
        do {
            shown = try client.showMenuForFocus(timestamp: timestamp)
        } catch let error as BusError {
            switch error.domain {
            case .noSuchContext?:
                throw CommandFailure("no text field of an app that takes part in MenuBus has the keyboard focus; click into one first")
            case .accessDenied?:
                throw CommandFailure("only an unsandboxed program may show the focused app's menu: \(error.message)")
            case .clientFailed?:
                throw CommandFailure(error.message)
            default:
                throw error
            }
        }
        if options.json {
            Output.out("{\"app\": \(MenuJSON.quote(shown.appId)), \"context-id\": \(MenuJSON.quote(shown.contextId))}\n")
        } else {
            Output.out("\(shown.appId) showed its menu for \(shown.contextId)\n")
        }
        return 0
    }
}
