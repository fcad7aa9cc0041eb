#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Memory figures of this process, read from /proc.
enum ProcessMemory {
    private static let pageSize = UInt64(max(1, sysconf(Int32(_SC_PAGESIZE))))

    /// Resident set size in bytes: the second field of `/proc/self/statm`
    /// times the page size; 0 if unreadable.
    static func residentBytes() -> UInt64 {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return 0 }
            var field = 0
            var pages: UInt64 = 0
            for byte in buffer[0..<count] {
                if byte == UInt8(ascii: " ") {
                    field += 1
                    if field > 1 { break }
                } else if field == 1, byte >= 0x30, byte <= 0x39 {
                    pages = pages * 10 + UInt64(byte - 0x30)
                }
            }
            return pages * pageSize
        }
    }
}
