import MenuBusModel
import MenuBusCodec
import MenuBusSupport

/// The declared providers and the user's policy, read from disk: key files
/// in `$XDG_DATA_HOME/menubus/providers/` and then each of
/// `$XDG_DATA_DIRS/…/menubus/providers/` (a file name found earlier hides
/// the same name later, as with `.desktop` files), and
/// `$XDG_CONFIG_HOME/menubus/providers.conf`.
///
/// A malformed file is skipped with one warning naming file and line; the
/// same fault is not reported again while the file stays as it is.
package final class ProviderCatalog {
    static let fileExtension = ".provider"
    static let maxFileBytes = 64 * 1024

    package let directories: [String]
    let policyPath: String
    package let locales: [String]
    /// In the order found: earlier folders first, file names sorted.
    package private(set) var declarations: [ProviderDeclaration] = [] { didSet { generation &+= 1 } }
    package private(set) var policy = ProviderPolicy() { didSet { generation &+= 1 } }
    /// Changes with every change of `declarations` or `policy`.
    package private(set) var generation = 0
    /// What the last `reload` could not take, each a file and why
    /// (`menubus-cli providers --check` lists them; the log says each once).
    package private(set) var faults: [(file: String, message: String)] = []
    private var reported: Set<String> = []

    package init(environment: [String: String] = Files.environment()) {
        directories = ProviderCatalog.directories(environment: environment)
        policyPath = ProviderPolicy.defaultPath(environment: environment)
        locales = KeyFile.locales(environment: environment)
    }

    /// Provider folders, most important first.
    package static func directories(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? "/tmp"
        var dataHome = environment["XDG_DATA_HOME"] ?? ""
        if !dataHome.hasPrefix("/") { dataHome = home + "/.local/share" }
        var dataDirs = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if dataDirs.isEmpty { dataDirs = ["/usr/local/share", "/usr/share"] }
        var seen: [String] = []
        for base in [dataHome] + dataDirs {
            let directory = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/menubus/providers"
            if !seen.contains(directory) { seen.append(directory) }
        }
        return seen
    }

    /// The declared providers' titles in `locale` (`ru`, `ja_JP.UTF-8`,
    /// `de:fr`), by provider id: each key file's best `Title[xx]`, else its
    /// untranslated `Title`.
    package func titles(in locale: String) -> [String: String] {
        let locales = KeyFile.locales(of: locale)
        var titles: [String: String] = [:]
        for declaration in declarations where titles[declaration.info.id] == nil {
            titles[declaration.info.id] = declaration.title(for: locales)
        }
        return titles
    }

    /// Folders to watch: the provider folders and the policy's folder.
    package var watchedDirectories: [String] {
        directories + [Files.parent(of: policyPath)]
    }

    /// Declarations read at most, as many as may be registered at once
    /// (`ServiceLimits.maxProviders`).
    package static let maxDeclarations = 128

    /// Reads everything again; true when the declarations or the policy changed.
    @discardableResult
    package func reload(maxDeclarations: Int = ProviderCatalog.maxDeclarations) -> Bool {
        var found: [ProviderDeclaration] = []
        var names: Set<String> = []
        faults = []
        for directory in directories {
            let files = (Files.names(in: directory) ?? [])
                .filter { $0.hasSuffix(ProviderCatalog.fileExtension) && !$0.hasPrefix(".") }.sorted()
            for name in files where !names.contains(name) {
                names.insert(name)
                let path = directory + "/" + name
                guard let declaration = read(path) else { continue }
                if let earlier = found.first(where: { $0.info.id == declaration.info.id }) {
                    warnOnce(path, "line 1: Id \(declaration.info.id) is already declared by \(earlier.file); skipped")
                    continue
                }
                guard found.count < maxDeclarations else {
                    warnOnce(path, "more than \(maxDeclarations) declared providers; skipped")
                    continue
                }
                found.append(declaration)
            }
        }
        var newPolicy = policy
        do {
            newPolicy = try ProviderPolicy.load(path: policyPath)
        } catch {
            warnOnce(policyPath, "\(error); the previous settings stay")
        }
        let changed = found != declarations || newPolicy != policy
        declarations = found
        policy = newPolicy
        return changed
    }

    private func read(_ path: String) -> ProviderDeclaration? {
        // Folders, sockets and the like are not key files: skipped unsaid.
        guard Files.regularFileSize(path) != nil else { return nil }
        let data: [UInt8]
        do throws(Files.FileError) {
            guard let read = try Files.contents(path, maxBytes: ProviderCatalog.maxFileBytes) else { return nil }
            data = read
        } catch {
            warnOnce(path, "\(error.problem); skipped")
            return nil
        }
        guard !data.contains(0), let text = String(validating: data, as: UTF8.self) else {
            warnOnce(path, "line 1: not UTF-8; skipped")
            return nil
        }
        do {
            return try ProviderDeclaration.parse(text, file: path, locales: locales)
        } catch {
            warnOnce(path, "\(error); skipped")
            return nil
        }
    }

    private func warnOnce(_ path: String, _ message: String) {
        faults.append((path, message))
        let key = path + "\u{0}" + message
        guard !reported.contains(key) else { return }
        reported.insert(key)
        Log.warning("\(path): \(message)")
    }
}
