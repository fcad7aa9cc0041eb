#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport

/// A systemd environment.d(5) snippet of menubus-cli's,
/// `$XDG_CONFIG_HOME/environment.d/NAME` (`~/.config` when XDG_CONFIG_HOME
/// is unset or relative), which the systemd user manager reads when a
/// session starts. Only a file carrying `marker` is ever changed or
/// removed: a file of that name without it is someone else's.
///
/// No bus, no daemon: the environment and the file system only.
struct EnvironmentSnippet {
    /// The first line of a snippet menubus-cli wrote.
    static let marker = "# Written by 'menubus-cli integrate --enable':"
    /// Larger files are not a snippet of ours.
    static let maxBytes = 64 << 10

    /// The file's name in environment.d.
    let fileName: String
    /// What `enable` writes; its first line starts with `marker`.
    let text: String
    /// The line a user would add to a file of another's to do it by hand.
    let byHand: String
    let environment: [String: String]

    func path() throws -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/environment.d/" + fileName
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw CommandFailure("neither XDG_CONFIG_HOME nor HOME names a folder; cannot tell where environment.d is")
        }
        return home + "/.config/environment.d/" + fileName
    }

    /// What is at the snippet's path.
    enum State: Equatable {
        case absent
        /// Ours; `current` when it is what `enable` writes now.
        case ours(current: Bool)
        /// A file menubus-cli did not write.
        case foreign

        var name: String {
            switch self {
            case .ours: "enabled"
            case .absent: "absent"
            case .foreign: "foreign"
            }
        }
    }

    func state(at path: String) throws -> State {
        let bytes: [UInt8]?
        do {
            bytes = try Files.contents(path, maxBytes: Self.maxBytes)
        } catch {
            // Too large, not a regular file, unreadable: not ours to touch.
            if Files.regularFileSize(path) != nil || error.problem.hasPrefix("larger") { return .foreign }
            throw CommandFailure("cannot read \(error)")
        }
        guard let bytes else { return .absent }
        let found = String(decoding: bytes, as: UTF8.self)
        guard found.split(separator: "\n").contains(where: { $0.hasPrefix(Self.marker) }) else { return .foreign }
        return .ours(current: found == text)
    }

    enum Change: Equatable {
        case wrote, updated, unchanged, removed
    }

    /// Writes the snippet unless it is there already as it would be written; refuses a file of another's.
    func enable() throws -> (Change, path: String) {
        let path = try path()
        let change: Change
        switch try state(at: path) {
        case .ours(current: true): return (.unchanged, path)
        case .ours(current: false): change = .updated
        case .absent: change = .wrote
        case .foreign: throw foreignFile(path)
        }
        do {
            try Files.makeDirectories(Files.parent(of: path))
            try Files.writeAtomically(Array(text.utf8), to: path)
        } catch {
            throw CommandFailure("cannot write \(error)")
        }
        return (change, path)
    }

    /// Removes the snippet if it is ours; nothing to do when there is none.
    func disable() throws -> (Change, path: String) {
        let path = try path()
        switch try state(at: path) {
        case .absent: return (.unchanged, path)
        case .foreign: throw foreignFile(path)
        case .ours:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw CommandFailure("cannot remove \(Files.FileError(path: path, code: errno))")
            }
            return (.removed, path)
        }
    }

    func foreignFile(_ path: String) -> CommandFailure {
        CommandFailure("\(path) was not written by menubus-cli (it lacks the line \"\(Self.marker)\"); it is left as it is: move it away, or add \(byHand) to it yourself")
    }
}

/// The multiarch triplet Debian's libraries live under (`x86_64-linux-gnu`).
enum Multiarch {
    static var triplet: String {
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
}
