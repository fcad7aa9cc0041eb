import MenuBus

/// `menubus-cli status`: version and counters.
enum Status {
    static let usage = """
        Usage: menubus-cli status [--json]

        Prints menubusd's API version and its counters (apps, contexts,
        documents, presentations, providers, resident memory).

        """

    static func run(_ arguments: [String], _ options: CommandLineTool.Options) -> Int32 {
        var options = options
        for argument in arguments {
            switch argument {
            case "-h", "--help":
                Output.out(usage)
                return 0
            case "--json":
                options.json = true
            default:
                Output.err("menubus-cli status: unknown argument '\(argument)'\n")
                return 2
            }
        }
        guard let client = CommandLineTool.connect(options) else { return 1 }
        do {
            let version = try client.apiVersion()
            let stats = try client.stats()
            if options.json {
                let fields = stats.map { "\"\($0.name)\": \(JSONText.number($0.value))" }
                Output.out("{\"version\": \(version), \"stats\": {\(fields.joined(separator: ", "))}}\n")
            } else {
                Output.out("menubusd API version \(version)\n")
                for (name, value) in stats {
                    Output.out("  \(name): \(JSONText.number(value))\n")
                }
            }
            return 0
        } catch {
            return CommandLineTool.report(error)
        }
    }
}

enum JSONText {
    static func number(_ value: DBusValue) -> String {
        switch value {
        case .uint32(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .boolean(let v): v ? "true" : "false"
        default: "null"
        }
    }
}
