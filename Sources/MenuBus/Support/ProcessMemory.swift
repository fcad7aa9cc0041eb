#if canImport(Glibc)
import Glibc
#endif

/// Memory figures of this process, read from /proc.
enum ProcessMemory {
    /// Resident set size in bytes, from `/proc/self/statm`; 0 if unreadable.
    static func residentBytes() -> UInt64 {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return 0 }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
