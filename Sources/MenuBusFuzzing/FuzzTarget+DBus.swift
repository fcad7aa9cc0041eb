#if DEBUG
@testable import MenuBusDBus

/// `reader`: flags (bit 0 big-endian), signature length, signature, body.
/// What the loader accepts must read without a crash, and what reads must
/// marshal back to the same body: D-Bus encodes a value one way only, so a
/// value read from the wrong offset or in the wrong order shows.
package func fuzzMessageReader(_ data: UnsafeRawBufferPointer) {
    guard let (big, signature, body) = FuzzMessage.split(data),
          let message = FuzzMessage.message(signature: signature, body: body, big: big) else { return }
    let values: [DBusValue]
    do {
        values = try message.arguments()
    } catch {
        FuzzCheck.require(error is BusError, "the reader threw \(type(of: error)), not a BusError")
        return
    }
    // Read under a limit on values: the same values or LimitExceeded. (As
    // text: a NaN read twice is not == to itself.)
    if let limited = try? message.arguments(named: [], maxValues: 3).values {
        FuzzCheck.require("\(limited)" == "\(values)", "a limit on values changed what was read")
    }
    guard !big, let again = try? Message.methodCall(destination: nil, path: "/a", interface: "org.example.I", member: "M"),
          (try? again.append(values)) != nil else { return }
    FuzzCheck.require(again.body.map { Array($0.dropFirst()) } == body, "the values read do not marshal back to the body")
}

/// `cursor`: flags (bit 0 big-endian, bits 1–3 a limit on values), a count,
/// that many operations, then bytes the cursor reads as a body (the
/// message carries them as one `ay`, so the loader accepts any). Whatever a
/// program asks of any body is an error or a value, never a read outside it.
package func fuzzBodyCursor(_ data: UnsafeRawBufferPointer) {
    guard data.count >= 2, data.count >= 2 + Int(data[1]) else { return }
    let big = data[0] & 1 == 1
    let limits = [Int.max, 0, 1, 2, 5, 16, 64, 1_000]
    let maxValues = limits[Int(data[0] >> 1) & 7]
    let program = Array(data[2..<(2 + Int(data[1]))])
    let payload = Array(data[(2 + Int(data[1]))...])
    var length = UInt32(payload.count)
    length = big ? length.bigEndian : length.littleEndian
    let body = withUnsafeBytes(of: length) { Array($0) } + payload
    guard let message = FuzzMessage.message(signature: Array("ay".utf8), body: body, big: big) else { return }
    let signatures = ["s", "ai", "a{sv}", "(ii)", "v", "ay", "g", "o", "x", "a(ssa{sv})", "as", "(yv)", "b", "d", "aai"]
    _ = try? message.withBodyCursor(maxValues: maxValues) { cursor in
        var held: String?
        var ends: [Int] = []
        for op in program {
            let before = cursor.offset
            do {
                switch op % 10 {
                case 0: try cursor.alignToStruct()
                case 1: held = try cursor.string()
                case 2:
                    var same = true
                    let read = try cursor.string(reusing: held, same: &same)
                    FuzzCheck.require(!same || read == held, "a string taken as the held one is not equal to it")
                case 3: _ = try cursor.stringBytes()
                case 4: _ = try cursor.boolean()
                case 5: ends.append(try cursor.beginArray(elementAlignment: [1, 2, 4, 8][Int(op >> 4) & 3]))
                case 6: if let end = ends.last { if try !cursor.hasMore(before: end) { ends.removeLast() } }
                case 7:
                    let signature = Array(try cursor.variantSignature())
                    try signature.withUnsafeBytes { try cursor.skip($0) }
                case 8:
                    let signature = signatures[Int(op >> 4) % signatures.count]
                    try Array(signature.utf8).withUnsafeBytes { try cursor.skip($0) }
                default: try cursor.beginStruct()
                }
            } catch {
                FuzzCheck.require(error is BusError, "the cursor threw \(type(of: error)), not a BusError")
            }
            FuzzCheck.require(cursor.offset >= before && cursor.offset <= body.count, "the cursor moved outside the body")
            FuzzCheck.require(cursor.bytes(0..<cursor.offset).count == cursor.offset, "the bytes read are not the body's")
        }
    }
}
#endif
