import MenuBus
import MenuBusModel

/// `menubus-cli status`: version and counters.
enum Status {
    static let command = CommandLineTool.Command(
        name: "status", summary: "the daemon's version, pid, uptime, counters and memory",
        usage: """
            Usage: menubus-cli status [--json]

            Prints which menubusd answers (its version, API version, process id and
            uptime) and its counters (apps, contexts, documents, presentations,
            providers) and resident memory, in human units; --json gives
            {"api-version", "stats"}, stats holding the raw values of the Stats
            property.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        try arguments.finish()
        let client = try CommandLineTool.connectToRunningDaemon(options)
        let version = try client.apiVersion()
        let stats = try client.stats()
        if options.json {
            let fields = stats.map { "\(MenuJSON.quote($0.name)): \(JSONValue.scalar($0.value))" }
            Output.out("{\"api-version\": \(version), \"stats\": {\(fields.joined(separator: ", "))}}\n")
        } else {
            let byName = Dictionary(stats.map { ($0.name, $0.value) }) { first, _ in first }
            let software = byName["version"]?.stringValue.map { " " + $0 } ?? ""
            var line = "menubusd\(software), API version \(version)"
            if let pid = byName["pid"].flatMap(number) { line += ", pid \(pid)" }
            if let uptime = byName["uptime-seconds"].flatMap(number) { line += ", up \(duration(uptime))" }
            Output.out(line + "\n")
            for (name, value) in stats where !["version", "pid", "uptime-seconds"].contains(name) {
                if name == "rss-bytes", let bytes = number(value) {
                    Output.out("  \("memory".padding(14))\(size(bytes)) resident\n")
                } else if name.hasSuffix("-bytes"), let bytes = number(value) {
                    Output.out("  \(String(name.dropLast(6)).padding(14))\(size(bytes))\n")
                } else {
                    Output.out("  \(name.padding(14))\(value.stringValue ?? JSONValue.scalar(value))\n")
                }
            }
        }
        return 0
    }
}

extension Status {
    static func number(_ value: DBusValue) -> UInt64? {
        switch value {
        case .uint32(let v): UInt64(v)
        case .uint64(let v): v
        case .int32(let v): UInt64(exactly: v)
        case .int64(let v): UInt64(exactly: v)
        default: nil
        }
    }

    /// 45 s, 12 min 5 s, 3 h 4 min, 2 d 3 h.
    static func duration(_ seconds: UInt64) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min \(seconds % 60) s"
        case ..<86400: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        default: "\(seconds / 86400) d \(seconds % 86400 / 3600) h"
        }
    }

    /// Bytes in IEC units with one decimal: 11.9 MiB.
    static func size(_ bytes: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
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
