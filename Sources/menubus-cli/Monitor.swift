import MenuBus
import MenuBusModel

/// `menubus-cli monitor`: every MenuBus message, readable.
enum Monitor {
    static let command = CommandLineTool.Command(
        name: "monitor", summary: "print every message to or from menubusd",
        usage: """
            Usage: menubus-cli monitor [--count N] [--json]

            Prints every message sent by or to menubusd, arguments fully decoded
            in GVariant text notation, as gdbus monitor prints them:
            calls to it and their replies, its calls to apps and providers
            (ActionInvoked, ProvideElements, Process…), and its signals
            (LayoutChanged, Closed, UndoStateChanged, PropertiesChanged, and
            those of the other menu protocols), until Ctrl-C or until N messages
            were printed. Uses the bus's BecomeMonitor, or where the bus refuses
            it, eavesdropping match rules. --json prints JSON Lines, one object a
            message: {"time", "kind", "serial", "reply-serial", "sender",
            "destination", "path", "interface", "member", "arguments"} (kind is
            method_call, method_return, error or signal; reply-serial is the
            serial of the call a return or error answers, else null; member is
            the error name of an error; fields a message has not are null), as
            docs/cli-json.schema.json describes.

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
        let mode = try client.monitorMenuBus { message in
            guard limit.map({ seen < $0 }) ?? true else { return }
            seen += 1
            Output.out(options.json ? jsonLine(message) : text(message))
            if let limit, seen >= limit { client.stopRunning() }
        }
        Output.err("monitoring menubusd (\(mode == .monitor ? "BecomeMonitor" : "eavesdropping match rules")); Ctrl-C stops\n")
        while limit.map({ seen < $0 }) ?? true, client.isConnected {
            client.runForever()
        }
        return 0
    }

    static func jsonLine(_ message: MonitoredMessage) -> String {
        func optional(_ text: String?) -> String { text.map(MenuJSON.quote) ?? "null" }
        let millis = Int64((message.time * 1000).rounded())
        let fraction = String(millis % 1000)
        let time = "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        // A reply serial names the call a return or error answers; calls and signals have none.
        let answers = message.kind == .methodReturn || message.kind == .error
        return "{\"time\": \(time), \"kind\": \"\(message.kind.rawValue)\", \"serial\": \(message.serial), "
            + "\"reply-serial\": \(answers ? "\(message.replySerial)" : "null"), "
            + "\"sender\": \(optional(message.sender)), \"destination\": \(optional(message.destination)), "
            + "\"path\": \(optional(message.path)), \"interface\": \(optional(message.interface)), "
            + "\"member\": \(optional(message.member)), "
            + "\"arguments\": [\(message.arguments.map(JSONValue.full).joined(separator: ", "))]}\n"
    }

    static func text(_ message: MonitoredMessage) -> String {
        let route = (message.sender ?? "?") + " → " + (message.destination ?? "*")
        let args = GVariantText.body(message.arguments)
        switch message.kind {
        case .signal, .methodCall:
            let name = message.kind == .signal ? "signal" : "call"
            return Output.styled((message.member ?? "?"), .bold) + " " + Output.styled("\(name) \(message.path ?? "") \(message.interface ?? "")", .dim)
                + "  \(route)\n    \(args)\n"
        case .methodReturn:
            return Output.styled("return", .green) + " " + Output.styled("to #\(message.replySerial)", .dim) + "  \(route)\n    \(args)\n"
        case .error:
            return Output.styled("error \(message.member ?? "")", .red) + " " + Output.styled("to #\(message.replySerial)", .dim)
                + "  \(route)\n    \(args)\n"
        }
    }
}

extension JSONValue {
    /// An `a{sv}` read into a dictionary, as a JSON object with sorted keys.
    static func object(_ entries: [String: DBusValue]) -> String {
        "{" + entries.sorted { $0.key < $1.key }.map { MenuJSON.quote($0.key) + ": " + full($0.value) }.joined(separator: ", ") + "}"
    }

    /// Any D-Bus value as JSON, nothing left out: arrays as arrays, a
    /// dictionary with string keys as an object (others as [key, value]
    /// pairs), structures as arrays, variants as their value, bytes as numbers.
    static func full(_ value: DBusValue) -> String {
        switch value {
        case .variant(let inner): return full(inner)
        case .bytes(let bytes): return "[" + bytes.map { "\($0)" }.joined(separator: ", ") + "]"
        case .structure(let members): return "[" + members.map(full).joined(separator: ", ") + "]"
        case .dictEntry(let key, let value): return "[" + full(key) + ", " + full(value) + "]"
        case .array(_, let items):
            let entries = items.compactMap { item -> (String, DBusValue)? in
                guard case .dictEntry(let key, let value) = item, let name = key.stringValue else { return nil }
                return (name, value)
            }
            if !items.isEmpty, entries.count == items.count {
                return "{" + entries.map { MenuJSON.quote($0.0) + ": " + full($0.1) }.joined(separator: ", ") + "}"
            }
            if items.isEmpty, case .array(let signature, _) = value, signature.rawValue.hasPrefix("{s") { return "{}" }
            return "[" + items.map(full).joined(separator: ", ") + "]"
        case .double(let v): return v.isFinite ? "\(v)" : "null"
        default: return scalar(value)
        }
    }
}
