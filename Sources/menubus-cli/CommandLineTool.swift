#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusModel

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
        Status.command, Contexts.command, MenuCommand.command, Present.command, Activate.command, ShowMenu.command,
        Monitor.command, Lint.command, Publish.command, UndoState.command, Provider.command, ProvidersCommand.command,
        Integrate.command, Demo.command, Completions.command,
    ]

    static var usage: String {
        var text = """
            Usage: menubus-cli [--address ADDRESS] [--json] [--color=WHEN] COMMAND [ARGS] [--] [OPERANDS]

            Query and debug menubusd, the MenuBus session service.

            Commands:

            """
        for command in commands {
            text += "  " + command.name.padding(12) + command.summary + "\n"
        }
        text += """

            Options (anywhere before '--'):
              --address ADDRESS  talk to the bus at ADDRESS instead of the session bus
              --json             print data as JSON
              --color=WHEN       colour output: auto (the default), always or never
              --version          print the command line's and the daemon's version
              -h, --help         print this help and exit
              --                 end options: what follows is an operand, even '-x'

            Run 'menubus-cli help COMMAND' or 'menubus-cli COMMAND --help' for a
            command's own options. FILE '-' reads standard input.

            Exit status: 0 ok, 1 failure reported by or about the daemon (or I/O),
            2 usage error, 3 findings (lint, providers --check).
            Colour 'auto' is used only on a terminal, never when NO_COLOR is set
            or TERM is dumb.

            """
        return text
    }

    static func main(_ arguments: [String]) -> Int32 {
        var options = Options()
        do {
            // Global options stand anywhere before '--', as busctl and git take them.
            var words: [String] = []
            var operands: [String]? = nil
            var help = false, version = false
            var index = 0
            while index < arguments.count {
                let word = arguments[index]
                index += 1
                switch word {
                case "--":
                    operands = Array(arguments[index...])
                    index = arguments.count
                case "--json": options.json = true
                case "--address":
                    guard index < arguments.count else { throw UsageError("--address needs a value") }
                    options.address = arguments[index]
                    index += 1
                case _ where word.hasPrefix("--address="): options.address = String(word.dropFirst("--address=".count))
                case "--color", "--colour": Output.colour = .always
                case _ where word.hasPrefix("--color=") || word.hasPrefix("--colour="):
                    let value = String(word[word.index(after: word.firstIndex(of: "=")!)...])
                    guard let when = Output.When(rawValue: value) else {
                        throw UsageError("--color needs auto, always or never, not '\(value)'")
                    }
                    Output.colour = when
                case "-h", "--help": help = true
                case "--version": version = true
                default: words.append(word)
                }
            }
            var rest = Arguments(words, operands: operands ?? [])
            if version && rest.peek() == nil {
                printVersion(options)
                return 0
            }
            if let first = rest.peek(), first.hasPrefix("-"), first.count > 1 {
                throw UsageError("unknown option '\(first)'")
            }
            guard let name = rest.next() else {
                if help {
                    Output.out(usage)
                    return 0
                }
                Output.err(usage)
                return 2
            }
            if name == "help" {
                guard let topic = rest.next() else {
                    Output.out(usage)
                    return 0
                }
                guard let command = commands.first(where: { $0.name == topic }) else {
                    throw UsageError("no command '\(topic)'; the commands are \(commands.map(\.name).joined(separator: ", "))")
                }
                try rest.finish()
                Output.out(CommandTable.help(command))
                return 0
            }
            guard let command = commands.first(where: { $0.name == name }) else {
                throw UsageError("unknown command '\(name)'")
            }
            if help {
                Output.out(CommandTable.help(command))
                return 0
            }
            if version { throw UsageError("--version takes no command") }
            do {
                return try command.run(&rest, options)
            } catch let error as UsageError {
                Output.err("menubus-cli \(command.name): \(error.message); see 'menubus-cli help \(command.name)'\n")
                return 2
            }
        } catch let error as UsageError {
            Output.err("menubus-cli: \(error.message); see 'menubus-cli --help'\n")
            return 2
        } catch {
            return report(error)
        }
    }

    /// The command line's version, and the daemon's when one is running:
    /// asking never starts one by D-Bus activation.
    static func printVersion(_ options: Options) {
        Output.out("menubus-cli \(MenuBusNames.softwareVersion)\n")
        guard let client = try? MenuBusClient(address: options.address) else {
            Output.out("menubusd: no bus\n")
            return
        }
        client.callTimeout = 2
        if (try? client.nameHasOwner(MenuBusNames.busName)) == true, let api = try? client.apiVersion() {
            let stats = (try? client.stats()) ?? []
            let daemon = stats.first { $0.name == "version" }?.value.stringValue ?? "(unknown)"
            Output.out("menubusd \(daemon) (API version \(api))\n")
        } else {
            Output.out("menubusd: not running on this bus\n")
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

    /// Connects for a command that only looks: when no menubusd owns its
    /// name, fails with "menubusd is not running" rather than have the bus
    /// start one by D-Bus activation just to be looked at.
    static func connectToRunningDaemon(_ options: Options) throws -> MenuBusClient {
        let client = try connect(options)
        guard try client.nameHasOwner(MenuBusNames.busName) else { throw CommandFailure(notRunning) }
        return client
    }

    static let notRunning = "menubusd is not running on this bus; start it with 'menubusd &' or 'systemctl --user start menubusd'"

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
                Output.err("menubus-cli: \(notRunning)\n")
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

/// The command line, consumed from the front: options and operands mixed,
/// then what followed '--' (operands only, whatever they look like).
struct Arguments {
    private var items: [String]
    private var operands: [String]

    init(_ items: [String], operands: [String] = []) {
        self.items = items
        self.operands = operands
    }

    func peek() -> String? { items.first ?? operands.first }

    mutating func advance() { _ = next() }

    mutating func next() -> String? {
        if !items.isEmpty { return items.removeFirst() }
        return operands.isEmpty ? nil : operands.removeFirst()
    }

    func contains(_ item: String) -> Bool { items.contains(item) }

    /// Removes a flag wherever it stands before '--'; true if it was there.
    mutating func remove(_ flag: String) -> Bool {
        guard let index = items.firstIndex(of: flag) else { return false }
        items.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) wherever it stands before '--'.
    mutating func option(_ name: String) throws -> String? {
        if let index = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(items[index].dropFirst(name.count + 1))
            items.remove(at: index)
            return value
        }
        guard let index = items.firstIndex(of: name) else { return nil }
        guard index + 1 < items.count else {
            // `--name -- VALUE`: the value may follow the end of options.
            guard !operands.isEmpty else { throw UsageError("\(name) needs a value") }
            items.remove(at: index)
            return operands.removeFirst()
        }
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

    /// The next positional argument, named for the error when it is missing;
    /// after '--' anything is an operand.
    mutating func required(_ name: String) throws -> String {
        if items.isEmpty {
            guard !operands.isEmpty else { throw UsageError("missing \(name)") }
            return operands.removeFirst()
        }
        let value = items.removeFirst()
        if value.hasPrefix("-") && value.count > 1 { throw UsageError("unknown option '\(value)'") }
        return value
    }

    /// Fails on anything left over.
    func finish() throws {
        if let extra = items.first {
            throw UsageError(extra.hasPrefix("-") ? "unknown option '\(extra)'" : "unexpected argument '\(extra)'")
        }
        if let extra = operands.first { throw UsageError("unexpected argument '\(extra)'") }
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
