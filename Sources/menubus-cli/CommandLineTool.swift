#if canImport(Glibc)
import Glibc
#endif
import MenuBus

/// menubus-cli: query and debug menubusd.
enum CommandLineTool {
    static let usage = """
        Usage: menubus-cli [--address ADDRESS] [--json] COMMAND [ARGS]

        Query and debug menubusd, the MenuBus session service.

        Commands:
          status     the daemon's API version and counters

        Options:
          --address ADDRESS  talk to the bus at ADDRESS instead of the session bus
          --json             print data as JSON
          --version          print the version and exit
          -h, --help         print this help and exit

        Exit status: 0 ok, 1 failure reported by or about the daemon, 2 usage error.

        """

    struct Options {
        var address: String?
        var json = false
    }

    static func main(_ arguments: [String]) -> Int32 {
        var options = Options()
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("-") {
            rest = rest.dropFirst()
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
                guard let value = rest.first else {
                    Output.err("menubus-cli: --address needs a value\n")
                    return 2
                }
                options.address = value
                rest = rest.dropFirst()
            case _ where first.hasPrefix("--address="):
                options.address = String(first.dropFirst("--address=".count))
            default:
                Output.err("menubus-cli: unknown option '\(first)'; see menubus-cli --help\n")
                return 2
            }
        }
        guard let command = rest.first else {
            Output.err(usage)
            return 2
        }
        let commandArguments = Array(rest.dropFirst())
        switch command {
        case "status":
            return Status.run(commandArguments, options)
        case "help":
            Output.out(usage)
            return 0
        default:
            Output.err("menubus-cli: unknown command '\(command)'; see menubus-cli --help\n")
            return 2
        }
    }

    /// Connects, or prints why not and returns nil.
    static func connect(_ options: Options) -> MenuBusClient? {
        do {
            return try MenuBusClient(address: options.address)
        } catch {
            Output.err("menubus-cli: cannot connect to the bus: \(error)\n")
            return nil
        }
    }

    /// One line for a daemon error, with a hint when menubusd is not running.
    static func report(_ error: Error) -> Int32 {
        if let error = error as? BusError,
           error.name == BusError.Standard.serviceUnknown || error.name == BusError.Standard.nameHasNoOwner {
            Output.err("menubus-cli: menubusd is not running on this bus; start it with 'menubusd &' or 'systemctl --user start menubusd'\n")
        } else {
            Output.err("menubus-cli: \(error)\n")
        }
        return 1
    }
}

enum Output {
    static func out(_ text: String) { write(fd: 1, text) }
    static func err(_ text: String) { write(fd: 2, text) }

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
