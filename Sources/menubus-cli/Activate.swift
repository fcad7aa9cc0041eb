import MenuBus
import MenuBusModel

/// `menubus-cli activate APP CONTEXT ITEM`: present a menu and choose from it.
enum Activate {
    static let command = CommandLineTool.Command(
        name: "activate", summary: "present a menu and choose one of its items",
        usage: """
            Usage: menubus-cli activate APP CONTEXT ITEM [--edit] [--locale LOCALE] [--json]

            Presents the context (or, with --edit, the edit) menu of CONTEXT of
            APP, then chooses ITEM (an element id, such as menubus:copy) from it.
            Only the connection that presented a menu, or the app that owns it,
            may choose from it, so this command presents the menu it chooses
            from; the choice is the user's as much as a click in a shell is.
            ITEM menubus:preview chooses the menu's preview (its app hears
            menubus:preview), and menubus:primary-action a button's primary
            action (its app hears the primary item's id), as a tap does.
            --locale presents the menu in LOCALE, as for 'menu'.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let locale = try arguments.option("--locale")
        let app = try arguments.required("APP")
        let context = try arguments.required("CONTEXT")
        let item = try arguments.required("ITEM")
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        let menu = try client.present(owner: app, contextId: context, kind: edit ? .edit : .context, locale: locale)
        do {
            try client.activate(menu, itemId: item)
        } catch {
            try? client.dismiss(menu)
            throw error
        }
        Output.out(options.json
            ? "{\"app\": \(MenuJSON.quote(app)), \"context-id\": \(MenuJSON.quote(context)), \"kind\": \"\(edit ? "edit" : "context")\", "
                + "\"path\": \(MenuJSON.quote(menu.path.rawValue)), \"item\": \(MenuJSON.quote(item))}\n"
            : "activated \(item)\n")
        return 0
    }
}
