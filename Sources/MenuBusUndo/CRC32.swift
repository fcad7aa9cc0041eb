#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of
/// zlib, gzip and PNG: `CRC32.checksum("123456789".utf8) == 0xCBF43926`.
///
/// zlib's `crc32` when libz.so.1 can be loaded (about 3.7 GB/s here, four
/// times the tables'), else slicing-by-8 tables, built once: the journal
/// checksums every record it writes (on the loop) and every record it
/// loads, so this sits on the write and reload paths.
struct CRC32: Hashable, Sendable {
    /// The running value, already finalized (the xor-out applied).
    private(set) var value: UInt32 = 0

    init() {}

    /// The checksum of `bytes`.
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Feeds more bytes; `value` is then the checksum of everything fed.
    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// Feeds the bytes of a buffer.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let zlib = CRC32.zlib, let base = buffer.baseAddress else {
            updateWithTables(buffer)
            return
        }
        var offset = 0
        while offset < buffer.count {
            let count = min(buffer.count - offset, 1 << 30)
            value = UInt32(truncatingIfNeeded: zlib(UInt(value), base.assumingMemoryBound(to: UInt8.self) + offset, UInt32(count)))
            offset += count
        }
    }

    /// zlib's `uLong crc32(uLong crc, const Bytef *buf, uInt len)`, which
    /// takes and gives the finalized value as `value` holds it.
    typealias ZlibFunction = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt
    static let zlib: ZlibFunction? = {
        guard let handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "crc32") else { return nil }
        return unsafeBitCast(symbol, to: ZlibFunction.self)
    }()

    /// The same with the tables (where zlib is missing; tests compare the two).
    mutating func updateWithTables(_ buffer: UnsafeRawBufferPointer) {
        let table = CRC32.table
        var crc = ~value
        var index = 0
        let count = buffer.count
        table.withUnsafeBufferPointer { t in
            while count - index >= 8 {
                let low = crc ^ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
                    | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24)
                let high = UInt32(buffer[index + 4]) | UInt32(buffer[index + 5]) << 8
                    | UInt32(buffer[index + 6]) << 16 | UInt32(buffer[index + 7]) << 24
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        value = ~crc
    }

    /// Eight tables of 256 entries: table 0 is the classic byte-wise table,
    /// table k advances a byte k more positions.
    private static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
            table[byte] = crc
        }
        for byte in 0..<256 {
            var crc = table[byte]
            for slice in 1..<8 {
                crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
                table[slice * 256 + byte] = crc
            }
        }
        return table
    }()
}
