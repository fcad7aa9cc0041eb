#if canImport(Glibc)
import Glibc
#endif
import MenuBusProviders
import MenuBusSupport
import MenuBus

/// menubus-provider: the providers that ship with MenuBus. Each runs as its
/// own process under its own D-Bus name, started by D-Bus activation when
/// one of its items is chosen in a menu (see data/providers and data/services).
package enum ProviderProgram {
    static let usage = """
        Usage: menubus-provider PROVIDER [--address ADDRESS] [--idle-exit SECONDS] [OPTIONS]

        Serves one of the providers that ship with MenuBus, registers it with
        menubusd and takes its D-Bus name. menubusd offers the provider from its
        key file while this program is not running and starts it through D-Bus
        activation when its item is chosen.

        Providers:
          text        Make Uppercase, Make Lowercase, Capitalize, Sort Lines
                      (org.menubus.TextTransforms)
          search-web  Search Web: opens the default browser on a search URL
                      (org.menubus.SearchWeb); through the desktop portal's OpenURI
                      where it runs, else xdg-open; passes the activation token on
                        --engine URL  search URL with %s for the words (default from
                                      $XDG_CONFIG_HOME/menubus/search-web.conf, [Search Web]
                                      URL=, else \(SearchWeb.defaultEngine))
          translate   Translate, offline with Apertium (org.menubus.Translate)
                        --pair PAIR   an Apertium mode such as eng-spa (default from
                                      $XDG_CONFIG_HOME/menubus/translate.conf, [Translate]
                                      Pair=, else an installed pair into the user's language)

        Options:
          --address ADDRESS    the bus (default: $DBUS_STARTER_ADDRESS, then the session bus)
          --idle-exit SECONDS  exit after this long without a request (default 300; 0 never)
          -h, --help           print this help and exit

        """

    static func fail(_ message: String, status: Int32 = 2) -> Never {
        Files.write("menubus-provider: \(message)\n", to: STDERR_FILENO)
        exit(status)
    }

    /// Runs the provider the command line names, until it has been idle for
    /// `--idle-exit` seconds or the bus goes.
    package static func main(_ commandLine: [String]) -> Never {
        var arguments = Array(commandLine.dropFirst())
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage, terminator: "")
            exit(0)
        }
        guard let kind = arguments.first else { fail("name a provider: text, search-web or translate; see --help") }
        arguments.removeFirst()
        var options: [String: String] = [:]
        while let option = arguments.first {
            arguments.removeFirst()
            guard ["--address", "--idle-exit", "--engine", "--pair"].contains(option) else { fail("unknown argument '\(option)'") }
            guard let value = arguments.first else { fail("\(option) needs a value") }
            arguments.removeFirst()
            options[option] = value
        }
        let idleExit = Double(options["--idle-exit"] ?? "300") ?? -1
        guard idleExit >= 0 else { fail("--idle-exit needs a number of seconds") }

        // Sort Lines collates in the user's language.
        setlocale(LC_COLLATE, "")
        let environment = Files.environment()
        let address = options["--address"] ?? environment["DBUS_STARTER_ADDRESS"]
        let client: MenuBusClient
        do {
            client = try MenuBusClient(address: address)
        } catch {
            fail("cannot connect to the bus: \(error)", status: 1)
        }

        var lastRequest = now()
        // The titles menubusd offered from the key files, in the same language.
        let titles = DeclaredTitles.read(environment: environment)
        let busName: String
        do {
            switch kind {
            case "text":
                busName = TextTransforms.busName
                try TextTransforms.register(client, titles: titles) { lastRequest = now() }
            case "search-web":
                busName = SearchWeb.busName
                let search = SearchWeb(engine: try options["--engine"] ?? SearchWeb.configuredEngine(environment: environment),
                                       client: client, environment: environment)
                try search.register(titles: titles) { lastRequest = now() }
            case "translate":
                busName = Translate.busName
                guard let pair = try options["--pair"] ?? Translate.configuredPair(environment: environment) else {
                    fail("no Apertium language pair is installed (apt install apertium-eng-spa, for one)", status: 1)
                }
                try Translate(pair: pair).register(client, titles: titles) { lastRequest = now() }
            default:
                fail("unknown provider '\(kind)': text, search-web or translate")
            }
            // Registered first, so the request that started this process finds its handler.
            guard try client.requestName(busName) else { fail("\(busName) is already owned on this bus", status: 3) }
        } catch {
            fail("\(error)", status: 1)
        }

        while client.isConnected {
            client.run(until: { !client.isConnected }, timeout: 1)
            Subprocess.reapFinished()
            if idleExit > 0, now() - lastRequest > idleExit { break }
        }
        exit(0)
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
