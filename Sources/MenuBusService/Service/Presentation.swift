import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A menu shown by a presenter: a live object at `/org/menubus/MenuBus1/menu/<n>`.
///
/// Its layout is recomposed lazily: a change of the context or of the
/// providers marks it stale, and the next `GetLayout` or signal flush
/// composes it again. Signals are coalesced (see `MenuBusServer.scheduleSignal`).
package final class Presentation {
    package let number: UInt64
    package let path: ObjectPath
    package let kind: MenuKind
    /// Unique name of the app that owns the context.
    package let owner: String
    package let contextId: String
    /// Unique name of the connection that called `PresentMenu`.
    package let presenter: String
    /// What the presenter asked for: where to anchor, which language.
    package let options: PresentationOptions
    /// MenuBus's own titles in the presentation's language.
    package let titles: SystemTitles
    /// The context's title and selection rectangle as last published on
    /// the object's properties (`Title`, `SelectionRect`).
    var shownTitle = ""
    var shownSelectionRect: Rect?
    /// Grows with every change of `elements`; never goes back.
    package private(set) var revision: UInt32 = 1
    /// The layout as last composed, deferred elements resolved.
    package private(set) var elements: [MenuElement] = []
    /// The context's title as last composed; the exports show it as the menu's title.
    package private(set) var title: String?
    /// dbusmenu's `TextDirection`: the `text-direction` option, else the default.
    var textDirection = TextDirection.presentationDefault()
    /// The inputs changed since `elements` was composed.
    package var isStale = true
    /// An item was chosen; the menu closes once the choice is delivered.
    var isChosen = false

    /// Deferred elements: what arrived in this presentation, what failed,
    /// and what was asked of the owner.
    package var provided: [String: [MenuElement]] = [:]
    /// Budget bytes of `provided` (MenuBusServer+Budgets.swift).
    var providedBytes = 0
    package var failed: Set<String> = []
    package var asked: Set<String> = []
    /// Deferred elements shown as "Loading…" in the current layout.
    package var waiting: Set<String> = []

    /// Signal coalescing: a change waits for the flush; the last flush's time.
    var signalPending = false
    var flushScheduled = false
    var lastSignal: UInt64 = 0
    /// The revision the last `LayoutChanged` carried (1 = the layout `PresentMenu` returned).
    var lastSignalRevision: UInt32 = 0

    /// `GetLayout`'s reply for this revision, marshalled once.
    private var cachedLayout: PreparedReply?

    init(number: UInt64, kind: MenuKind, owner: String, contextId: String, presenter: String,
         options: PresentationOptions = PresentationOptions(), titles: SystemTitles = .english) {
        self.options = options
        self.titles = titles
        self.number = number
        self.path = ObjectPath(stringLiteral: "/org/menubus/MenuBus1/menu/\(number)")
        self.kind = kind
        self.owner = owner
        self.contextId = contextId
        self.presenter = presenter
    }

    /// Takes a newly composed layout and title; returns true when either
    /// differs (and the revision grew).
    package func update(_ newElements: [MenuElement], title newTitle: String? = nil) -> Bool {
        isStale = false
        guard newElements != elements || newTitle != title else { return false }
        elements = newElements
        title = newTitle
        revision &+= 1
        cachedLayout = nil
        return true
    }

    /// True when the menu holds something a person can see: an item, or
    /// the stand-in of a deferred element still loading.
    var hasSomethingToShow: Bool {
        elements.contains { $0.kind == .action || $0.isSubmenu }
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
