#if canImport(Glibc)
import Glibc
#endif
import MenuBusProtocol
import MenuBusService
import MenuBusSupport

let usage = """
    Usage: menubusd [--address ADDRESS] [--deferred-timeout SECONDS] [--state-dir DIR]
                    [--undo-retention-days DAYS] [--connection-budget MIB]
                    [--daemon-budget MIB] [--undo-memory-budget MIB]
                    [--undo-disk-budget MIB] [--undo-app-memory-budget MIB]
                    [--undo-app-disk-budget MIB] [--replace] [--idle-timeout SECONDS]
                    [--provider-start-timeout SECONDS] [--verbose]

    The MenuBus session service: owns org.menubus.MenuBus1 on the session bus
    and serves /org/menubus/MenuBus1. Logs go to stderr, with sd-daemon level
    prefixes when stderr is the journal ($JOURNAL_STREAM). SIGTERM, SIGINT or
    SIGHUP syncs the undo journals, releases the name and exits 0.

    Options:
      --address ADDRESS  connect to this D-Bus address instead of the session bus
                         (default: $DBUS_SESSION_BUS_ADDRESS, then $XDG_RUNTIME_DIR/bus)
      --deferred-timeout SECONDS
                         how long an app may take to fill a deferred menu
                         element before it disappears (default 3)
      --state-dir DIR    where undo journals live (default $STATE_DIRECTORY, as the
                         systemd unit sets it; else $XDG_CONFIG_HOME/menubus if
                         the unit keeps its history there, as systemd before 254
                         does, and $XDG_STATE_HOME/menubus has none; else
                         $XDG_STATE_HOME/menubus, else ~/.local/state/menubus);
                         without it, a history found in the other of those
                         places is moved into the one in use at start
      --undo-retention-days DAYS
                         at start, remove undo documents untouched for DAYS days
                         (default 90; 0 keeps them forever)
      --connection-budget MIB
                         what one connection may make menubusd hold: its
                         contexts, their cached deferred content, and the menus
                         it presents with their exported forms (default 8);
                         a call past it is answered LimitExceeded, and a call
                         larger than it is refused before it is read
      --daemon-budget MIB
                         what all connections together may make menubusd hold
                         (default 128)
      --provider-start-timeout SECONDS
                         how long a declared provider (a key file in
                         $XDG_DATA_DIRS/menubus/providers) may take to start
                         and answer when chosen (default 10)
      --undo-memory-budget MIB
                         undo history menubusd keeps in memory, every document
                         together (default 256); past it the least recently
                         used documents are dropped from memory and read again
                         from their journals on use, nothing is lost
      --undo-disk-budget MIB
                         undo journals on disk, every document together
                         (default 2048); past it a new step is answered
                         LimitExceeded, nothing stored is lost
      --undo-app-memory-budget MIB
                         undo history one app keeps in memory, its documents
                         together (default 32); past it that app's least
                         recently used documents are dropped from memory
      --undo-app-disk-budget MIB
                         undo journals one app keeps on disk (default 256);
                         past it the app's new steps are answered
                         LimitExceeded naming the budget
      --verbose          log debug messages too
      --replace          take the name over from a running menubusd, which syncs
                         its undo journals and exits 0 (the name is always owned so
                         that a later --replace may take it)
      --idle-timeout SECONDS
                         exit 0 after SECONDS with no app, presented menu or
                         provider; the activation file and the unit set it, so an
                         activated daemon leaves when unused (default: never)
      --version          print the version and exit
      -h, --help         print this help and exit

    Exit status: 0 after a clean stop, 1 when the bus is unreachable or lost,
    2 on a usage error, 3 when another menubusd already owns the name.

    """

func writeErr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func writeOut(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

var configuration = MenuBusServer.Configuration()
var verbose = false
var replace = false
var arguments = CommandLine.arguments.dropFirst()

/// The value of `flag`: a number of seconds above 0 and at most `max`;
/// anything else is a usage error (exit 2).
@MainActor func seconds(_ flag: String, max: Double) -> Double {
    guard let value = arguments.popFirst(), let seconds = Double(value), seconds > 0, seconds <= max else {
        writeErr("menubusd: \(flag) needs a number of seconds between 0 and \(Int(max))\n")
        exit(2)
    }
    return seconds
}

/// The value of `flag`: a whole number of MiB from 1 to `maxMiB`, in bytes.
@MainActor func bytes(_ flag: String, maxMiB: Int) -> Int {
    guard let value = arguments.popFirst(), let mib = Int(value), mib >= 1, mib <= maxMiB else {
        writeErr("menubusd: \(flag) needs a whole number of MiB between 1 and \(maxMiB)\n")
        exit(2)
    }
    return mib << 20
}

while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help":
        writeOut(usage)
        exit(0)
    case "--version":
        writeOut("menubusd \(MenuBusNames.softwareVersion) (MenuBus API \(MenuBusNames.apiVersion))\n")
        exit(0)
    case "--verbose":
        verbose = true
    case "--address":
        guard let value = arguments.popFirst(), !value.isEmpty else {
            writeErr("menubusd: --address needs a value\n")
            exit(2)
        }
        configuration.address = value
    case "--deferred-timeout":
        configuration.deferredTimeout = seconds(argument, max: 600)
    case "--state-dir":
        guard let value = arguments.popFirst(), value.hasPrefix("/") else {
            writeErr("menubusd: --state-dir needs an absolute path\n")
            exit(2)
        }
        configuration.stateDirectory = value
        configuration.otherStateDirectories = []
    case "--undo-retention-days":
        guard let value = arguments.popFirst(), let days = Int(value), days >= 0, days <= 36_500 else {
            writeErr("menubusd: --undo-retention-days needs a whole number of days (0 keeps documents forever)\n")
            exit(2)
        }
        configuration.undoRetentionDays = days == 0 ? nil : days
    case "--undo-memory-budget":
        configuration.undoMemoryBytes = bytes(argument, maxMiB: 1_048_576)
    case "--undo-disk-budget":
        configuration.undoDiskBytes = bytes(argument, maxMiB: 1_048_576)
    case "--undo-app-memory-budget":
        configuration.undoAppMemoryBytes = bytes(argument, maxMiB: 1_048_576)
    case "--undo-app-disk-budget":
        configuration.undoAppDiskBytes = bytes(argument, maxMiB: 1_048_576)
    case "--connection-budget":
        configuration.budgets.connectionBytes = bytes(argument, maxMiB: 65_536)
    case "--daemon-budget":
        configuration.budgets.daemonBytes = bytes(argument, maxMiB: 65_536)
    case "--replace":
        replace = true
    case "--idle-timeout":
        configuration.idleTimeout = seconds(argument, max: 86_400)
    case "--provider-start-timeout":
        configuration.providerStartTimeout = seconds(argument, max: 600)
    case _ where argument.hasPrefix("--address="):
        configuration.address = String(argument.dropFirst("--address=".count))
    default:
        writeErr("menubusd: unknown argument '\(argument)'; see menubusd --help\n")
        exit(2)
    }
}

Log.setVerbose(verbose)
ProcessMemory.configureAllocator()

let server: MenuBusServer
do {
    server = try MenuBusServer(configuration: configuration)
} catch {
    Log.error("cannot connect to the bus: \(error)")
    exit(1)
}

// Signals are watched before the name is owned: a client may signal at once.
server.watchSignals([SIGTERM, SIGINT, SIGHUP])

do {
    try server.claimName(replace: replace)
} catch let taken as MenuBusServer.NameTaken {
    Log.error("\(taken); is another menubusd running? (menubusd --replace takes over from it)")
    server.shutdown()
    exit(3)
} catch {
    Log.error("cannot request \(MenuBusNames.busName): \(error)")
    server.shutdown()
    exit(1)
}

Log.info("menubusd \(MenuBusNames.softwareVersion) serving \(MenuBusNames.busName) as \(server.uniqueName)")
let reason = server.run()
server.shutdown()
switch reason {
case .signal(let number):
    Log.info("stopping on signal \(number)")
    exit(0)
case .replaced:
    Log.info("replaced by another menubusd; exiting")
    exit(0)
case .idle:
    Log.info("idle for \(Int(configuration.idleTimeout ?? 0)) s with no app, menu or provider; exiting")
    exit(0)
case .disconnected:
    Log.error("the bus connection was lost")
    exit(1)
}
