import MenuBusSupport

/// MenuBus's Qt platform theme (`QT_QPA_PLATFORMTHEME=menubus`, the plugin
/// `platformthemes/libmenubus.so` of Qt 5 and Qt 6) turned on for the
/// user's sessions by an environment.d snippet, `90-menubus-qt.conf`. The
/// theme wraps another and forwards to it: the snippet records the one the
/// session had in `MENUBUS_QT_WRAPPED_THEME` before naming menubus, so
/// file dialogs, palette and icons stay those of the desktop's theme. It
/// sorts late so that it wraps what earlier snippets set. Removing it puts
/// back exactly what was there: it changes no other file.
///
/// No bus, no daemon: the environment and the file system only.
struct QtThemeIntegration {
    static let themeName = "menubus"
    static let pluginFile = "platformthemes/libmenubus.so"
    static let wrappedVariable = "MENUBUS_QT_WRAPPED_THEME"

    let environment: [String: String]

    init(environment: [String: String] = Files.environment()) {
        self.environment = environment
    }

    /// The theme this session has, which the wrapper is to wrap: its
    /// QT_QPA_PLATFORMTHEME, or the one it wraps already; nil for Qt's own choice.
    var sessionTheme: String? {
        let theme = environment["QT_QPA_PLATFORMTHEME"] ?? ""
        if theme == Self.themeName {
            let wrapped = environment[Self.wrappedVariable] ?? ""
            return wrapped.isEmpty ? nil : wrapped
        }
        return theme.isEmpty ? nil : theme
    }

    /// The wrapped theme: what earlier snippets set, else what this session
    /// had when it was enabled (it may come from outside environment.d).
    var wrappedSetting: String {
        let fallback = sessionTheme.map { ":-" + $0 } ?? ""
        return "\(Self.wrappedVariable)=${QT_QPA_PLATFORMTHEME\(fallback)}"
    }

    var snippet: EnvironmentSnippet {
        EnvironmentSnippet(fileName: "90-menubus-qt.conf", text: """
            \(EnvironmentSnippet.marker) Qt apps load MenuBus's platform theme,
            # which wraps the theme they had (\(Self.wrappedVariable)) and forwards to it.
            # Undo with 'menubus-cli integrate qt --disable'; either takes effect at the next login.
            \(wrappedSetting)
            QT_QPA_PLATFORMTHEME=\(Self.themeName)

            """, byHand: "\(wrappedSetting) and QT_QPA_PLATFORMTHEME=\(Self.themeName)", environment: environment)
    }

    /// The plugin per Qt version: where Qt looks (each QT_PLUGIN_PATH entry,
    /// then Debian's plugin folder), the first file found.
    func installedPlugins() -> [(qt: Int, path: String)] {
        let extra = (environment["QT_PLUGIN_PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return [5, 6].compactMap { version in
            let folders = extra + ["/usr/lib/\(Multiarch.triplet)/qt\(version)/plugins"]
            return folders.map { $0 + "/" + Self.pluginFile }.first { Files.regularFileSize($0) != nil }.map { (version, $0) }
        }
    }

    /// True when this process's QT_QPA_PLATFORMTHEME is the wrapper.
    var inThisSession: Bool {
        environment["QT_QPA_PLATFORMTHEME"] == Self.themeName
    }
}
