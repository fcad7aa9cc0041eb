import MenuBus
import MenuBusModel

/// `menubus-cli demo`: the whole flow in one process, narrated.
enum Demo {
    static let command = CommandLineTool.Command(
        name: "demo", summary: "a short narrated tour: app, presenter, provider",
        usage: """
            Usage: menubus-cli demo

            Runs a small app (a text field), a presenter and a provider on three
            connections of this process against the running menubusd, and prints
            what each sees: the edit menu following the selection, a choice
            reaching the app, a menu updating while open, and a provider's
            "Make Uppercase" replacing the selected text: the installed one
            when the menu offers it (it then starts by activation), else one
            of the demo's own.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        try arguments.finish()
        let app = try CommandLineTool.connect(options)
        let presenter = try CommandLineTool.connect(options)
        let provider = try CommandLineTool.connect(options)
        func pump(until done: () -> Bool) {
            for _ in 0..<2000 where !done() {
                for client in [app, presenter, provider] { client.run(until: done, timeout: 0.002) }
            }
        }
        func step(_ text: String) { Output.out("\n" + Output.styled("▸ " + text, .bold) + "\n") }

        var text = "hello from menubus"
        var commands: [CommandInvocation] = []
        app.onCommand = { command in
            commands.append(command)
            if command.command == .replaceSelection, case .string(let replacement)? = command.arguments["text"] {
                text = replacement
            }
        }
        step("An app registers and publishes a text field")
        try app.register(appId: "org.menubus.Demo.Editor")
        let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true, title: "Message")
        try app.publishContext("message", field, items: [MenuElement(id: "insert-date", title: "Insert Date", icon: "x-office-calendar")])
        Output.out("  text: \"\(text)\"\n")

        step("Caret only, clipboard empty: the edit menu has no Copy and no Paste")
        try app.updateSelection("message", Selection(kind: .caret))
        Output.out(MenuDrawing.draw(try presenter.editMenu(owner: "org.menubus.Demo.Editor", contextId: "message").elements))

        step("Five characters selected, text on the clipboard: Cut, Copy, Paste appear")
        try app.updateSelection("message", Selection(kind: .range, length: 5, text: "hello", pasteboardTypes: ["text/plain"]))
        let selected = try presenter.editMenu(owner: "org.menubus.Demo.Editor", contextId: "message")
        Output.out(MenuDrawing.draw(selected.elements))

        // An installed Make Uppercase (the package's key file) is already in
        // the menu: the tour chooses that one rather than offer a second.
        let uppercase: String
        if selected.element(installedUppercase) != nil {
            uppercase = installedUppercase
            step("An installed provider offers Make Uppercase to every app; it starts when chosen")
        } else {
            uppercase = ElementID.provider(tourUppercase)
            step("A provider offers Make Uppercase to every app")
            try provider.registerProvider(ProviderInfo(id: tourUppercase, title: "Make Uppercase",
                                                       returnsText: true, requiresEditable: true)) { selected, _ in
                selected.uppercased()
            }
        }
        var changes: [Menu] = []
        try presenter.observeMenus { _, layout in changes.append(layout) }
        let menu = try presenter.present(owner: "org.menubus.Demo.Editor", contextId: "message", kind: .edit)
        Output.out("  presented at \(menu.path.rawValue):\n")
        Output.out(MenuDrawing.draw(try presenter.layout(of: menu).elements))

        step("The app selects everything while the menu is open: it updates live")
        try app.updateSelection("message", Selection(kind: .all, length: UInt32(text.count), text: text, pasteboardTypes: ["text/plain"]))
        pump { !changes.isEmpty }
        if let last = changes.last {
            Output.out("  LayoutChanged, revision \(last.revision):\n")
            Output.out(MenuDrawing.draw(last.elements))
        }

        step("The presenter chooses Make Uppercase")
        try presenter.activate(menu, itemId: uppercase)
        pump { commands.contains { $0.command == .replaceSelection } }
        if let replace = commands.last(where: { $0.command == .replaceSelection }) {
            Output.out("  the app got PerformCommand \(replace.name) with \(MenuDrawing.describe(replace.arguments["text"] ?? .string("")))\n")
        } else {
            Output.out("  no reply from the provider within the time allowed\n")
        }
        Output.out("  text: \"\(text)\"\n")

        step("Choosing Copy from a fresh menu reaches the app as PerformCommand copy")
        let second = try presenter.present(owner: "org.menubus.Demo.Editor", contextId: "message", kind: .edit)
        try presenter.activate(second, itemId: "menubus:copy")
        pump { commands.contains { $0.command == .copy } }
        Output.out(commands.contains { $0.command == .copy } ? "  the app got PerformCommand copy\n" : "  copy did not arrive\n")
        Output.out("\nDone: the demo's connections close, and menubusd drops their contexts and menus.\n")
        return 0
    }

    /// The item of the Make Uppercase that `make install` and the package declare.
    static let installedUppercase = ElementID.provider("org.menubus.TextTransforms.Uppercase")
    /// The tour's own, offered when that one is not.
    static let tourUppercase = "org.menubus.Demo.Tour.Uppercase"
}
