#if canImport(Glibc)
import Glibc
#endif
import MenuBus

/// menubus-cli: query and debug menubusd.
enum CommandLineTool {
    /// One subcommand: its name, a line for the overview, its help, and what it does.
    struct Command: Sendable {
        let name: String
        let summary: String
        let usage: String
        let run: @Sendable (inout Arguments, Options) throws -> Int32
    }

    struct Options: Sendable {
        var address: String?
        var json = false
    }

    static let commands: [Command] = [
        Status.command, Contexts.command, MenuCommand.command, Present.command, Activate.command,
        Monitor.command, Lint.command, Publish.command, UndoState.command, Provider.command, ProvidersCommand.command,
        Demo.command, Completions.command,
    ]

    static var usage: String {
        var text = """
            Usage: menubus-cli [--address ADDRESS] [--json] COMMAND [ARGS]

            Query and debug menubusd, the MenuBus session service.

            Commands:

            """
        for command in commands {
            text += "  " + command.name.padding(12) + command.summary + "\n"
        }
        text += """

            Options:
              --address ADDRESS  talk to the bus at ADDRESS instead of the session bus
              --json             print data as JSON
              --version          print the version and exit
              -h, --help         print this help and exit

            Run 'menubus-cli COMMAND --help' for a command's own options.

            Exit status: 0 ok, 1 failure reported by or about the daemon, 2 usage error.
            Colour is used only on a terminal and never when NO_COLOR is set.

            """
        return text
    }

    static func main(_ arguments: [String]) -> Int32 {
        var options = Options()
        var rest = Arguments(arguments)
        do {
            while let first = rest.peek(), first.hasPrefix("-") {
                rest.advance()
                switch first {
                case "-h", "--help":
                    Output.out(usage)
                    return 0
                case "--version":
                    Output.out("menubus-cli \(MenuBusServer.softwareVersion)\n")
                    return 0
                case "--json":
                    options.json = true
                case "--address":
                    options.address = try rest.value(for: "--address")
                case _ where first.hasPrefix("--address="):
                    options.address = String(first.dropFirst("--address=".count))
                default:
                    throw UsageError("unknown option '\(first)'")
                }
            }
            guard let name = rest.next() else {
                Output.err(usage)
                return 2
            }
            if name == "help" {
                if let topic = rest.next(), let command = commands.first(where: { $0.name == topic }) {
                    Output.out(command.usage)
                } else {
                    Output.out(usage)
                }
                return 0
            }
            guard let command = commands.first(where: { $0.name == name }) else {
                throw UsageError("unknown command '\(name)'")
            }
            if rest.contains("-h") || rest.contains("--help") {
                Output.out(command.usage)
                return 0
            }
            if rest.remove("--json") { options.json = true }
            do {
                return try command.run(&rest, options)
            } catch let error as UsageError {
                Output.err("menubus-cli \(command.name): \(error.message); see 'menubus-cli \(command.name) --help'\n")
                return 2
            }
        } catch let error as UsageError {
            Output.err("menubus-cli: \(error.message); see 'menubus-cli --help'\n")
            return 2
        } catch {
            return report(error)
        }
    }

    /// Connects to the bus; the error says what to do when there is none.
    static func connect(_ options: Options) throws -> MenuBusClient {
        do {
            return try MenuBusClient(address: options.address)
        } catch let error as BusError {
            throw CommandFailure("cannot connect to the bus: \(error.message); set DBUS_SESSION_BUS_ADDRESS or pass --address")
        }
    }

    /// Answers menubusd's calls until `seconds` pass (nil: until the bus goes or Ctrl-C).
    static func serve(_ client: MenuBusClient, for seconds: Double?) {
        if let seconds {
            client.run(until: { !client.isConnected }, timeout: seconds)
        } else {
            while client.isConnected { client.runForever() }
        }
    }

    /// One line on stderr for a failure; exit status 1.
    static func report(_ error: Error) -> Int32 {
        if let error = error as? BusError {
            if error.name == BusError.Standard.serviceUnknown || error.name == BusError.Standard.nameHasNoOwner {
                Output.err("menubus-cli: menubusd is not running on this bus; start it with 'menubusd &' or 'systemctl --user start menubusd'\n")
            } else if error.name == BusError.Standard.noReply || error.name == BusError.Standard.timeout {
                Output.err("menubus-cli: menubusd did not answer in time (\(error.name))\n")
            } else {
                Output.err("menubus-cli: \(error.name): \(error.message)\n")
            }
        } else if let failure = error as? CommandFailure {
            Output.err("menubus-cli: \(failure.message)\n")
        } else {
            Output.err("menubus-cli: \(error)\n")
        }
        return 1
    }
}

/// A usage mistake: exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure to report in one line: exit status 1.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The command line, consumed from the front.
struct Arguments {
    private var items: [String]

    init(_ items: [String]) {
        self.items = items
    }

    func peek() -> String? { items.first }

    mutating func advance() { items.removeFirst() }

    mutating func next() -> String? {
        items.isEmpty ? nil : items.removeFirst()
    }

    func contains(_ item: String) -> Bool { items.contains(item) }

    /// Removes a flag wherever it stands; true if it was there.
    mutating func remove(_ flag: String) -> Bool {
        guard let index = items.firstIndex(of: flag) else { return false }
        items.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) wherever it stands.
    mutating func option(_ name: String) throws -> String? {
        if let index = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(items[index].dropFirst(name.count + 1))
            items.remove(at: index)
            return value
        }
        guard let index = items.firstIndex(of: name) else { return nil }
        guard index + 1 < items.count else { throw UsageError("\(name) needs a value") }
        let value = items[index + 1]
        items.removeSubrange(index...(index + 1))
        return value
    }

    /// Removes `--name SECONDS` wherever it stands: a finite, non-negative number.
    mutating func seconds(_ name: String) throws -> Double? {
        try option(name).map { value in
            guard let seconds = Double(value), seconds.isFinite, seconds >= 0 else {
                throw UsageError("\(name) needs a number of seconds")
            }
            return seconds
        }
    }

    mutating func value(for name: String) throws -> String {
        guard let value = next() else { throw UsageError("\(name) needs a value") }
        return value
    }

    /// The next positional argument, named for the error when it is missing.
    mutating func required(_ name: String) throws -> String {
        guard let value = next() else { throw UsageError("missing \(name)") }
        if value.hasPrefix("-") && value.count > 1 { throw UsageError("unknown option '\(value)'") }
        return value
    }

    /// Fails on anything left over.
    func finish() throws {
        if let extra = items.first {
            throw UsageError(extra.hasPrefix("-") ? "unknown option '\(extra)'" : "unexpected argument '\(extra)'")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
