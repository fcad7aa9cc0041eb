import MenuBusProviders
import MenuBus
import MenuBusModel

/// `menubus-cli providers --check`: what keeps a declared provider from
/// being offered, and provider shortcuts that clash, with the keys of the
/// edit commands, with each other, and with the keys of running apps'
/// own items where menubusd knows them.
enum ProvidersCheck {
    struct Finding: Equatable {
        enum Severity: String { case error, warning }
        let severity: Severity
        /// The provider's id, or the key file when it could not be read.
        let subject: String
        let message: String
    }

    /// A provider as the check sees it: its id, title and shortcut.
    struct Provider {
        let id: String
        let title: String
        let shortcut: String?
    }

    /// A key an app binds: the app, and the item of its that has it.
    struct AppKey {
        let app: String
        let item: String
        let shortcut: String
    }

    static func findings(faults: [(file: String, message: String)], providers: [Provider],
                         appKeys: [AppKey]) -> [Finding] {
        var findings = faults.map { Finding(severity: .error, subject: $0.file, message: $0.message) }
        var commandKeys: [String: StandardCommand] = [:]
        for command in StandardCommand.allCases {
            if let key = command.accelerator.flatMap(ShortcutSyntax.canonical), commandKeys[key] == nil {
                commandKeys[key] = command
            }
        }
        var firstWithKey: [String: Provider] = [:]
        for provider in providers {
            guard let shortcut = provider.shortcut, let key = ShortcutSyntax.canonical(shortcut) else { continue }
            if let command = commandKeys[key] {
                findings.append(Finding(severity: .error, subject: provider.id,
                                        message: "Shortcut \(shortcut) is the key of \(command.rawValue) in every edit menu; choose another"))
                continue
            }
            if let first = firstWithKey[key] {
                findings.append(Finding(severity: .warning, subject: provider.id,
                                        message: "Shortcut \(shortcut) is also \(first.id)'s ('\(first.title)'); the key runs whichever a menu lists first"))
            } else {
                firstWithKey[key] = provider
            }
            for app in appKeys where ShortcutSyntax.canonical(app.shortcut) == key {
                findings.append(Finding(severity: .warning, subject: provider.id,
                                        message: "Shortcut \(shortcut) is \(app.app)'s own ('\(app.item)'); there the key stays the app's"))
            }
        }
        return findings
    }

    /// Reads the key files, and menubusd's providers and apps when it runs;
    /// prints the findings. 0 when there are none, 3 when there are.
    static func run(_ options: CommandLineTool.Options) throws -> Int32 {
        let catalog = ProviderCatalog()
        catalog.reload()
        var providers = catalog.declarations.map { Provider(id: $0.info.id, title: $0.info.title, shortcut: $0.info.shortcut) }
        var appKeys: [AppKey] = []
        if let client = try? CommandLineTool.connectToRunningDaemon(options) {
            let declared = Set(providers.map(\.id))
            for (id, properties) in (try? client.listProviders()) ?? [] where !declared.contains(id) {
                func string(_ key: String) -> String? {
                    if case .string(let value)? = properties[key]?.unwrapped { return value }
                    return nil
                }
                providers.append(Provider(id: id, title: string("title") ?? id, shortcut: string("shortcut")))
            }
            for listing in (try? client.listContexts()) ?? [] {
                guard let context = try? client.publishedContext(owner: listing.owner, contextId: listing.contextId) else {
                    continue
                }
                for item in context.items {
                    guard let shortcut = item.shortcut,
                          !appKeys.contains(where: { $0.app == listing.appId && $0.shortcut == shortcut }) else { continue }
                    appKeys.append(AppKey(app: listing.appId, item: item.title ?? item.id, shortcut: shortcut))
                }
            }
        }
        let findings = findings(faults: catalog.faults, providers: providers, appKeys: appKeys)
        if options.json {
            let rows = findings.map {
                "{\"severity\": \(MenuJSON.quote($0.severity.rawValue)), \"subject\": \(MenuJSON.quote($0.subject)), \"message\": \(MenuJSON.quote($0.message))}"
            }
            Output.out("[" + rows.joined(separator: ", ") + "]\n")
        } else if findings.isEmpty {
            Output.out("\(providers.count) providers, no problem found\n")
        } else {
            for finding in findings {
                Output.out("\(finding.severity.rawValue) \(finding.subject): \(finding.message)\n")
            }
        }
        return findings.isEmpty ? 0 : 3
    }
}
