#if canImport(Glibc)
import Glibc
#endif

/// The few file and environment calls the daemon's rooms make outside the
/// undo journal, straight on libc: menubusd links no Foundation (with ICU
/// it doubled the daemon's resident memory at start).
package enum Files {
    /// The process's environment, `NAME=value` pairs of `environ`.
    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                let name = String(pair[..<equals])
                if result[name] == nil { result[name] = String(pair[pair.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// Writes all of `text` to `fd` (a short write goes on; an error ends it).
    package static func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
    }

    /// The names in a folder (without `.` and `..`), or nil when it cannot be read.
    package static func names(in directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a file; false when it cannot (a missing file included).
    package static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Whether `path` is a directory (following symbolic links).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The size of a regular file, symbolic links followed (key files
    /// linked into a folder count, as `.desktop` files do); nil for
    /// anything else or a file that is not there.
    package static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// A regular file's bytes (symbolic links followed), at most
    /// `maxBytes`; nil when there is no such file. Anything else that is
    /// not a readable regular file of at most `maxBytes` throws: a folder,
    /// a FIFO (opened without blocking, so it cannot stall the caller), a
    /// file it may not read, one that is longer.
    package static func contents(_ path: String, maxBytes: Int) throws(FileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileError(path: path, code: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path: path, code: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileError(path: path, problem: "not a regular file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, code: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maxBytes { throw FileError(path: path, problem: "larger than \(maxBytes) bytes") }
        }
    }

    /// The folder part of a path ("/a/b/c" → "/a/b", "c" → ".").
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Makes a folder and the folders above it (mode 0700 for new ones).
    package static func makeDirectories(_ path: String) throws(FileError) {
        if path.isEmpty || path == "/" || path == "." { return }
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FileError(path: path, code: ENOTDIR) }
            return
        }
        try makeDirectories(parent(of: path))
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw FileError(path: path, code: errno) }
    }

    /// Writes `bytes` to a new temporary file beside `path` (a hidden,
    /// unique name), syncs it, gives it the mode the old file had (else
    /// 0666 less the umask), renames it over `path` and syncs the folder:
    /// readers see the old file or the new one, never a part.
    package static func writeAtomically(_ bytes: [UInt8], to path: String) throws(FileError) {
        let folder = parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array((folder + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileError(path: folder, code: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        func fail(_ code: Int32) -> FileError {
            close(fd)
            unlink(temporary)
            return FileError(path: path, code: code)
        }
        var old = stat()
        let mask = umask(0o022)
        umask(mask)
        let mode = stat(path, &old) == 0 ? old.st_mode & 0o7777 : 0o666 & ~mask
        guard fchmod(fd, mode) == 0 else { throw fail(errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw fail(errno)
            }
            written += count
        }
        guard fsync(fd) == 0 else { throw fail(errno) }
        guard rename(temporary, path) == 0 else { throw fail(errno) }
        close(fd)
        let folderFd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFd >= 0 {
            _ = fsync(folderFd)
            close(folderFd)
        }
    }

    /// A failed file call: the path and `strerror` of its errno, or a problem found.
    package struct FileError: Error, CustomStringConvertible, Sendable {
        package let path: String
        package let problem: String

        package init(path: String, code: Int32) {
            self.path = path
            problem = String(cString: strerror(code))
        }

        package init(path: String, problem: String) {
            self.path = path
            self.problem = problem
        }

        package var description: String { "\(path): \(problem)" }
    }
}
