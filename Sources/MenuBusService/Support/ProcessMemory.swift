#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Memory figures of this process, read from /proc, and what it asks of
/// glibc's allocator.
package enum ProcessMemory {
    /// Blocks from this size up are mapped on their own and unmapped when
    /// freed: glibc's own threshold would rise to the largest block freed
    /// (a 1 MiB undo step), and blocks below it come from arenas, where a
    /// disk thread's arena keeps its top resident after `malloc_trim`.
    static let mappedBlockBytes: Int32 = 128 << 10

    /// Sets the allocator up for a long-lived daemon whose peers come and
    /// go with large calls (once, before the server starts).
    package static func configureAllocator() {
        _ = glibcMallopt(mallocMmapThreshold, mappedBlockBytes)
    }

    /// Hands the free memory of every arena back to the system.
    static func trim() {
        _ = glibcMallocTrim(0)
    }

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

/// glibc's `mallopt(3)` and `malloc_trim(3)`, which the Glibc module does not import.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
/// `M_MMAP_THRESHOLD` of <malloc.h>.
private let mallocMmapThreshold: Int32 = -3
