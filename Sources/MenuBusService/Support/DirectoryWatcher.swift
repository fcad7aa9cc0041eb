#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Watches folders with inotify and says when something in them may have
/// changed. A folder that does not exist yet is watched through its nearest
/// existing ancestor, so creating it (and files in it) is seen too.
final class DirectoryWatcher {
    let fd: Int32
    private let directories: [String]

    // inotify(7) event bits; the Glibc module does not import them all.
    private static let fileEvents: UInt32 = 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
    private static let nonBlocking: Int32 = 0o4000, closeOnExec: Int32 = 0o2000000

    /// nil when inotify is unavailable (the caller then reads only at start).
    init?(directories: [String]) {
        let fd = inotify_init1(DirectoryWatcher.nonBlocking | DirectoryWatcher.closeOnExec)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.directories = directories
        arm()
    }

    deinit { close(fd) }

    /// Adds watches for every folder, or the nearest ancestor that exists.
    /// Safe to call again: inotify keeps one watch per inode.
    func arm() {
        for directory in directories {
            var path = directory
            while !path.isEmpty {
                if inotify_add_watch(fd, path, DirectoryWatcher.fileEvents) >= 0 { break }
                guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { break }
                path = String(path[..<slash])
            }
        }
    }

    /// Reads every queued event; true when there was any.
    func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var any = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return any }
            any = true
        }
    }
}
