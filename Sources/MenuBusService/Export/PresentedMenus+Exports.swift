import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Presented menus also served in the desktop's menu protocols
/// (`com.canonical.dbusmenu`, `org.gtk.Menus`, `org.gtk.Actions`) at the
/// presentation's path. Each protocol has its room, `Export/DBusMenu/` and
/// `Export/GMenu/` (its `*Layout` mapping, its `*Export` per-presentation
/// state, its change sets and interfaces); this file keeps them
/// in step with the presentation and signals what changed.
///
/// Every handler first brings the exports to the presentation's current
/// revision (`exported`), signalling the difference to consumers that saw
/// the older one before it answers, so a consumer never sees a reply older
/// than a signal, nor a signal that does not apply to what it holds.
///
/// A presentation that closes first empties itself in every protocol
/// (`exportsClosing`), then its object goes `closingGrace` later.
extension PresentedMenus {
    /// The menu protocols every presentation is served in, in the order
    /// their changes are signalled (and their mappings numbered).
    static var menuExports: [any MenuExport.Type] { [DBusMenuExport.self, GMenuExport.self] }


    /// Seconds a closed presentation keeps serving its empty menu, so
    /// consumers that hold it can read it empty before the object goes.
    static let closingGrace = 1.0
    /// Seconds after a consumer closed its menu (dbusmenu `closed` on the
    /// root, `End` of the last `org.gtk.Menus` subscription) before the
    /// presentation ends, unless it opened again: consumers close their
    /// popup before they send the click that closed it.
    static let consumerCloseDelay = 0.5

    /// The presentation's layout changed (a new revision): signal it in every protocol.
    func exportsLayoutChanged(_ presentation: Presentation) {
        guard let state = presentations.exports(presentation.number) else { return }
        syncExports(presentation, state)
    }

    /// The presentation closed: every protocol a consumer used is told the
    /// menu is now empty (dbusmenu: an empty root and `LayoutUpdated`;
    /// GMenu: every item of every subscribed menu removed, then every
    /// action), and the object goes after `closingGrace`, at once when no
    /// consumer read it through these protocols.
    func exportsClosing(_ presentation: Presentation) {
        let number = presentation.number, path = presentation.path
        guard let state = presentations.exports(number) else { return }
        guard !state.isClosing else { return }
        for export in state.protocols { export.closing() }
        state.close()
        guard state.protocols.contains(where: { $0.hasChangeToSignal }) else {
            presentations.dropExports(number)
            return
        }
        signalChanges(path, state, emptying: true)
        loop.addTimer(after: PresentedMenus.closingGrace) { [weak self, weak state] in
            guard let self, let state, self.presentations.isCurrent(state, of: number) else { return }
            self.presentations.dropExports(number)
        }
    }

    /// A connection left the bus; drop its subscriptions.
    func exportsPeerLeft(_ uniqueName: String) {
        for number in presentations.peerLeft(uniqueName) { consumerClosed(number) }
    }

    /// A consumer closed its menu: the presentation ends as `Dismiss`
    /// ends it, `consumerCloseDelay` later, unless a consumer opened it
    /// again (a dbusmenu `opened`, a new `org.gtk.Menus` subscription).
    func consumerClosed(_ number: UInt64) {
        guard let request = presentations.requestEnd(number) else { return }
        loop.addTimer(after: PresentedMenus.consumerCloseDelay) { [weak self] in
            guard let self, self.presentations.isEndRequested(number, request),
                  let presentation = self.presentations[number] else { return }
            self.closePresentation(presentation)
        }
    }

    /// A consumer opened the menu (again): a pending end is called off.
    func consumerOpened(_ number: UInt64) {
        presentations.callOffEnd(number)
    }

    /// The exports of presentation `number` at its current revision
    /// (recomposed when stale), or its empty exports while it closes.
    package func exported(_ number: UInt64) throws -> PresentationExports {
        guard let state = presentations.exports(number) else {
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed")
        }
        if !state.isClosing {
            let presentation = try livePresentation(number)
            bringUpToDate(presentation)
            syncExports(presentation, state)
        }
        return state
    }

    /// Maps the new revision for every protocol a consumer has used and
    /// signals the difference.
    private func syncExports(_ presentation: Presentation, _ state: PresentationExports) {
        guard !state.isClosing, state.revision != presentation.revision else { return }
        state.startRevision(presentation.revision, elements: presentation.elements, title: presentation.title)
        // Answers first: a consumer refreshes on the answer and then skips
        // the signal that follows (KDE's importer does).
        for export in state.protocols { export.revisionChanged(presentation) }
        signalChanges(presentation.path, state, emptying: false)
    }

    /// Signals, protocol by protocol in `menuExports` order, the change
    /// from the mapping consumers saw (none for a protocol nobody read) to
    /// the state's current one (`MenuExport.emitChanges`). `emptying`
    /// removes every item of every menu consumers hold.
    private func signalChanges(_ path: ObjectPath, _ state: PresentationExports, emptying: Bool) {
        for export in state.protocols {
            export.signalChange(state, menus: self, path: path, emptying: emptying)
        }
    }

    /// `platformData` for an activation that came through another protocol.
    static func exportPlatformData(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
