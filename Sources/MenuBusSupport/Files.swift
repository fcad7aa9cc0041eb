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

    /// The size of a regular file (symbolic links followed); nil for
    /// anything else or a file that is not there.
    package static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// A file's bytes, at most `maxBytes` (nil when it cannot be read or is longer).
    package static func contents(_ path: String, maxBytes: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maxBytes { return nil }
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

    /// Writes `bytes` to a temporary file beside `path`, syncs it and
    /// renames it over `path`, so readers see the old file or the new one.
    package static func writeAtomically(_ bytes: [UInt8], to path: String) throws(FileError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(path: temporary, code: errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlink(temporary)
                throw FileError(path: temporary, code: code)
            }
            written += count
        }
        let synced = fsync(fd) == 0 ? 0 : errno
        close(fd)
        if synced != 0 || rename(temporary, path) != 0 {
            let code = synced != 0 ? synced : errno
            unlink(temporary)
            throw FileError(path: path, code: code)
        }
    }

    /// A failed file call: the path and `strerror` of its errno.
    package struct FileError: Error, CustomStringConvertible, Sendable {
        package let path: String
        package let code: Int32

        package var description: String { "\(path): \(String(cString: strerror(code)))" }
    }
}
