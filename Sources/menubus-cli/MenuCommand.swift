import MenuBus
import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// `menubus-cli menu APP CONTEXT [--edit] [--locale L]`: the composed menu.
enum MenuCommand {
    static let command = CommandLineTool.Command(
        name: "menu", summary: "print the composed context (or edit) menu of a context",
        usage: """
            Usage: menubus-cli menu APP CONTEXT [--edit] [--locale LOCALE] [--json]
                   menubus-cli menu PATH [--json]

            Prints the menu menubusd composes for CONTEXT of APP (an app id such as
            org.example.Editor, or a unique bus name): the context menu, or with
            --edit the edit menu for the current selection; --locale titles
            MenuBus's own items in LOCALE (ru, de_DE.UTF-8) instead of the
            session's language. Above the items it prints the context's preview
            (what a presenter draws there; choosing it is menubus:preview) and,
            for a button, what a tap runs (its primary action, or the menu
            itself). --json prints the
            context as its app published it, in the nested JSON form that
            'publish' and 'lint' read ("app", "context-id", "kind", "revision",
            "context", "selection", "items", deferred elements included), and the
            composed menu as "composed"; publishing that output and printing it
            again gives the same bytes. Without --json, findings of the app's own
            items that MenuBus serves as published (more than three sections,
            more than fifteen items at one level) follow the menu.

            With PATH, a menu presented now (/org/menubus/MenuBus1/menu/N, as
            'present' prints it, whoever presented it) is printed as its
            consumers see it at this moment, deferred elements still loading
            included; --json prints {"path", "revision", "composed"}.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let locale = try arguments.option("--locale")
        let app = try arguments.required("APP")
        if app.hasPrefix("/") {
            guard !edit, locale == nil else { throw UsageError("a presented menu is printed as it was presented: no --edit or --locale with PATH") }
            try arguments.finish()
            return try presented(app, options)
        }
        let context = try arguments.required("CONTEXT")
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        let menu = edit ? try client.editMenu(owner: app, contextId: context, locale: locale)
            : try client.contextMenu(owner: app, contextId: context, locale: locale)
        let published = try client.publishedContext(owner: app, contextId: context)
        if options.json {
            // A unique name stands for its app: print the app id, which 'publish' registers as.
            let appId = app.hasPrefix(":")
                ? (try client.listContexts().first { $0.owner == app && $0.contextId == context }?.appId ?? app) : app
            Output.out("""
                {"app": \(MenuJSON.quote(appId)), "context-id": \(MenuJSON.quote(context)), \
                "kind": "\(edit ? "edit" : "context")", "revision": \(menu.revision),
                 "context": \(MenuJSON.write(published.context)),
                 "selection": \(MenuJSON.write(published.selection)),
                 "items": \(MenuJSON.write(published.items, indent: "  ")),
                 "composed": \(MenuJSON.write(menu.elements, indent: "  "))}

                """)
        } else {
            Output.out(Output.styled("\(edit ? "Edit" : "Context") menu of \(app) › \(context)", .bold) + Output.styled("  (revision \(menu.revision))", .dim) + "\n")
            if let preview = published.context.preview { Output.out(ContextHeader.preview(preview)) }
            Output.out(ContextHeader.primaryAction(published.context, items: published.items))
            Output.out(MenuDrawing.draw(menu.elements))
            // What menubusd serves as published and logs: the app's own excess.
            let excess = MenuComposer.excess(elements: published.items)
            if !excess.isEmpty {
                Output.out(Output.styled("The app's own items break the size rules; MenuBus serves them as published:", .bold) + "\n")
                for finding in excess { Output.out(Lint.line(finding)) }
            }
        }
        return 0
    }

    /// `menu PATH`: a presented menu's layout now, as its consumers read it.
    static func presented(_ path: String, _ options: CommandLineTool.Options) throws -> Int32 {
        guard let objectPath = try? ObjectPath(validating: path), path.hasPrefix(presentedPrefix) else {
            throw UsageError("'\(path)' is not a presented menu's path (\(presentedPrefix)N); 'present' prints one")
        }
        let client = try CommandLineTool.connectToRunningDaemon(options)
        let menu = try client.layout(of: PresentedMenu(path: objectPath))
        if options.json {
            Output.out("""
                {"path": \(MenuJSON.quote(path)), "revision": \(menu.revision),
                 "composed": \(MenuJSON.write(menu.elements, indent: "  "))}

                """)
        } else {
            Output.out(Output.styled("Presented menu \(path)", .bold) + Output.styled("  (revision \(menu.revision))", .dim) + "\n")
            Output.out(MenuDrawing.draw(menu.elements))
        }
        return 0
    }

    /// Where menubusd serves presented menus, each at a number below.
    static let presentedPrefix = MenuBusNames.managerPath.rawValue + "/menu/"
}
