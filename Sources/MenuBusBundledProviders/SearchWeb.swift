#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusSupport

/// Search Web: the selected words on a search engine, in the default
/// browser. Through the desktop portal's `OpenURI` where a portal runs
/// (sandboxed apps and Wayland sessions want that), else `xdg-open`. The
/// activation token from the menu choice goes along, so the compositor
/// lets the browser take focus.
struct SearchWeb {
    static let busName = "org.menubus.SearchWeb"
    static let id = "org.menubus.SearchWeb"
    static let defaultEngine = "https://duckduckgo.com/?q=%s"
    static let portalName = "org.freedesktop.portal.Desktop"

    let engine: String
    let client: MenuBusClient
    let environment: [String: String]

    /// `[Search Web] URL=` in `$XDG_CONFIG_HOME/menubus/search-web.conf`.
    static func configuredEngine(environment: [String: String]) throws -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "/tmp") + "/.config"
        let settings = try ProviderSettings.read(config + "/menubus/search-web.conf")
        guard let url = settings["Search Web"]?["URL"], !url.isEmpty else { return defaultEngine }
        guard url.contains("%s"), url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw ProviderSettings.Fault(description: "search-web.conf: URL must be an http(s) URL with %s for the words")
        }
        return url
    }

    /// The engine's URL with the words percent-encoded in place of `%s`:
    /// every UTF-8 byte but RFC 3986's unreserved ASCII (letters, digits,
    /// `-._~`) as `%XX`.
    static func url(engine: String, words: String) -> String {
        var query = ""
        for byte in words.trimmed(where: \.isWhitespace).utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                query.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                query += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return engine.replacing("%s", with: query)
    }

    /// The activation token of the choice: `activation-token` in the
    /// context, or in its `platform-data`.
    static func activationToken(_ context: [String: DBusValue]) -> String? {
        if case .string(let token)? = context["activation-token"]?.unwrapped, !token.isEmpty { return token }
        guard case .array(_, let entries)? = context["platform-data"]?.unwrapped else { return nil }
        for entry in entries {
            if case .dictEntry(.string("activation-token"), let value) = entry, case .string(let token) = value.unwrapped,
               !token.isEmpty {
                return token
            }
        }
        return nil
    }

    func register(titles: [String: String] = [:], onRequest: @escaping () -> Void) throws {
        let description = ProviderInfo(id: SearchWeb.id, title: titles[SearchWeb.id] ?? "Search Web", icon: "edit-find",
                                              role: .searchWeb)
        try client.registerProvider(description) { text, context in
            onRequest()
            try self.open(SearchWeb.url(engine: self.engine, words: text), token: SearchWeb.activationToken(context))
            return ""
        }
    }

    func open(_ url: String, token: String?) throws {
        if (try? client.nameHasOwner(SearchWeb.portalName)) == true {
            var options: [DBusValue] = []
            if let token { options.append(.dictEntry(.string("activation_token"), .variant(.string(token)))) }
            do {
                _ = try client.call(destination: SearchWeb.portalName, path: "/org/freedesktop/portal/desktop",
                                    interface: "org.freedesktop.portal.OpenURI", member: "OpenURI",
                                    arguments: [.string(""), .string(url), .array("{sv}", options)])
                return
            } catch {
                Files.write("menubus-provider: the portal's OpenURI failed (\(error)); trying xdg-open\n", to: STDERR_FILENO)
            }
        }
        var env = environment
        if let token {
            env["XDG_ACTIVATION_TOKEN"] = token
            env["DESKTOP_STARTUP_ID"] = token
        }
        try Subprocess.start(["xdg-open", url], environment: env)
    }
}

/// The small key files the bundled providers read their settings from.
enum ProviderSettings {
    struct Fault: Error, CustomStringConvertible { let description: String }

    /// Group name to key to value; a missing file is empty.
    static func read(_ path: String) throws -> [String: [String: String]] {
        let data: [UInt8]
        do {
            guard let bytes = try Files.contents(path, maxBytes: 1 << 20) else { return [:] }
            data = bytes
        } catch {
            throw Fault(description: "\(error)")
        }
        var groups: [String: [String: String]] = [:]
        var current: String?
        for (index, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw.trimmed(where: isBlank))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else {
                throw Fault(description: "\(path): line \(index + 1): expected '[Group]' or 'Key=value'")
            }
            groups[current, default: [:]][String(line[..<equals].trimmed(where: isBlank))] =
                String(line[line.index(after: equals)...].trimmed(where: isBlank))
        }
        return groups
    }

    /// Blanks within a line: what is white space and no line end.
    private static func isBlank(_ character: Character) -> Bool { character.isWhitespace && !character.isNewline }
}

extension StringProtocol {
    /// Without the characters `isSpace` matches at either end.
    func trimmed(where isSpace: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
