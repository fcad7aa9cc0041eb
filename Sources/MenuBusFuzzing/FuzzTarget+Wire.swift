#if DEBUG
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusProtocol
@testable import MenuBusService

/// `elements`: flags (bit 0 big-endian), then an `a(ssa{sv})` body, as
/// `UpdateItems` carries it. Read as values (`Wire.decodeElements`) and
/// straight from the body (`Wire.readElements`, then `checkElements`): the
/// fast read gives up only on a list the values' path refuses, and
/// otherwise both give the same elements or the same fault. Reading again
/// while reusing what was read gives the same elements.
package func fuzzElements(_ data: UnsafeRawBufferPointer) {
    guard let message = FuzzMessage.message(fixedSignature: "a(ssa{sv})", data),
          let items = try? message.arguments().first else { return }
    let slow = Result { () throws(BusError) in try Wire.decodeElements(items) }
    _ = try? Wire.decodeComposedMenu(items)
    _ = try? Wire.decodeElementsForLint(items)
    guard let read = try? message.withBodyCursor(maxValues: .max, { cursor in
        let start = cursor.bytesRead
        return (Wire.readElements(&cursor), cursor.bytesRead - start)
    }) else { return }
    guard let elements = read.0 else {
        if case .success = slow { FuzzCheck.require(false, "the body read gave up on a list the values' path accepts") }
        return
    }
    FuzzCheck.require(read.1 == (try? items.validate(checking: false)), "the body read counted other bytes than the values")
    for held in [elements, Array(elements.reversed())] {
        let again = try? message.withBodyCursor(maxValues: .max) { Wire.readElements(&$0, reusing: held) }
        FuzzCheck.require(again == elements, "reading again reusing \(held.count) held elements read other elements")
    }
    let fast = Result { () throws(BusError) in try Wire.checkElements(elements) }
    switch (fast, slow) {
    case (.success(let a), .success(let b)): FuzzCheck.require(a == b, "the two reads give other elements")
    case (.failure(let a), .failure(let b)):
        FuzzCheck.require(a.name == b.name && a.message == b.message, "the two reads name other faults: \(a) / \(b)")
    default: FuzzCheck.require(false, "one read accepts what the other refuses: \(fast) / \(slow)")
    }
    // What decodes encodes and decodes again to itself.
    if case .success(let decoded) = slow {
        FuzzCheck.require((try? Wire.decodeElements(Wire.encode(decoded))) == decoded, "elements do not round-trip")
    }
}

/// `context`: flags, then an `a{sv}` body decoded as a context.
package func fuzzContext(_ data: UnsafeRawBufferPointer) {
    guard let message = FuzzMessage.message(fixedSignature: "a{sv}", data),
          let value = try? message.arguments().first,
          let context = try? Wire.decodeContext(value) else { return }
    FuzzCheck.require((try? Wire.decodeContext(Wire.encode(context))) == context, "a context does not round-trip")
}

/// `selection`: flags, then an `a{sv}` body decoded as a selection.
package func fuzzSelection(_ data: UnsafeRawBufferPointer) {
    guard let message = FuzzMessage.message(fixedSignature: "a{sv}", data),
          let value = try? message.arguments().first,
          let selection = try? Wire.decodeSelection(value) else { return }
    FuzzCheck.require((try? Wire.decodeSelection(Wire.encode(selection))) == selection, "a selection does not round-trip")
}

/// `options`: flags, then an `a{sv}` body decoded as `PresentMenu`'s options.
package func fuzzOptions(_ data: UnsafeRawBufferPointer) {
    guard let message = FuzzMessage.message(fixedSignature: "a{sv}", data),
          let value = try? message.arguments().first else { return }
    _ = try? PresentationOptions(wire: value)
}
#endif
