import MenuBus
import MenuBusSupport

/// Translate, offline, with Apertium: `apertium -u PAIR` on the selected
/// text. The installed pairs decide the offer (the key file shows the item
/// only when a mode is installed). In an editable context menubusd puts the
/// translation in place of the selection; elsewhere it is the `Process` call's answer.
struct Translate {
    static let busName = "org.menubus.Translate"
    static let id = "org.menubus.Translate"
    static let modesDirectory = "/usr/share/apertium/modes"

    let pair: String

    /// ISO 639-1 codes of the locale to Apertium's ISO 639-3 ones.
    static let languageCodes = [
        "en": "eng", "es": "spa", "fr": "fra", "de": "deu", "it": "ita", "pt": "por", "ca": "cat",
        "gl": "glg", "eu": "eus", "ro": "ron", "nl": "nld", "da": "dan", "sv": "swe", "nb": "nob",
        "nn": "nno", "is": "isl", "ru": "rus", "uk": "ukr", "pl": "pol", "cs": "ces", "oc": "oci",
        "eo": "epo", "cy": "cym", "br": "bre", "ga": "gle", "mt": "mlt", "ar": "ara", "kk": "kaz",
        "tt": "tat", "hi": "hin", "ur": "urd", "sq": "sqi", "mk": "mkd", "bg": "bul", "sr": "srp",
        "hr": "hrv", "bs": "bos", "sl": "slv", "af": "afr", "id": "ind", "ms": "zlm", "be": "bel",
    ]

    /// Installed modes: `eng-spa` for `/usr/share/apertium/modes/eng-spa.mode`.
    static func installedPairs(directory: String = modesDirectory) -> [String] {
        (Files.names(in: directory) ?? [])
            .filter { $0.hasSuffix(".mode") }.map { String($0.dropLast(5)) }
            .filter { $0.split(separator: "-").count == 2 }.sorted()
    }

    /// `[Translate] Pair=` in `$XDG_CONFIG_HOME/menubus/translate.conf`, else
    /// the first installed pair into the user's language, else the first one.
    static func configuredPair(environment: [String: String]) throws -> String? {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "/tmp") + "/.config"
        if let pair = try ProviderSettings.read(config + "/menubus/translate.conf")["Translate"]?["Pair"], !pair.isEmpty {
            return pair
        }
        let pairs = installedPairs()
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let language = String(locale.prefix { $0.isLetter })
        if let code = languageCodes[language], let into = pairs.first(where: { $0.hasSuffix("-" + code) }) {
            return into
        }
        return pairs.first
    }

    func register(_ client: MenuBusClient, titles: [String: String] = [:], onRequest: @escaping () -> Void) throws {
        let description = ProviderInfo(id: Translate.id, title: titles[Translate.id] ?? "Translate",
                                              icon: "accessories-dictionary",
                                              role: .translate, returnsText: true)
        try client.registerProvider(description) { text, _ in
            onRequest()
            return try self.translate(text)
        }
    }

    /// Runs Apertium; unknown words come through unmarked (`-u`).
    func translate(_ text: String) throws -> String {
        // Apertium's tools abort under a locale that is not generated; the
        // text is UTF-8 whatever the user's language.
        var environment = Files.environment()
        environment["LC_ALL"] = "C.UTF-8"
        let result = try Subprocess.run(["apertium", "-u", pair], environment: environment, input: Array(text.utf8))
        guard result.status == 0, !result.output.isEmpty || text.isEmpty else {
            let reason = String(decoding: result.errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "failed"
            throw BusError(name: "org.menubus.MenuBus1.Error.ClientFailed", message: "apertium \(pair): \(reason)")
        }
        var translated = String(decoding: result.output, as: UTF8.self)
        if !text.hasSuffix("\n"), translated.hasSuffix("\n") { translated.removeLast() }
        return translated
    }
}
