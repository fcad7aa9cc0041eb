import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A menu shown by a presenter: a live object at `/org/menubus/MenuBus1/menu/<n>`.
///
/// Its layout is recomposed lazily: a change of the context or of the
/// providers marks it stale, and the next `GetLayout` or signal flush
/// composes it again. Signals are coalesced (see `PresentedMenus.scheduleSignal`).
///
/// It owns its states, and every change of them is one of its methods,
/// which refuse what its state does not allow:
/// - its `phase`: `composing` for `PresentMenu` → `presented` on the bus
///   (`presented`, refused for an empty menu, which closes) → `chosen`
///   (`choose`) → `closed` (`close`, from any other);
/// - its deferred elements, each asked of the owner once (`ask`), then
///   `provided` or `failed` once; `waiting` are those the layout shows loading;
/// - its `composition`, `stale` when its inputs changed since it was
///   composed (`markStale`, `provide`, `fail`), `current` once composed (`update`);
/// - its coalesced signals, `flush` (`signalRequested`, `flushTimerFired`,
///   `layoutToSignal`).
///
/// Its states are enums, never Bool flags (`PresentationStateTests` checks).
package final class Presentation {
    package let number: UInt64
    package let path: ObjectPath
    package let kind: MenuKind
    /// Unique name of the app that owns the context.
    package let owner: String
    package let contextId: String
    /// Unique name of the connection that called `PresentMenu`.
    package let presenter: String
    /// The prefix every presentation's object is under, at `<prefix>/<number>`.
    package static let pathPrefix: ObjectPath = "/org/menubus/MenuBus1/menu"

    private static let numberPrefix = pathPrefix.rawValue + "/"

    /// The object path of presentation `number`.
    package static func path(of number: UInt64) -> ObjectPath {
        pathPrefix.appending(String(number))
    }

    /// The number of the presentation whose object is at `path`; nil for
    /// any other path (`<prefix>/01` and `<prefix>/+1` are not presentation 1's).
    package static func number(at path: ObjectPath) -> UInt64? {
        let text = path.rawValue
        guard text.hasPrefix(numberPrefix) else { return nil }
        let digits = text.utf8.dropFirst(numberPrefix.utf8.count)
        guard let first = digits.first, first >= UInt8(ascii: "1") || digits.count == 1 else { return nil }
        return UInt64(Substring(digits))
    }

    /// What the presenter asked for: where to anchor, which language.
    package let options: PresentationOptions
    /// MenuBus's own titles in the presentation's language.
    package let titles: SystemTitles
    /// Where the presentation is in its life. It only moves forward.
    package enum Phase: Equatable, Sendable {
        /// Composed for `PresentMenu`, not yet on the bus: nothing is signalled.
        case composing
        /// On the bus: its changes are signalled.
        case presented
        /// An item was chosen; the menu closes once the choice is delivered.
        case chosen
        /// Off the bus: nothing happens to it any more.
        case closed

        /// Whether changes of the layout and properties are signalled: on
        /// the bus, until it closes.
        package var isSignalled: Bool { self == .presented || self == .chosen }
    }
    package private(set) var phase = Phase.composing

    /// Whether `elements` is what the inputs compose now.
    package enum Composition: Equatable, Sendable {
        /// The inputs changed since `elements` was composed, or it never was.
        case stale
        /// Composed from the current inputs.
        case current
    }
    package private(set) var composition = Composition.stale

    /// The context's title and selection rectangle as last published on
    /// the object's properties (`Title`, `SelectionRect`).
    package private(set) var shownTitle = ""
    package private(set) var shownSelectionRect: Rect?
    /// The context's preview as last published on `Preview`: nil when it
    /// has none or the presenter asked for the `compact` appearance. It
    /// shares the context's storage (a PNG is not copied).
    package private(set) var shownPreview: ContextPreview?
    /// Grows with every change of `elements`; never goes back.
    package private(set) var revision: UInt32 = 1
    /// The layout as last composed, deferred elements resolved.
    package private(set) var elements: [MenuElement] = []
    /// The context's title as last composed; the exports show it as the menu's title.
    package private(set) var title: String?
    /// dbusmenu's `TextDirection`: the `text-direction` option, else the default.
    var textDirection = TextDirection.presentationDefault()

    /// Where one deferred element asked of the owner stands.
    package enum DeferredLoad: Equatable, Sendable {
        /// Asked; no answer yet.
        case loading
        /// The owner's content for it, in this presentation.
        case provided([MenuElement])
        /// The owner's answer failed or never came.
        case failed
    }
    /// Deferred elements asked of the owner in this presentation.
    package private(set) var deferred: [String: DeferredLoad] = [:]
    /// Budget bytes of the provided content (Ledger.swift).
    private(set) var providedBytes = 0
    /// Deferred elements shown as "Loading…" in the current layout.
    package private(set) var waiting: Set<String> = []

    /// Signal coalescing: whether a flush is scheduled.
    enum Flush: Equatable {
        /// None: the next change may go at once.
        case idle
        /// A timer flushes at the end of the interval, carrying every change until then.
        case scheduled
    }
    private(set) var flush = Flush.idle
    /// The last flush's time, and the revision the last `LayoutChanged`
    /// carried (the layout `PresentMenu` returned, once presented).
    private var lastSignal: UInt64 = 0
    private(set) var lastSignalRevision: UInt32 = 0

    /// `GetLayout`'s reply for this revision, marshalled once.
    private var cachedLayout: PreparedReply?

    init(number: UInt64, kind: MenuKind, owner: String, contextId: String, presenter: String,
         options: PresentationOptions = PresentationOptions(), titles: SystemTitles = .english) {
        self.options = options
        self.titles = titles
        self.number = number
        self.path = Presentation.path(of: number)
        self.kind = kind
        self.owner = owner
        self.contextId = contextId
        self.presenter = presenter
    }

    /// Takes a newly composed layout and title; returns true when either
    /// differs (and the revision grew).
    package func update(_ newElements: [MenuElement], title newTitle: String? = nil) -> Bool {
        composition = .current
        guard newElements != elements || newTitle != title else { return false }
        elements = newElements
        title = newTitle
        revision &+= 1
        cachedLayout = nil
        return true
    }

    // MARK: Phase

    /// On the bus, with the layout and properties `PresentMenu` answers
    /// with as already signalled. Only from `composing`, and only when the
    /// menu holds something a person can see (an item, or the stand-in of a
    /// deferred element still loading): an empty menu is not presented
    /// (UIKit shows none) and closes instead.
    @discardableResult
    func presented(title: String, selectionRect: Rect?, preview: ContextPreview? = nil) -> Bool {
        guard phase == .composing else { return false }
        guard elements.contains(where: { $0.kind == .action || $0.isSubmenu }) else {
            phase = .closed
            return false
        }
        phase = .presented
        shownTitle = title
        shownSelectionRect = selectionRect
        shownPreview = shown(preview)
        lastSignalRevision = revision
        return true
    }

    /// Refuses a choice once the menu was chosen from or closed.
    func checkChoosable() throws(BusError) {
        switch phase {
        case .composing, .presented:
            return
        case .chosen:
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed by an earlier choice")
        case .closed:
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed")
        }
    }

    /// An item was chosen that closes the menu: a second choice is refused
    /// (`checkChoosable`) rather than delivered twice. Only from `presented`.
    @discardableResult
    func choose() -> Bool {
        guard phase == .presented else { return false }
        phase = .chosen
        return true
    }

    /// Closed, from any phase; false when it already was.
    @discardableResult
    func close() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        return true
    }

    // MARK: Composition

    /// The context, the providers or the owner's undo state changed.
    func markStale() {
        composition = .stale
    }

    /// The context's preview as this presentation serves it: none in the
    /// `compact` appearance.
    private func shown(_ preview: ContextPreview?) -> ContextPreview? {
        options.appearance == .rich ? preview : nil
    }

    /// The context's title, selection and preview as composed: the names
    /// of the properties that changed (signalled only once `phase.isSignalled`).
    func show(title: String, selectionRect: Rect?, preview: ContextPreview? = nil) -> [String] {
        var changed: [String] = []
        if shown(preview) != shownPreview {
            shownPreview = shown(preview)
            changed.append("Preview")
        }
        if title != shownTitle {
            shownTitle = title
            changed.append("Title")
        }
        if selectionRect != shownSelectionRect {
            shownSelectionRect = selectionRect
            changed.append("SelectionRect")
        }
        return changed
    }

    // MARK: Deferred elements

    /// The content provided so far, by deferred element id.
    package var provided: [String: [MenuElement]] {
        var result: [String: [MenuElement]] = [:]
        for (id, load) in deferred {
            if case .provided(let content) = load { result[id] = content }
        }
        return result
    }

    /// The deferred elements whose answer failed.
    package var failed: Set<String> {
        Set(deferred.lazy.filter { $0.value == .failed }.map(\.key))
    }

    /// The composition shows `ids` loading.
    func showWaiting(_ ids: Set<String>) {
        waiting = ids
    }

    /// Whether `id` should be asked of the owner now: true once, when it
    /// was never asked in this presentation (and it is not closed).
    func ask(_ id: String) -> Bool {
        guard phase != .closed, deferred[id] == nil else { return false }
        deferred[id] = .loading
        return true
    }

    /// The owner's content for `id`, counted as `bytes`; refused unless
    /// `id` is loading. The menu is stale.
    @discardableResult
    func provide(_ id: String, content: [MenuElement], bytes: Int) -> Bool {
        guard phase != .closed, deferred[id] == .loading else { return false }
        deferred[id] = .provided(content)
        providedBytes += bytes
        composition = .stale
        return true
    }

    /// The owner did not provide `id`; refused unless `id` is loading. The menu is stale.
    @discardableResult
    func fail(_ id: String) -> Bool {
        guard phase != .closed, deferred[id] == .loading else { return false }
        deferred[id] = .failed
        composition = .stale
        return true
    }

    // MARK: Signals

    /// When a requested signal goes out.
    enum SignalTiming: Equatable {
        /// Flush now: the last signal is older than the interval.
        case now
        /// A flush is scheduled for the end of the interval, this many seconds on.
        case after(Double)
        /// A flush was already scheduled; it carries this change too.
        case scheduled
    }

    /// A change to signal at `now` (ns), at most one flush per `interval` (ns).
    func signalRequested(now: UInt64, interval: UInt64) -> SignalTiming {
        guard flush == .idle else { return .scheduled }
        let elapsed = now &- lastSignal
        if elapsed >= interval { return .now }
        flush = .scheduled
        return .after(Double(interval - elapsed) / 1_000_000_000)
    }

    /// The scheduled flush is due.
    func flushTimerFired() {
        flush = .idle
    }

    /// Whether the current revision is yet to be signalled as
    /// `LayoutChanged`; if so it counts as signalled at `now`. Never
    /// before the menu is presented nor after it closed.
    func layoutToSignal(now: UInt64) -> Bool {
        guard phase.isSignalled, lastSignalRevision != revision else { return false }
        lastSignal = now
        lastSignalRevision = revision
        return true
    }

    package func element(_ id: String) -> MenuElement? {
        elements.first { $0.id == id }
    }

    /// The `(u, a(ssa{sv}))` reply for the current revision.
    func layoutReply() throws -> PreparedReply {
        if let cachedLayout { return cachedLayout }
        let prepared = try PreparedReply([.uint32(revision), Wire.encode(elements)])
        cachedLayout = prepared
        return prepared
    }
}
