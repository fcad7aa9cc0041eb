#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport

/// The GTK 3 module `menubus` (`GTK_MODULES=menubus`, the file
/// `libmenubus.so` in a GTK 3 modules folder) turned on for the user's
/// sessions by an environment.d snippet, `60-menubus.conf`, which appends
/// `menubus` to whatever `GTK_MODULES` the session has. A change takes
/// effect at the next login.
///
/// No bus, no daemon: the environment and the file system only.
struct GtkModuleIntegration {
    /// The module's name in `GTK_MODULES`, and its file.
    static let moduleName = "menubus"
    static let moduleFile = "libmenubus.so"
    static let setting = "GTK_MODULES=${GTK_MODULES:+$GTK_MODULES:}\(moduleName)"

    let environment: [String: String]

    init(environment: [String: String] = Files.environment()) {
        self.environment = environment
    }

    var snippet: EnvironmentSnippet {
        EnvironmentSnippet(fileName: "60-menubus.conf", text: """
            \(EnvironmentSnippet.marker) GTK 3 apps load MenuBus's module.
            # Undo with 'menubus-cli integrate --disable'; either takes effect at the next login.
            \(Self.setting)

            """, byHand: Self.setting, environment: environment)
    }

    // MARK: The module file

    /// A folder GTK 3 may load modules from, and whether it does by default.
    struct ModuleFolder: Equatable {
        let path: String
        /// False for a folder GTK 3 reads only when `GTK_PATH` names its parent.
        let searched: Bool
    }

    /// Where GTK 3 looks, in its order (each `GTK_PATH` entry, then
    /// `$GTK_EXE_PREFIX/lib/gtk-3.0` or the system's GTK library folder;
    /// in each, `3.0.0/modules` before `modules`), then the `/usr/local`
    /// folders a local install may use, which GTK 3 reads only through `GTK_PATH`.
    func moduleFolders() -> [ModuleFolder] {
        var bases: [String] = (environment["GTK_PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if let prefix = environment["GTK_EXE_PREFIX"], prefix.hasPrefix("/") {
            bases.append(prefix + "/lib/gtk-3.0")
        } else {
            bases += ["/usr/lib/\(Multiarch.triplet)/gtk-3.0", "/usr/lib64/gtk-3.0", "/usr/lib/gtk-3.0"]
        }
        var folders: [ModuleFolder] = []
        for base in bases {
            for folder in [base + "/3.0.0/modules", base + "/modules"] where !folders.contains(where: { $0.path == folder }) {
                folders.append(ModuleFolder(path: folder, searched: true))
            }
        }
        for base in ["/usr/local/lib/\(Multiarch.triplet)/gtk-3.0", "/usr/local/lib64/gtk-3.0", "/usr/local/lib/gtk-3.0"] {
            let folder = base + "/modules"
            if !folders.contains(where: { $0.path == folder }) { folders.append(ModuleFolder(path: folder, searched: false)) }
        }
        return folders
    }

    /// The module file GTK 3 would load (the first in a searched folder),
    /// else one in a folder it does not read.
    func installedModule() -> (path: String, folder: ModuleFolder)? {
        let found = moduleFolders().compactMap { folder -> (path: String, folder: ModuleFolder)? in
            let path = folder.path + "/" + Self.moduleFile
            return Files.regularFileSize(path) != nil ? (path, folder) : nil
        }
        return found.first { $0.folder.searched } ?? found.first
    }

    /// The base a modules folder is in, what `GTK_PATH` would have to name.
    static func parent(_ folder: String) -> String {
        Files.parent(of: folder)
    }

    /// True when this process's `GTK_MODULES` names the module.
    var inThisSession: Bool {
        (environment["GTK_MODULES"] ?? "").split(separator: ":").contains { $0 == Self.moduleName }
    }
}
