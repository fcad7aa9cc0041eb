#if canImport(Glibc)
import Glibc
#endif

/// A call's body read in place, value by value, by a handler that knows the
/// types it holds (its signature matched the declaration before dispatch):
/// for a call worth decoding without building `DBusValue`s first
/// (`Interface.methodReadingBody`). Every read is bounded by the body and
/// counts as `MessageReader` counts (values against the call's limit,
/// bytes as `DBusValue.validate` counts them), so what a handler reads here
/// costs the call's budgets what reading it as values would.
package struct BodyCursor {
    private var reader: MessageReader

    package init(_ reader: MessageReader) {
        self.reader = reader
    }

    /// Bytes read so far, as `DBusValue.validate` counts them.
    package var bytesRead: Int { reader.counted }

    /// Values the call may still read (its limit on values, less those read).
    package var valuesLeft: Int { reader.valuesLeft }

    /// Where the cursor is, from the body's start.
    package var offset: Int { reader.offset }

    /// Whether the body is little-endian: bytes read from a body of the
    /// other order mean other values.
    package var isLittleEndian: Bool { reader.isLittleEndian }

    /// The body's bytes in `range` (within the body), valid while the body is read.
    package func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: reader.body[range.clamped(to: 0..<reader.body.count)])
    }

    /// Moves to the next 8-byte boundary, where a struct starts, reading nothing.
    package mutating func alignToStruct() throws {
        try reader.align(8)
    }

    /// Moves past `count` bytes the caller read before and knows to be the
    /// same, counting the `values` values and `bytes` bytes reading them
    /// counted; past the call's limit on values it throws as reading would.
    package mutating func skip(bytes count: Int, values: Int, counting bytes: Int) throws {
        guard values >= 0, reader.valuesLeft >= values else { throw MessageReader.tooManyValues }
        try reader.advance(by: count, counting: bytes)
        reader.valuesLeft -= values
    }

    /// A value read counts against the call's limit on values.
    private mutating func take() throws {
        guard reader.valuesLeft > 0 else { throw MessageReader.tooManyValues }
        reader.valuesLeft -= 1
    }

    /// An `s`.
    package mutating func string() throws -> String {
        try take()
        return try reader.string(lengthBytes: 4)
    }

    /// An `s`, or `existing` when the bytes are its own: then no String is
    /// made, and the result shares `existing`'s storage. `same` turns false
    /// when a new String is made: Swift's `==` holds canonically equivalent
    /// strings ("é" and "e" + U+0301) equal, so only this tells that the
    /// bytes were the same. (Equal bytes are an equal string, as a String's
    /// UTF-8 is always valid.)
    package mutating func string(reusing existing: String?, same: inout Bool) throws -> String {
        let bytes = try stringBytes()
        if let existing, existing.utf8.count == bytes.count,
           bytes.isEmpty || existing.utf8.withContiguousStorageIfAvailable({ held in
               memcmp(held.baseAddress!, bytes.baseAddress!, bytes.count) == 0
           }) == true {
            return existing
        }
        same = false
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An `s`'s bytes where they lie in the body, valid while the body is
    /// read (no String is made of a dictionary key only compared).
    package mutating func stringBytes() throws -> UnsafeRawBufferPointer {
        try take()
        return try reader.stringBytes(lengthBytes: 4)
    }

    /// A `b`.
    package mutating func boolean() throws -> Bool {
        try take()
        return try reader.booleanValue()
    }

    /// The start of an array whose elements align to `alignment`: where it
    /// ends, for `hasMore(before:)`.
    package mutating func beginArray(elementAlignment alignment: Int) throws -> Int {
        try take()
        return try reader.beginArray(elementAlignment: alignment)
    }

    /// Whether the array ending at `end` has another element; throws when
    /// the elements read overran it.
    package func hasMore(before end: Int) throws -> Bool {
        guard reader.offset <= end else { throw MessageReader.malformed }
        return reader.offset < end
    }

    /// The start of a struct or dict entry.
    package mutating func beginStruct() throws {
        try take()
        try reader.align(8)
    }

    /// A variant's contained signature, where it lies in the body; its
    /// value comes next.
    package mutating func variantSignature() throws -> UnsafeRawBufferPointer {
        try take()
        return try reader.variantSignature()
    }

    /// Reads past one value of the complete type `signature` (a variant's
    /// contained signature), counting it.
    package mutating func skip(_ signature: UnsafeRawBufferPointer) throws {
        var position = 0
        _ = try reader.value(signature, &position)
        guard position == signature.count else { throw MessageReader.malformed }
    }
}
