import MenuBusModel
import MenuBusProtocol

/// The bytes an `UpdateItems` read each element of a context's items from
/// (`ElementSpans`), so the next `UpdateItems` of that context takes the
/// elements whose bytes did not change without reading them again.
///
/// An entry holds the items it was read into, and serves only while the
/// context holds that very array (`spans(owner:contextId:items:)`): the
/// entry's reference keeps the array from being changed in place, so a
/// context whose items changed any other way has another array.
///
/// Budget: at most `maxEntries` contexts, each at most
/// `ElementSpans.maxBytes` of bytes (least recently used go first). An
/// owner's entries go when it leaves or removes the context, and an entry
/// when its context's items change any other way (at the context's next
/// `UpdateItems` or `PublishContext`), so the old items are not kept.
final class HeldItemSpans {
    static let maxEntries = 8

    private struct Key: Hashable {
        let owner: String
        let contextId: String
    }

    private struct Entry {
        let items: [MenuElement]
        let spans: ElementSpans
        var lastUse: UInt64
    }

    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0

    var count: Int { entries.count }

    /// The spans `items` were read from, when the context still holds the
    /// array they were read into.
    func spans(owner: String, contextId: String, items: [MenuElement]) -> ElementSpans? {
        let key = Key(owner: owner, contextId: contextId)
        guard var entry = entries[key] else { return nil }
        guard entry.items.count == items.count, entry.items.withUnsafeBufferPointer({ held in
            items.withUnsafeBufferPointer { $0.baseAddress == held.baseAddress }
        }) else {
            // The context's items changed some other way: the entry serves
            // no more, and would only keep the old array alive.
            entries[key] = nil
            return nil
        }
        clock &+= 1
        entry.lastUse = clock
        entries[key] = entry
        return entry.spans
    }

    /// Keeps the spans `items` were just read from as the context's (none
    /// when `spans` is nil: the items were too large to keep).
    func keep(_ spans: ElementSpans?, of items: [MenuElement], owner: String, contextId: String) {
        let key = Key(owner: owner, contextId: contextId)
        guard let spans else {
            entries[key] = nil
            return
        }
        clock &+= 1
        if entries[key] == nil, entries.count >= HeldItemSpans.maxEntries,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        entries[key] = Entry(items: items, spans: spans, lastUse: clock)
    }

    /// Drops every entry of `owner` (a unique name), or only of `contextId`.
    func drop(owner: String, contextId: String? = nil) {
        for key in entries.keys where key.owner == owner && (contextId == nil || key.contextId == contextId) {
            entries[key] = nil
        }
    }
}
