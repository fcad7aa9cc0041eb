import MenuBus

/// `menubus-cli present`: a live menu, printed on every change.
enum Present {
    static let command = CommandLineTool.Command(
        name: "present", summary: "present a menu and print it on every change",
        usage: """
            Usage: menubus-cli present APP CONTEXT [--edit] [--changes N] [--json]

            Presents the context (or edit) menu of CONTEXT as a live menu object,
            prints its path and layout, then prints every LayoutChanged until the
            menu closes, Ctrl-C, or N changes were printed. Choose from it with
            'menubus-cli activate PATH ITEM' from another terminal.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let edit = arguments.remove("--edit")
        let limit = try arguments.option("--changes").map { value -> Int in
            guard let n = Int(value), n >= 0 else { throw UsageError("--changes needs a whole number") }
            return n
        }
        let app = try arguments.required("APP")
        let context = try arguments.required("CONTEXT")
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        var changes = 0
        var closed = false
        var presented: PresentedMenu?
        var shown: [MenuElement]?
        try client.observeMenus({ menu, layout in
            // A change that only repeats what is already printed (one sent
            // while the first layout was being read) is no change.
            guard menu == presented, layout.elements != shown else { return }
            shown = layout.elements
            changes += 1
            print(layout, path: menu.path.rawValue, options: options, heading: "LayoutChanged")
            if let limit, changes >= limit { client.stopRunning() }
        }, closed: { menu in
            guard menu == presented else { return }
            closed = true
            Output.out(options.json ? "{\"closed\": \(MenuJSON.quote(menu.path.rawValue))}\n" : Output.styled("Closed", .yellow) + "\n")
            client.stopRunning()
        })
        let menu = try client.present(owner: app, contextId: context, kind: edit ? .edit : .context)
        presented = menu
        let first = try client.layout(of: menu)
        shown = first.elements
        print(first, path: menu.path.rawValue, options: options, heading: "Presented")
        if limit != 0 {
            while !closed, limit.map({ changes < $0 }) ?? true, client.isConnected {
                client.runForever()
            }
        }
        return 0
    }

    static func print(_ layout: Menu, path: String, options: CommandLineTool.Options, heading: String) {
        if options.json {
            Output.out("{\"event\": \(MenuJSON.quote(heading)), \"path\": \(MenuJSON.quote(path)), \"revision\": \(layout.revision), \"items\": \(MenuJSON.write(layout.elements, indent: nil))}\n")
        } else {
            Output.out(Output.styled("\(heading) \(path)", .bold) + Output.styled("  (revision \(layout.revision))", .dim) + "\n")
            Output.out(MenuDrawing.draw(layout.elements))
        }
    }
}
