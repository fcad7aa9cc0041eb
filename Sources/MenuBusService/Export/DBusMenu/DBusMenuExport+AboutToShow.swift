import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// dbusmenu `AboutToShow` and `AboutToShowGroup` while deferred elements
/// load: the answer waits (a deferred reply, the loop goes on) until the
/// elements of that menu arrived or failed, or `aboutToShowWait` passed,
/// and is then `needUpdate` true. KDE's importer waits up to 3 s for it and
/// refreshes before it shows the menu, so the menu opens complete instead
/// of closing when `LayoutUpdated` comes while it is open.
extension DBusMenuExport {
    /// Seconds an `AboutToShow` answer waits at most.
    static let aboutToShowWait = 2.0

    /// Deferred elements still loading among the items of dbusmenu menu `id`.
    static func loadingDeferred(under id: Int32, _ state: PresentationExports, _ presentation: Presentation?) -> Set<String> {
        guard let presentation, !presentation.waiting.isEmpty,
              let node = state.dbusMenuLayout().node(id) else { return [] }
        var result: Set<String> = []
        for child in node.children {
            if let element = state.dbusMenuLayout().node(child)?.elementId, presentation.waiting.contains(element) {
                result.insert(element)
            }
        }
        return result
    }

    /// Keeps `call` until `pending` has loaded (true), or leaves it to be
    /// answered now (false).
    static func answersLater(_ menus: PresentedMenus, _ call: MethodCall, state: PresentationExports, pending: Set<String>,
                      group: (updates: [Int32], errors: [Int32])?) -> Bool {
        let state = state.export(DBusMenuExport.self)
        guard !pending.isEmpty, state.aboutToShowWaiters.count < DBusMenuExport.maxAboutToShowWaiters else {
            return false
        }
        let waiter = DBusMenuExport.AboutToShowWaiter(reply: call.deferReply(), pending: pending, group: group)
        state.aboutToShowWaiters.append(waiter)
        menus.loop.addTimer(after: aboutToShowWait) { [weak state] in
            guard let state else { return }
            state.aboutToShowWaiters.removeAll { $0.reply === waiter.reply }
            waiter.answer()
        }
        return true
    }

    /// Sends the waiting answers whose elements are no longer loading; all
    /// of them when the presentation is gone. Called before the change is
    /// signalled, so the consumer refreshes once, on the answer.
    func releaseAboutToShow(_ presentation: Presentation?) {
        guard !aboutToShowWaiters.isEmpty else { return }
        let waiting = presentation?.waiting ?? []
        var kept: [AboutToShowWaiter] = []
        for waiter in aboutToShowWaiters {
            if presentation != nil, !waiter.pending.isDisjoint(with: waiting) {
                kept.append(waiter)
            } else {
                waiter.answer()
            }
        }
        aboutToShowWaiters = kept
    }
}
