import MenuBusCodec

/// Messages other D-Bus implementations marshalled, byte for byte.
package enum WireSamples {
    /// A call GLib marshalled big-endian (`Gio.DBusMessage.set_byte_order`),
    /// body `(ynqiuxtdsogbvasa{sv}a(ii)a(xs)ayav)`: every basic type, a
    /// variant, arrays of strings, dict entries and structs, an empty array
    /// of 8-aligned structs, bytes, and an array of variants.
    private static let bigEndianCallHex = """
        42010001000000bf000000010000007a01016f00000000022f61000000000000020173000000000d6f72672e6578616d706c652e\
        4900000006017300000000106f72672e6578616d706c652e5065657200000000000000000801670022796e716975787464736f67\
        62766173617b73767d61286969296128787329617961760003017300000000014d000000000000000700fffe00030000fffeee90\
        ee6b2800fffffffed5fa0e000000082f79cd900040040000000000000000000668c3a96c6c6f0000000000042f612f620005617b\
        73767d000000000104286973290000000000000100000001760000000000000f000000017800000000000002797a000000000010\
        00000000000000016b0001750000000000000009000000100000000000000001000000020000000300000004000000000000000000\
        000002010200000000000b0173000000000002696e00
        """

    private static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map { index in
            UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) ?? 0
        }
    }

    /// The bytes of `bigEndianCallHex`.
    package static let bigEndianCall = bytes(hex: bigEndianCallHex)

    /// What `bigEndianCall`'s body holds, value by value.
    package static let bigEndianCallValues: [DBusValue] = [
        .byte(7), .int16(-2), .uint16(3), .int32(-70000), .uint32(4_000_000_000), .int64(-5_000_000_000),
        .uint64(9_000_000_000_000), .double(2.5), .string("héllo"), .objectPath("/a/b"), .signature("a{sv}"),
        .boolean(true), .variant(.structure([.int32(1), .string("v")])),
        .array("s", [.string("x"), .string("yz")]),
        .array("{sv}", [.dictEntry(.string("k"), .variant(.uint32(9)))]),
        .array("(ii)", [.structure([.int32(1), .int32(2)]), .structure([.int32(3), .int32(4)])]),
        .array("(xs)", []), .bytes([1, 2]), .array("v", [.variant(.string("in"))]),
    ]
}
