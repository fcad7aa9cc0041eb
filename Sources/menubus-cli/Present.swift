import MenuBus
import MenuBusModel

/// `menubus-cli present`: a live menu, printed on every change.
enum Present {
    static let command = CommandLineTool.Command(
        name: "present", summary: "present a menu and print it on every change",
        usage: """
            Usage: menubus-cli present APP CONTEXT [--edit] [--locale LOCALE] [--compact]
                                       [--changes N] [--follow]

            Presents the context (or edit) menu of CONTEXT as a live menu object,
            prints its path and layout, then prints every LayoutChanged until the
            menu closes, Ctrl-C, or N changes were printed. Only this command may
            choose from the menu it presents; 'menubus-cli activate APP CONTEXT
            ITEM' presents a menu of its own and chooses from it. When
            menubusd leaves the bus the menu is reported closed; with --follow
            the menu is presented again once menubusd is back and the app has
            published CONTEXT again. --locale titles MenuBus's own items in
            LOCALE, as for 'menu'.

            Above the items it prints the menu's preview, as a presenter draws
            it (choose it with 'menubus-cli activate APP CONTEXT menubus:preview'),
            unless --compact asks for the compact appearance (no preview), and
            for a button what a tap runs (menubus:primary-action).

            A provider chosen from the menu whose answer cannot go into the app
            (Translate on read-only text) answers this command: its
            ProviderResult is printed ("Result PROVIDER", then the text). The
            menu closes when the choice is made and the answer comes later:
            --wait-result keeps waiting up to SECONDS after Closed for one.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let follow = arguments.remove("--follow")
        let locale = try arguments.option("--locale")
        let appearance: MenuAppearance = arguments.remove("--compact") ? .compact : .rich
        let limit = try arguments.option("--changes").map { value -> Int in
            guard let n = Int(value), n >= 0 else { throw UsageError("--changes needs a whole number") }
            return n
        }
        let waitResult = try arguments.option("--wait-result").map { value -> Double in
            guard let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                throw UsageError("--wait-result needs a number of seconds (0 to 3600)")
            }
            return seconds
        } ?? 0
        let app = try arguments.required("APP")
        let context = try arguments.required("CONTEXT")
        try arguments.finish()
        Interrupt.catchSIGINT()
        let client = try CommandLineTool.connect(options)
        var results = 0
        var presentedMenus: Set<PresentedMenu> = []
        var lastLayout: [MenuElement]?
        try client.observeProviderResults { result in
            guard presentedMenus.contains(result.menu) else { return }
            results += 1
            printResult(result, options: options)
        }
        var changes = 0
        var closed = false
        var lostDaemon = false
        var presented: PresentedMenu?
        try client.observeMenus({ menu, layout in
            // A change that only repeats what is already printed (one sent
            // while the first layout was being read) is no change.
            guard menu == presented, layout.elements != lastLayout else { return }
            lastLayout = layout.elements
            changes += 1
            print(layout, path: menu.path.rawValue, options: options, heading: "LayoutChanged")
            if let limit, changes >= limit { client.stopRunning() }
        }, closed: { menu in
            guard menu == presented else { return }
            presented = nil
            lostDaemon = !client.isDaemonRunning
            Output.out(options.json ? "{\"event\": \"Closed\", \"path\": \(MenuJSON.quote(menu.path.rawValue))}\n" : Output.styled("Closed", .yellow) + "\n")
            if !(follow && lostDaemon) { closed = true }
            client.stopRunning()
        })
        func presentOnce() throws {
            let menu = try client.present(owner: app, contextId: context, kind: edit ? .edit : .context,
                                          locale: locale, appearance: appearance)
            presented = menu
            presentedMenus.insert(menu)
            let first = try client.layout(of: menu)
            lastLayout = first.elements
            let preview = try client.preview(of: menu)
            let header: String
            if options.json {
                header = ContextHeader.jsonFields(preview: preview, appearance: appearance)
            } else {
                let published = try client.publishedContext(owner: app, contextId: context)
                header = (preview.map(ContextHeader.preview) ?? "")
                    + ContextHeader.primaryAction(published.context, items: published.items)
            }
            print(first, path: menu.path.rawValue, options: options, heading: "Presented", header: header)
        }
        try presentOnce()
        guard limit != 0 else { return 0 }
        while !closed, limit.map({ changes < $0 }) ?? true, client.isConnected, !Interrupt.happened {
            client.run(until: { Interrupt.happened }, timeout: 60)
            guard follow, lostDaemon, !closed, client.isConnected, !Interrupt.happened else { continue }
            // The daemon is back (or about to be): the app republishes on its
            // own, so keep asking for a few seconds until its context is there.
            var again = false
            for _ in 0..<1500 where !again && client.isConnected && !Interrupt.happened {  // up to 30 s
                client.run(until: { Interrupt.happened }, timeout: 0.02)
                if client.isDaemonRunning, (try? presentOnce()) != nil { again = true }
            }
            if !again && !Interrupt.happened {
                Output.err("menubus-cli: menubusd did not come back with \(context) within 30 s\n")
                return 1
            }
            lostDaemon = false
        }
        if closed, waitResult > 0, results == 0 {
            client.run(until: { results > 0 || !client.isConnected || Interrupt.happened }, timeout: waitResult)
        }
        if Interrupt.happened {
            // Ctrl-C, with or without --follow: the menu goes, the status says why.
            if let presented { try? client.dismiss(presented) }
            return Interrupt.status
        }
        return 0
    }

    static func printResult(_ result: ProviderResult, options: CommandLineTool.Options) {
        if options.json {
            var fields = "\"event\": \"ProviderResult\", \"path\": \(MenuJSON.quote(result.menu.path.rawValue)), "
                + "\"provider\": \(MenuJSON.quote(result.providerId)), \"text\": \(MenuJSON.quote(result.text))"
            if let error = result.error { fields += ", \"error\": \(MenuJSON.quote(error))" }
            Output.out("{\(fields)}\n")
        } else if let error = result.error {
            Output.out(Output.styled("Result \(result.providerId) failed", .yellow) + ": \(error)\n")
        } else {
            Output.out(Output.styled("Result \(result.providerId)", .bold) + "\n" + result.text
                       + (result.text.hasSuffix("\n") ? "" : "\n"))
        }
    }

    /// `header`: what goes above the items (text), or more fields (JSON).
    static func print(_ layout: Menu, path: String, options: CommandLineTool.Options, heading: String, header: String = "") {
        if options.json {
            Output.out("{\"event\": \(MenuJSON.quote(heading)), \"path\": \(MenuJSON.quote(path)), \"revision\": \(layout.revision)\(header), \"items\": \(MenuJSON.write(layout.elements, indent: nil))}\n")
        } else {
            Output.out(Output.styled("\(heading) \(path)", .bold) + Output.styled("  (revision \(layout.revision))", .dim) + "\n")
            Output.out(header)
            Output.out(MenuDrawing.draw(layout.elements))
        }
    }
}
