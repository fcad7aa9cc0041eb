import MenuBus

/// `menubus-cli monitor`: every MenuBus signal, readable.
enum Monitor {
    static let command = CommandLineTool.Command(
        name: "monitor", summary: "print every signal menubusd emits",
        usage: """
            Usage: menubus-cli monitor [--count N] [--json]

            Prints every signal menubusd emits (LayoutChanged, Closed,
            UndoStateChanged, PropertiesChanged, and those of the other menu
            protocols) until Ctrl-C, or until N signals were printed. Follows
            menubusd across a restart.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let limit = try arguments.option("--count").map { value -> Int in
            guard let n = Int(value), n > 0 else { throw UsageError("--count needs a positive whole number") }
            return n
        }
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        var seen = 0
        try client.observeAllSignals { signal in
            seen += 1
            if options.json {
                let args = signal.arguments.map { MenuJSON.quote(MenuDrawing.describe($0)) }.joined(separator: ", ")
                Output.out("{\"path\": \(MenuJSON.quote(signal.path)), \"interface\": \(MenuJSON.quote(signal.interface)), \"member\": \(MenuJSON.quote(signal.member)), \"arguments\": [\(args)]}\n")
            } else {
                let args = signal.arguments.map(MenuDrawing.describe).joined(separator: ", ")
                Output.out(Output.styled(signal.member, .bold) + " " + Output.styled(signal.path, .dim) + "  \(signal.interface)\n    \(args)\n")
            }
            if let limit, seen >= limit { client.stopRunning() }
        }
        client.onDaemonLost = { Output.err("menubusd left the bus; waiting for it to come back\n") }
        client.onDaemonRestart = { Output.err("menubusd restarted; monitoring the new one\n") }
        if !options.json { Output.err("monitoring menubusd's signals; Ctrl-C stops\n") }
        while limit.map({ seen < $0 }) ?? true, client.isConnected {
            client.runForever()
        }
        return 0
    }
}
