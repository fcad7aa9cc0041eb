#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import MenuBusSupport
internal import CGettext

/// The titles of MenuBus's own items in a language, read from the gettext
/// catalogues of text domain `menubus` with glibc's `dgettext`.
///
/// Languages: a `locale` option (`ru`, `ja_JP.UTF-8`, `de:fr`), else the
/// session's, from the daemon's environment: `LANGUAGE`, then `LC_ALL`,
/// `LC_MESSAGES`, `LANG`. `LANGUAGE` counts even when the locale is C: the
/// daemon serves the session and reads its catalogues itself.
///
/// Catalogues: `$MENUBUS_LOCALEDIR`, else `share/locale` beside the
/// executable (`/usr/bin/menubusd` → `/usr/share/locale`; a development
/// build in `.build/<triple>/<config>/` → `.build/share/locale`, where
/// `scripts/build-locale` puts them), else gettext's default.
///
/// gettext reads `LANGUAGE` from the environment, so each language is
/// looked up once, under a lock, with `LANGUAGE` set for the lookup and
/// gettext's cache invalidated; the answer is kept, so composing a menu
/// costs a dictionary lookup.
package final class Localization: Sendable {
    package static let domain = "menubus"
    /// Languages whose script runs right to left.
    static let rightToLeftLanguages: Set<String> = ["ar", "he", "iw", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb"]
    /// Distinct `locale` values kept; beyond that the oldest answers go.
    static let maxCachedLocales = 32
    static let maxLocaleBytes = 128

    /// The daemon's: catalogues and session language from its environment.
    package static let shared = Localization(directory: findCatalogues(), sessionLocale: sessionLocale())

    package let directory: String?
    /// The session's language list; "" for C.
    let sessionLocale: String
    private let cache = Mutex<[String: SystemTitles]>([:])

    package init(directory: String?, sessionLocale: String) {
        self.directory = directory
        self.sessionLocale = sessionLocale
    }

    /// The titles for `locale` (nil or "": the session's).
    package func titles(for locale: String? = nil) -> SystemTitles {
        let key = (locale?.isEmpty ?? true) ? sessionLocale : locale!
        // Known locales, English ones included, cost one dictionary lookup.
        if let known = cache.withLock({ $0[key] }) { return known }
        let titles = Self.isUntranslated(key)
            ? SystemTitles.english
            : SystemTitles(translations: Self.translate(SystemTitles.sourceStrings, languages: key, directory: directory),
                           rightToLeft: Self.isRightToLeft(key))
        cache.withLock { cache in
            if cache.count >= Self.maxCachedLocales { cache.removeAll() }
            cache[key] = titles
        }
        return titles
    }

    /// True when the first language of `locale` is written right to left.
    static func isRightToLeft(_ locale: String) -> Bool {
        rightToLeftLanguages.contains(language(of: locale))
    }

    /// The language code of the first entry: "ar_EG.UTF-8:en" → "ar".
    package static func language(of locale: String) -> String {
        let first = locale.split(separator: ":").first ?? ""
        return String(first.prefix { $0 != "_" && $0 != "." && $0 != "@" }).lowercased()
    }

    /// A `locale` option: up to 128 bytes of `[A-Za-z0-9_.@:-]`.
    package static func validate(locale: String, field: String) throws(ModelError) {
        guard locale.utf8.count <= maxLocaleBytes else {
            throw .limit(field, "a locale of \(locale.utf8.count) bytes is longer than the limit of \(maxLocaleBytes) bytes")
        }
        let valid = locale.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
        }
        guard valid else {
            throw .invalid(field, "\(ModelError.quoted(locale)) is not a locale name such as 'ru', 'ja_JP.UTF-8' or 'de:fr'")
        }
    }

    /// The session's language list from an environment.
    static func sessionLocale(_ environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String {
        if let language = environment("LANGUAGE"), !language.isEmpty { return language }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment(name), !value.isEmpty { return value }
        }
        return ""
    }

    private static func isUntranslated(_ locale: String) -> Bool {
        locale.split(separator: ":").allSatisfy { entry in
            let name = entry.prefix { $0 != "." && $0 != "@" }
            return name == "C" || name == "POSIX" || name == "en" || name.hasPrefix("en_")
        }
    }

    // MARK: gettext

    /// gettext's state is the process's: one lookup at a time.
    private static let gettextLock = Mutex<Bool>(false)

    private static func translate(_ sources: [String], languages: String, directory: String?) -> [String: String] {
        gettextLock.withLock { prepared in
            if !prepared {
                prepared = true
                prepare(directory: directory)
            }
            let previous = getenv("LANGUAGE").map { String(cString: $0) }
            setenv("LANGUAGE", languages, 1)
            invalidateCache()
            var result: [String: String] = [:]
            for source in sources {
                // Untranslated, dgettext hands back the msgid pointer it was
                // given: read it while that C string is still alive.
                let text: String? = source.withCString { msgid in
                    dgettext(domain, msgid).map { String(cString: $0) }
                }
                if let text, text != source { result[source] = text }
            }
            if let previous { setenv("LANGUAGE", previous, 1) } else { unsetenv("LANGUAGE") }
            invalidateCache()
            return result
        }
    }

    /// Binds the domain (UTF-8 out, whatever the locale) and leaves the C
    /// locale for messages, where gettext ignores `LANGUAGE`.
    private static func prepare(directory: String?) {
        if let directory { bindtextdomain(domain, directory) }
        bind_textdomain_codeset(domain, "UTF-8")
        let current = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        if current == "C" || current == "POSIX" {
            if setlocale(LC_MESSAGES, "C.UTF-8") == nil && setlocale(LC_MESSAGES, "C.utf8") == nil {
                Log.warning("no C.UTF-8 locale: MenuBus's own titles stay English")
            }
        }
    }

    /// gettext keeps translations it found; bumping its catalogue counter
    /// (what `setlocale` does) makes it look again under the new `LANGUAGE`.
    private static func invalidateCache() {
        if let counter = dlsym(nil, "_nl_msg_cat_cntr") {
            counter.assumingMemoryBound(to: Int32.self).pointee &+= 1
        }
    }

    /// `share/locale` of `$MENUBUS_LOCALEDIR` or beside the executable, if it holds a catalogue.
    static func findCatalogues() -> String? {
        if let explicit = getenv("MENUBUS_LOCALEDIR").map({ String(cString: $0) }), !explicit.isEmpty { return explicit }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        var directory = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for _ in 0..<4 {
            guard let slash = directory.lastIndex(of: "/") else { break }
            directory = String(directory[..<slash])
            let candidate = directory + "/share/locale"
            if access(candidate + "/de/LC_MESSAGES/\(domain).mo", R_OK) == 0 { return candidate }
        }
        return nil
    }
}
