#if canImport(Glibc)
import Glibc
#endif
import MenuBusDBus

/// The bytes each element of an `a(ssa{sv})` was read from
/// (`MenuElement.list(readingFrom:reusing:spans:)`), with the values and
/// bytes reading it counted.
///
/// Every element starts on an 8-byte boundary, and everything inside it is
/// aligned from there, so an element's bytes read the same wherever they
/// lie in a body of the same byte order. An element of the next list whose
/// bytes are these is the element read from them, taken without reading
/// it again: a live change resends the whole menu to change one label.
package struct ElementSpans {
    /// The most bytes kept: past it a list keeps none (a menu that large is
    /// not read again in place).
    package static let maxBytes = 64 << 10

    /// One element's place in `bytes` and what reading it counted.
    private struct Span {
        var end: Int
        var values: Int
        var counted: Int
    }

    let isLittleEndian: Bool
    private var bytes: [UInt8] = []
    private var spans: [Span] = []

    /// Empty, with room for `bytes` bytes of `elements` elements (what the
    /// list read before took: a live change mostly resends the same).
    init(isLittleEndian: Bool, bytes: Int = 0, elements: Int = 0) {
        self.isLittleEndian = isLittleEndian
        self.bytes.reserveCapacity(min(bytes, ElementSpans.maxBytes))
        spans.reserveCapacity(elements)
    }

    /// The elements whose bytes are kept.
    package var count: Int { spans.count }

    /// The bytes kept (the next list's reads reserve as much).
    package var byteCount: Int { bytes.count }

    /// Keeps `element`'s bytes and counts; false, keeping nothing more, once
    /// they would pass `maxBytes`.
    mutating func append(_ element: UnsafeRawBufferPointer, values: Int, counted: Int) -> Bool {
        guard bytes.count + element.count <= ElementSpans.maxBytes else { return false }
        bytes.append(contentsOf: element)
        spans.append(Span(end: bytes.count, values: values, counted: counted))
        return true
    }

    /// How many bytes element `index` took and what reading them counted,
    /// when the bytes at the start of `body` are the same.
    func match(_ index: Int, in body: UnsafeRawBufferPointer) -> (bytes: Int, values: Int, counted: Int)? {
        guard index < spans.count else { return nil }
        let start = index == 0 ? 0 : spans[index - 1].end
        let span = spans[index]
        let length = span.end - start
        guard length <= body.count else { return nil }
        let same = bytes.withUnsafeBytes { kept in
            memcmp(kept.baseAddress! + start, body.baseAddress!, length) == 0
        }
        return same ? (length, span.values, span.counted) : nil
    }
}
