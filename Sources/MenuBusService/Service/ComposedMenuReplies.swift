import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Marshalled `GetContextMenu` / `GetEditMenu` replies, reused while the
/// composed menu is equal: the menu is still composed for every call (so
/// access checks, selection, undo state and providers all count as before),
/// but when the revision and elements equal the last reply's for the same
/// owner, context, kind, locale and omitted commands, its bytes are copied instead of encoded,
/// validated and marshalled again.
///
/// Budget: at most `maxEntries` replies and `maxBytes` marshalled bytes
/// (least recently used go first); a reply over `maxReplyBytes` is not kept.
/// An owner's entries go when it leaves or removes the context.
package final class ComposedMenuReplies {
    static let maxEntries = 64
    package static let maxBytes = 2 << 20
    static let maxReplyBytes = 256 << 10

    package struct Key: Hashable {
        package let owner: String
        package let contextId: String
        package let kind: MenuKind
        package let locale: String
        /// The `omit-commands` the menu was read with.
        package var omittedCommands: Set<StandardCommand> = []
    }

    private struct Entry {
        let revision: UInt32
        let menu: [MenuElement]
        let reply: PreparedReply
        let bytes: Int
        var lastUse: UInt64
    }

    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    package private(set) var bytes = 0
    /// Replies served from the cache (for tests and diagnostics).
    package private(set) var hits = 0

    package var count: Int { entries.count }

    /// The reply for `menu` at `revision`, from the cache when equal, else
    /// marshalled (and kept within the budget).
    package func reply(for key: Key, revision: UInt32, menu: [MenuElement]) throws -> PreparedReply {
        clock &+= 1
        if var entry = entries[key], entry.revision == revision, entry.menu == menu {
            entry.lastUse = clock
            entries[key] = entry
            hits += 1
            return entry.reply
        }
        let prepared = try PreparedReply([.uint32(revision), Wire.encode(menu)])
        remove(key)
        let size = prepared.marshalledBytes
        guard size <= Self.maxReplyBytes else { return prepared }
        while !entries.isEmpty, entries.count >= Self.maxEntries || bytes + size > Self.maxBytes {
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
            remove(oldest)
        }
        entries[key] = Entry(revision: revision, menu: menu, reply: prepared, bytes: size, lastUse: clock)
        bytes += size
        return prepared
    }

    /// Drops every entry of `owner` (a unique name), or only of `contextId`.
    package func drop(owner: String, contextId: String? = nil) {
        for key in entries.keys where key.owner == owner && (contextId == nil || key.contextId == contextId) {
            remove(key)
        }
    }

    private func remove(_ key: Key) {
        guard let old = entries.removeValue(forKey: key) else { return }
        bytes -= old.bytes
    }
}
