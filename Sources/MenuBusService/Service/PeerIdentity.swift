#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Who a connection is, as far as the trust model cares: a process of the
/// user on the host (trusted alike, as by the session bus itself), or an
/// app in a sandbox, whose app id comes from the sandbox and not from what
/// it claims. Told apart as xdg-desktop-portal does.
enum PeerIdentity: Equatable {
    /// Not sandboxed.
    case host
    /// A Flatpak or Snap app; `appId` is the only id it may register.
    case sandboxed(appId: String, sandbox: String)
    /// The process could not be examined (gone, or /proc unreadable): it
    /// gets what a sandboxed app gets of no app id, which is nothing of anyone's.
    case unidentified(reason: String)

    var isHost: Bool { self == .host }

    /// The app id a sandbox gives, if any.
    var sandboxAppId: String? {
        if case .sandboxed(let appId, _) = self { return appId }
        return nil
    }

    var description: String {
        switch self {
        case .host: "unsandboxed"
        case .sandboxed(let appId, let sandbox): "sandboxed by \(sandbox) as '\(appId)'"
        case .unidentified(let reason): "of unknown identity (\(reason))"
        }
    }

    /// Examines the process behind `credentials`: Snap by its AppArmor
    /// label, Flatpak by the `[Application] name` of `/.flatpak-info` in its
    /// root, read through `/proc/PID/root`. With a pidfd the pid comes from
    /// the pidfd, and the process must still be alive once its root is open,
    /// so a reused pid cannot answer for it.
    static func of(_ credentials: PeerCredentials, proc: String = "/proc") -> PeerIdentity {
        if let label = credentials.securityLabel, let snap = snapName(label: label) {
            return .sandboxed(appId: snap, sandbox: "snap")
        }
        var pid: Int32
        if let handle = credentials.process {
            guard let fromFD = pidOf(pidfd: handle.fd, proc: proc), fromFD > 0 else {
                return .unidentified(reason: "the process has exited")
            }
            pid = fromFD
        } else if let processId = credentials.processId, processId > 0, processId <= UInt32(Int32.max) {
            pid = Int32(processId)
        } else {
            return .unidentified(reason: "the bus gave no process id")
        }
        let root = open("\(proc)/\(pid)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            return .unidentified(reason: "cannot open \(proc)/\(pid)/root: \(String(cString: strerror(errno)))")
        }
        defer { close(root) }
        if let handle = credentials.process, hasExited(pidfd: handle.fd) {
            return .unidentified(reason: "the process exited while it was examined")
        }
        let info = openat(root, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
        guard info >= 0 else {
            if errno == ENOENT { return .host }
            return .unidentified(reason: "cannot read its /.flatpak-info: \(String(cString: strerror(errno)))")
        }
        defer { close(info) }
        guard let text = readAll(info, limit: 64 << 10) else {
            return .unidentified(reason: "its /.flatpak-info cannot be read")
        }
        guard let appId = flatpakAppId(keyFile: text) else {
            return .unidentified(reason: "its /.flatpak-info names no application")
        }
        return .sandboxed(appId: appId, sandbox: "flatpak")
    }

    /// `name=` of the `[Application]` group of a Flatpak key file.
    static func flatpakAppId(keyFile text: String) -> String? {
        var inApplication = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = trim(rawLine)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
                continue
            }
            guard inApplication, let equals = line.firstIndex(of: "=") else { continue }
            let key = trim(line[..<equals])
            guard key == "name" else { continue }
            let value = trim(line[line.index(after: equals)...])
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The snap instance of an AppArmor label `snap.NAME.APP (enforce)`.
    static func snapName(label: String) -> String? {
        let profile = label.split(separator: " ").first.map(String.init) ?? label
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    /// The `Pid:` of a pidfd's fdinfo; -1 once the process has exited.
    private static func pidOf(pidfd: Int32, proc: String) -> Int32? {
        let fd = open("\(proc)/self/fdinfo/\(pidfd)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let text = readAll(fd, limit: 4096) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Pid:") {
            return Int32(trim(line.dropFirst(4)))
        }
        return nil
    }

    /// A pidfd polls readable once its process has exited.
    private static func hasExited(pidfd: Int32) -> Bool {
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    private static func trim(_ text: some StringProtocol) -> String {
        var rest = Substring(text)
        while let first = rest.first, first == " " || first == "\t" || first == "\r" { rest.removeFirst() }
        while let last = rest.last, last == " " || last == "\t" || last == "\r" { rest.removeLast() }
        return String(rest)
    }

    private static func readAll(_ fd: Int32, limit: Int) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }
}
