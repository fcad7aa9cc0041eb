#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport

/// The GTK 3 module `menubus` (`GTK_MODULES=menubus`, the file
/// `libmenubus.so` in a GTK 3 modules folder) turned on for the user's
/// sessions by a systemd environment.d(5) snippet,
/// `$XDG_CONFIG_HOME/environment.d/60-menubus.conf`, which appends
/// `menubus` to whatever `GTK_MODULES` the session has. The systemd user
/// manager reads it when the session starts, so a change takes effect at
/// the next login. Only a file carrying `marker` is ever changed or removed.
///
/// No bus, no daemon: the environment and the file system only.
struct GtkModuleIntegration {
    /// The module's name in `GTK_MODULES`, and its file.
    static let moduleName = "menubus"
    static let moduleFile = "libmenubus.so"
    /// The first line of a snippet menubus-cli wrote; a file without it is someone else's.
    static let marker = "# Written by 'menubus-cli integrate --enable':"
    static let snippetText = """
        \(marker) GTK 3 apps load MenuBus's module.
        # Undo with 'menubus-cli integrate --disable'; either takes effect at the next login.
        GTK_MODULES=${GTK_MODULES:+$GTK_MODULES:}\(moduleName)

        """
    /// Larger files are not a snippet of ours.
    static let maxSnippetBytes = 64 << 10

    let environment: [String: String]

    init(environment: [String: String] = Files.environment()) {
        self.environment = environment
    }

    /// `$XDG_CONFIG_HOME/environment.d/60-menubus.conf`, `~/.config` when
    /// XDG_CONFIG_HOME is unset or relative (XDG Base Directory spec).
    func snippetPath() throws -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/environment.d/60-menubus.conf"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw CommandFailure("neither XDG_CONFIG_HOME nor HOME names a folder; cannot tell where environment.d is")
        }
        return home + "/.config/environment.d/60-menubus.conf"
    }

    /// What is at the snippet's path.
    enum Snippet: Equatable {
        case absent
        /// Ours; `current` when it is what `enable` writes now.
        case ours(current: Bool)
        /// A file menubus-cli did not write.
        case foreign
    }

    func snippet(at path: String) throws -> Snippet {
        let bytes: [UInt8]?
        do {
            bytes = try Files.contents(path, maxBytes: Self.maxSnippetBytes)
        } catch {
            // Too large, not a regular file, unreadable: not ours to touch.
            if Files.regularFileSize(path) != nil || error.problem.hasPrefix("larger") { return .foreign }
            throw CommandFailure("cannot read \(error)")
        }
        guard let bytes else { return .absent }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.split(separator: "\n").contains(where: { $0.hasPrefix(Self.marker) }) else { return .foreign }
        return .ours(current: text == Self.snippetText)
    }

    // MARK: The module file

    /// A folder GTK 3 may load modules from, and whether it does by default.
    struct ModuleFolder: Equatable {
        let path: String
        /// False for a folder GTK 3 reads only when `GTK_PATH` names its parent.
        let searched: Bool
    }

    /// The multiarch triplet Debian's GTK 3 lives under (`x86_64-linux-gnu`).
    static var multiarch: String {
        #if arch(x86_64)
        "x86_64-linux-gnu"
        #elseif arch(arm64)
        "aarch64-linux-gnu"
        #elseif arch(i386)
        "i386-linux-gnu"
        #elseif arch(arm)
        "arm-linux-gnueabihf"
        #elseif arch(powerpc64le)
        "powerpc64le-linux-gnu"
        #elseif arch(s390x)
        "s390x-linux-gnu"
        #else
        "unknown-linux-gnu"
        #endif
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
            bases += ["/usr/lib/\(Self.multiarch)/gtk-3.0", "/usr/lib64/gtk-3.0", "/usr/lib/gtk-3.0"]
        }
        var folders: [ModuleFolder] = []
        for base in bases {
            for folder in [base + "/3.0.0/modules", base + "/modules"] where !folders.contains(where: { $0.path == folder }) {
                folders.append(ModuleFolder(path: folder, searched: true))
            }
        }
        for base in ["/usr/local/lib/\(Self.multiarch)/gtk-3.0", "/usr/local/lib64/gtk-3.0", "/usr/local/lib/gtk-3.0"] {
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

    // MARK: Changes

    enum Change: Equatable {
        case wrote, updated, unchanged, removed
    }

    /// Writes the snippet unless ours is there already; refuses a file of another's.
    func enable() throws -> (Change, path: String) {
        let path = try snippetPath()
        let change: Change
        switch try snippet(at: path) {
        case .ours(current: true): return (.unchanged, path)
        case .ours(current: false): change = .updated
        case .absent: change = .wrote
        case .foreign: throw Self.foreignFile(path)
        }
        do {
            try Files.makeDirectories(Files.parent(of: path))
            try Files.writeAtomically(Array(Self.snippetText.utf8), to: path)
        } catch {
            throw CommandFailure("cannot write \(error)")
        }
        return (change, path)
    }

    /// Removes the snippet if it is ours; nothing to do when there is none.
    func disable() throws -> (Change, path: String) {
        let path = try snippetPath()
        switch try snippet(at: path) {
        case .absent: return (.unchanged, path)
        case .foreign: throw Self.foreignFile(path)
        case .ours:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw CommandFailure("cannot remove \(Files.FileError(path: path, code: errno))")
            }
            return (.removed, path)
        }
    }

    static func foreignFile(_ path: String) -> CommandFailure {
        CommandFailure("\(path) was not written by menubus-cli (it lacks the line \"\(marker)\"); it is left as it is: move it away, or add GTK_MODULES=${GTK_MODULES:+$GTK_MODULES:}\(moduleName) to it yourself")
    }
}
