#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import MenuBusModel

/// A failed system call on a journal file: which call, on what, and errno.
package struct UndoFileError: Error, Hashable, Sendable, CustomStringConvertible {
    package let call: String
    let path: String
    package let errno: Int32

    package var description: String { "\(call) \(path): \(UndoFiles.errorText(errno))" }

    /// The name was taken (EEXIST).
    var isAlreadyExists: Bool { errno == EEXIST }

    /// The file is on a read-only file system (EROFS).
    var isReadOnlyFileSystem: Bool { errno == EROFS }

    /// EIO, for failures that have no errno of their own.
    static func io(_ call: String, _ path: String) -> UndoFileError {
        UndoFileError(call: call, path: path, errno: EIO)
    }

    /// EEXIST: every name tried was taken.
    static func exists(_ call: String, _ path: String) -> UndoFileError {
        UndoFileError(call: call, path: path, errno: EEXIST)
    }

    /// The error an undo call answers with when its record could not be written.
    var undoError: UndoError {
        UndoError(kind: .storage(errno: errno), field: "documentId",
                  message: "the undo journal could not be written (\(call): \(UndoFiles.errorText(errno)))")
    }

    /// The same, naming the document.
    func undoError(for key: UndoDocumentKey) -> UndoError {
        UndoError(kind: .storage(errno: errno), field: "documentId",
                  message: "the undo journal of document '\(key.documentId)' could not be written (\(call): \(UndoFiles.errorText(errno)))")
    }
}

/// The system calls of the undo journal, and nothing else: the only place in
/// `MenuBusUndo` that calls Glibc. Files are created 0600 and directories 0700,
/// then set to exactly that, whatever the umask.
/// Calls made so far, per name, for `UndoFiles.faults(from:)`.
private final class FaultCounts: @unchecked Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func next(_ call: String) -> Int {
        counts.withLock { counts in
            counts[call, default: 0] += 1
            return counts[call] ?? 0
        }
    }
}

package enum UndoFiles {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text) + " (errno \(code))"
    }

    private static func failure(_ call: String, _ path: String) -> UndoFileError {
        UndoFileError(call: call, path: path, errno: Glibc.errno)
    }

    // MARK: Fault injection

    /// Tests make the journal's file calls fail: given the call ("write",
    /// "ftruncate", "fdatasync", "rename") and the path, an errno to fail
    /// with, or nil to make the call. A debug menubusd sets it from
    /// `MENUBUS_UNDO_FAULTS` (see `faults(from:)`); a release one never does.
    package nonisolated(unsafe) static var inject: ((String, String) -> Int32?)?

    private static func injected(_ call: String, _ path: String) -> UndoFileError? {
        guard let inject, let code = inject(call, path) else { return nil }
        return UndoFileError(call: call, path: path, errno: code)
    }

    /// Parses `call=errno[,call=errno…]`, each optionally `call=errno@N` to
    /// let the first N calls succeed: the seam end-to-end tests use.
    /// `call=+MS` makes the call wait MS milliseconds first, then succeed
    /// (a slow disk).
    package static func faults(from text: String) -> ((String, String) -> Int32?)? {
        var rules: [String: (errno: Int32, delay: UInt32, after: Int)] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].split(separator: "@", maxSplits: 1)
            let after = value.count == 2 ? Int(value[1]) ?? 0 : 0
            if value[0].hasPrefix("+") {
                guard let milliseconds = UInt32(value[0].dropFirst()) else { continue }
                rules[String(parts[0])] = (0, milliseconds, after)
                continue
            }
            guard let code = Int32(value[0]) else { continue }
            rules[String(parts[0])] = (code, 0, after)
        }
        guard !rules.isEmpty else { return nil }
        // Counted under a lock: syncs run on another thread than writes.
        let calls = FaultCounts()
        return { call, _ in
            guard let rule = rules[call], calls.next(call) > rule.after else { return nil }
            guard rule.delay == 0 else {
                usleep(rule.delay * 1_000)
                return nil
            }
            return rule.errno
        }
    }

    /// Creates `path` and any missing parents (each 0700); sets `path`
    /// itself to 0700 whether or not it existed.
    static func makeDirectory(_ path: String) throws(UndoFileError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        if let fault = injected("mkdir", path) { throw fault }
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            if mkdir(prefix, directoryMode) != 0, Glibc.errno != EEXIST {
                throw failure("mkdir", prefix)
            }
            prefix += "/"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw UndoFileError(call: "mkdir", path: path, errno: ENOTDIR) }
        if info.st_mode & 0o7777 != directoryMode, chmod(path, directoryMode) != 0 {
            throw failure("chmod", path)
        }
    }

    /// The names in a directory, without `.` and `..`.
    package static func list(_ directory: String) throws(UndoFileError) -> [String] {
        guard let dir = opendir(directory) else { throw failure("opendir", directory) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// A directory entry with the size and modification time lstat gives.
    package struct Entry: Hashable, Sendable {
        package var name: String
        package var size: Int
        var modified: Int64
    }

    /// The names in a directory with their sizes and modification times
    /// (seconds), without reading any file: what a lazy start lists.
    static func listEntries(_ directory: String) throws(UndoFileError) -> [Entry] {
        guard let dir = opendir(directory) else { throw failure("opendir", directory) }
        defer { closedir(dir) }
        let dirFd = dirfd(dir)
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            if fstatat(dirFd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                entries.append(Entry(name: name, size: Int(info.st_size), modified: Int64(info.st_mtim.tv_sec)))
            } else {
                entries.append(Entry(name: name, size: 0, modified: 0))
            }
        }
        return entries
    }

    /// The whole content of a file.
    package static func read(_ path: String) throws(UndoFileError) -> [UInt8] {
        if let error = injected("read", path) { throw error }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("fstat", path) }
        // The journal is only written by this process, so its size is known.
        var bytes = [UInt8](repeating: 0, count: max(0, Int(info.st_size)))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw failure("read", path)
            }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// `count` bytes of a file from `offset` (pread): a journal's tail.
    package static func read(_ path: String, from offset: Int, count: Int) throws(UndoFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress.map { $0 + filled }, count - filled, off_t(offset + filled))
            }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw failure("read", path)
            }
            if n == 0 { throw .io("read", path) }
            filled += n
        }
        return bytes
    }

    /// Opens a file for appending; with `create`, makes a new one (0600)
    /// and fails with EEXIST when the name is taken.
    static func openForAppending(_ path: String, create: Bool) throws(UndoFileError) -> Int32 {
        let flags = O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0)
        let fd = open(path, flags, fileMode)
        guard fd >= 0 else { throw failure("open", path) }
        if create, fchmod(fd, fileMode) != 0 {
            let error = failure("fchmod", path)
            close(fd)
            throw error
        }
        return fd
    }

    /// Creates or empties a file (0600) for a snapshot.
    static func openForRewriting(_ path: String) throws(UndoFileError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw failure("open", path) }
        if fchmod(fd, fileMode) != 0 {
            let error = failure("fchmod", path)
            close(fd)
            throw error
        }
        return fd
    }

    /// Writes every byte (retrying short writes and EINTR) or throws.
    package static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(UndoFileError) {
        if let fault = injected("write", path) { throw fault }
        var offset = 0
        while offset < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let count = Glibc.write(fd, base + offset, bytes.count - offset)
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw failure("write", path)
            }
            if count == 0 { throw .io("write", path) }
            offset += count
        }
    }

    package static func write(_ fd: Int32, _ bytes: [UInt8], path: String) throws(UndoFileError) {
        // withUnsafeBytes rethrows untyped errors: carry the typed one out.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(UndoFileError) in try write(fd, buffer, path: path) }
        }
        try result.get()
    }

    /// Flushes a file's data (and the metadata needed to read it) to the disk.
    static func syncData(_ fd: Int32, path: String) throws(UndoFileError) {
        if let fault = injected("fdatasync", path) { throw fault }
        while fdatasync(fd) != 0 {
            if Glibc.errno != EINTR { throw failure("fdatasync", path) }
        }
    }

    /// Opens a file just to flush it: data written through a closed
    /// descriptor is still in the page cache and flushed the same way.
    static func syncData(path: String) throws(UndoFileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        try syncData(fd, path: path)
    }

    /// Flushes a directory, making created, renamed and removed names durable.
    static func syncDirectory(_ path: String) throws(UndoFileError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        while fsync(fd) != 0 {
            if Glibc.errno != EINTR { throw failure("fsync", path) }
        }
    }

    static func truncate(_ fd: Int32, to length: Int, path: String) throws(UndoFileError) {
        if let fault = injected("ftruncate", path) { throw fault }
        guard ftruncate(fd, off_t(length)) == 0 else { throw failure("ftruncate", path) }
    }

    /// Cuts a file at `length` and flushes it.
    static func truncate(path: String, to length: Int) throws(UndoFileError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        try truncate(fd, to: length, path: path)
        try syncData(fd, path: path)
    }

    /// Renames atomically, replacing `to`.
    package static func rename(_ from: String, to: String) throws(UndoFileError) {
        if let fault = injected("rename", from) { throw fault }
        guard Glibc.rename(from, to) == 0 else { throw failure("rename", from) }
    }

    /// Gives `path` a second name `to` (replacing it), so the content stays
    /// reachable whatever later happens to `path`.
    package static func link(_ path: String, to: String) throws(UndoFileError) {
        try remove(to)
        guard Glibc.link(path, to) == 0 else { throw failure("link", path) }
    }

    /// Removes a file; a missing file is not an error.
    package static func remove(_ path: String) throws(UndoFileError) {
        if let fault = injected("unlink", path) { throw fault }
        guard unlink(path) == 0 || Glibc.errno == ENOENT else { throw failure("unlink", path) }
    }

    /// A file's or directory's device and inode, and its modification
    /// time in nanoseconds; nil when it cannot be stat'ed (missing).
    static func identity(_ path: String) -> (device: UInt64, inode: UInt64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino),
                Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Moves a file to `to` (replacing it): a rename, or across file systems
    /// a copy (0600, synced, its modification time kept) and an unlink of
    /// the original.
    static func move(_ from: String, to: String) throws(UndoFileError) {
        if let fault = injected("rename", from) { throw fault }
        if Glibc.rename(from, to) == 0 { return }
        guard Glibc.errno == EXDEV else { throw failure("rename", from) }
        try copy(from, to: to)
        try remove(from)
    }

    /// Copies a file's bytes to `to` through a temporary name and a rename,
    /// synced, with the original's modification time.
    static func copy(_ from: String, to: String) throws(UndoFileError) {
        let bytes = try read(from)
        let temporary = to + ".tmp"
        let fd = try openForRewriting(temporary)
        defer { close(fd) }
        try write(fd, bytes, path: temporary)
        if let modified = identity(from)?.modified {
            // The access time left as it is (UTIME_OMIT, a macro Swift does not import).
            let omit = (1 << 30) - 2
            var times = [timespec(tv_sec: 0, tv_nsec: omit),
                         timespec(tv_sec: Int(modified / 1_000_000_000), tv_nsec: Int(modified % 1_000_000_000))]
            _ = futimens(fd, &times)
        }
        try syncData(fd, path: temporary)
        try rename(temporary, to: to)
    }

    /// What taking a lock file gave.
    package enum Lock: Equatable {
        /// This descriptor holds the lock until it is closed.
        case held(Int32)
        /// Another process holds it.
        case busy
        /// The file is not there (and was not to be made) or cannot be opened.
        case unavailable
    }

    /// Takes an exclusive `flock` on `path` without waiting, making the file
    /// (0600) when `create`; an existing one is opened for reading, so the
    /// lock of a folder on a read-only file system can be tried too.
    package static func lock(_ path: String, create: Bool) -> Lock {
        let fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, fileMode)
        guard fd >= 0 else { return .unavailable }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = Glibc.errno == EWOULDBLOCK
            Glibc.close(fd)
            return busy ? .busy : .unavailable
        }
        return .held(fd)
    }

    /// Removes an empty directory; false when it is not empty or cannot go.
    static func removeDirectory(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    package static func duplicate(_ fd: Int32) -> Int32 {
        fcntl(fd, F_DUPFD_CLOEXEC, 0)
    }

    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    // MARK: Waking the loop (ThreadedUndoDiskExecutor)

    /// A pipe, both ends non-blocking and close-on-exec; nil when none can be made.
    static func makeWakePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }

    /// Reads whatever the pipe holds, without blocking.
    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Nice 10 for the calling thread (on Linux the nice value is per
    /// thread, and `who` 0 is the calling one).
    static func lowerThreadPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }

    /// Permission bits of a file or directory (tests and diagnostics).
    package static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
