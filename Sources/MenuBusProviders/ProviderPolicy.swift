import MenuBusSupport
import MenuBusModel
import MenuBusCodec

/// The user's choices about providers, as macOS's Services settings:
/// `$XDG_CONFIG_HOME/menubus/providers.conf`.
///
/// ```
/// [Providers]
/// Disabled=org.example.Shout;org.example.Other
/// Order=org.menubus.TextTransforms.Uppercase;org.menubus.TextTransforms.Lowercase
///
/// [Roles]
/// translate=org.menubus.Translate
/// ```
///
/// `Disabled` providers never show, running or declared; `[Roles]` names
/// the provider that serves a role when several could; `Order` puts the
/// listed providers first, in that order.
package struct ProviderPolicy: Equatable, Sendable {
    package var disabled: [String] = []
    package var order: [String] = []
    /// Role name (`translate`) to provider id.
    package var preferred: [String: String] = [:]

    package init() {}

    /// `$XDG_CONFIG_HOME/menubus/providers.conf`, else `~/.config/menubus/providers.conf`.
    package static func defaultPath(environment: [String: String] = Files.environment()) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/menubus/providers.conf"
        }
        return (environment["HOME"] ?? "/tmp") + "/.config/menubus/providers.conf"
    }

    /// Parses the file's text; throws a message with the line at fault.
    package init(parsing text: String) throws {
        let file: KeyFile
        do { file = try KeyFile(parsing: text) } catch { throw PolicyError(description: error.description) }
        if let providers = file.group("Providers") {
            disabled = providers.entry("Disabled").map { KeyFile.list($0.value) } ?? []
            order = providers.entry("Order").map { KeyFile.list($0.value) } ?? []
        }
        if let roles = file.group("Roles") {
            for entry in roles.entries where entry.locale == nil {
                guard ProviderRole(rawValue: entry.key) != nil else {
                    throw PolicyError(description: "line \(entry.line): '\(entry.key)' is not a role (\(ProviderRole.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                if !entry.value.isEmpty { preferred[entry.key] = entry.value }
            }
        }
    }

    /// Reads `path`; a missing file is the empty policy.
    package static func load(path: String) throws -> ProviderPolicy {
        let read: [UInt8]?
        do throws(Files.FileError) {
            read = try Files.contents(path, maxBytes: ProviderCatalog.maxFileBytes)
        } catch {
            throw PolicyError(description: error.problem)
        }
        guard let data = read else { return ProviderPolicy() }
        return try ProviderPolicy(parsing: String(decoding: data, as: UTF8.self))
    }

    /// The file's text.
    package var text: String {
        // A ';' inside an id is written '\;', as `KeyFile.list` reads it.
        func list(_ ids: [String]) -> String { ids.map { $0.replacing(";", with: "\\;") + ";" }.joined() }
        var providers: [(key: String, value: String)] = []
        if !disabled.isEmpty { providers.append(("Disabled", list(disabled))) }
        if !order.isEmpty { providers.append(("Order", list(order))) }
        var groups: [(name: String, entries: [(key: String, value: String)])] = [("Providers", providers)]
        let roles = preferred.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        if !roles.isEmpty { groups.append(("Roles", roles)) }
        return KeyFile.render(groups)
    }

    /// Writes the file atomically (a rename), making its folder if needed.
    package func save(path: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.count <= ProviderCatalog.maxFileBytes else {
            throw PolicyError(description: "\(path): the settings would take \(bytes.count) bytes, more than the \(ProviderCatalog.maxFileBytes) menubusd reads")
        }
        try Files.makeDirectories(Files.parent(of: path))
        try Files.writeAtomically(bytes, to: path)
    }

    /// Provider ids are 1–255 bytes of `[A-Za-z0-9._:-]`, so lists need no escapes.
    package static func check(_ id: String) throws {
        do throws(ModelError) {
            try ElementID.check(id, field: "ID", maxBytes: Limits.maxProviderIdBytes)
        } catch {
            throw PolicyError(description: "'\(id)' is not a provider id: \(error.message)")
        }
    }

    package mutating func enable(_ id: String) throws {
        try ProviderPolicy.check(id)
        disabled.removeAll { $0 == id }
    }

    package mutating func disable(_ id: String) throws {
        try ProviderPolicy.check(id)
        if !disabled.contains(id) { disabled.append(id) }
    }

    /// Makes `id` the provider of `role`; throws when `role` is not one.
    package mutating func prefer(role: String, id: String) throws {
        try ProviderPolicy.check(id)
        guard ProviderRole(rawValue: role) != nil else {
            throw PolicyError(description: "'\(role)' is not a role (\(ProviderRole.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        preferred[role] = id
    }

    /// Drops disabled providers and orders the rest: each role's preferred
    /// provider first, then `order`, then the order given.
    package func apply(to providers: [ProviderInfo]) -> [ProviderInfo] {
        let kept = providers.filter { !disabled.contains($0.id) }
        guard !preferred.isEmpty || !order.isEmpty else { return kept }
        func rank(_ info: ProviderInfo) -> Int {
            if let role = info.role, preferred[role.rawValue] == info.id { return 0 }
            if let position = order.firstIndex(of: info.id) { return 1 + position }
            return 1 + order.count
        }
        return kept.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }
}

/// A fault in `providers.conf`.
struct PolicyError: Error, CustomStringConvertible, Sendable {
    let description: String
}
