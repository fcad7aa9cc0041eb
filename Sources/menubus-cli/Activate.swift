import MenuBus

/// `menubus-cli activate PATH ITEM`: choose an item of a presented menu.
enum Activate {
    static let command = CommandLineTool.Command(
        name: "activate", summary: "choose an item of a presented menu",
        usage: """
            Usage: menubus-cli activate PATH ITEM

            Chooses ITEM (an element id, such as menubus:copy) of the presented menu
            at PATH (/org/menubus/MenuBus1/menu/N, as 'present' prints). Any
            connection may choose from a menu that is still open; the choice goes
            to the owning app (or provider) and closes the menu unless the item
            keeps it presented.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let pathText = try arguments.required("PATH")
        let item = try arguments.required("ITEM")
        try arguments.finish()
        guard let path = try? ObjectPath(validating: pathText) else { throw UsageError("'\(pathText)' is not an object path") }
        let client = try CommandLineTool.connect(options)
        try client.activate(PresentedMenu(path: path), itemId: item)
        Output.out(options.json ? "{\"activated\": \(MenuJSON.quote(item))}\n" : "activated \(item)\n")
        return 0
    }
}
