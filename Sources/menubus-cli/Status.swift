import MenuBus

/// `menubus-cli status`: version and counters.
enum Status {
    static let command = CommandLineTool.Command(
        name: "status", summary: "the daemon's API version and counters",
        usage: """
            Usage: menubus-cli status [--json]

            Prints menubusd's API version and its counters (apps, contexts,
            documents, presentations, providers, resident memory in bytes).

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        try arguments.finish()
        let client = try CommandLineTool.connect(options)
        let version = try client.apiVersion()
        let stats = try client.stats()
        if options.json {
            let fields = stats.map { "\(MenuJSON.quote($0.name)): \(JSONValue.scalar($0.value))" }
            Output.out("{\"version\": \(version), \"stats\": {\(fields.joined(separator: ", "))}}\n")
        } else {
            Output.out("menubusd API version \(version)\n")
            for (name, value) in stats {
                Output.out("  \(name.padding(14))\(JSONValue.scalar(value))\n")
            }
        }
        return 0
    }
}

enum JSONValue {
    /// A basic D-Bus value as JSON.
    static func scalar(_ value: DBusValue) -> String {
        switch value {
        case .uint32(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .byte(let v): "\(v)"
        case .double(let v): "\(v)"
        case .boolean(let v): v ? "true" : "false"
        case .string(let v): MenuJSON.quote(v)
        case .objectPath(let v): MenuJSON.quote(v.rawValue)
        case .signature(let v): MenuJSON.quote(v.rawValue)
        case .variant(let inner): scalar(inner)
        default: MenuJSON.quote(MenuDrawing.describe(value))
        }
    }
}
