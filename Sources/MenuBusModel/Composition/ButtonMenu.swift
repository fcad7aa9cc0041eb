/// The menu of a button context (UIKit's `UIButton.menu`, WWDC20's
/// "menus on buttons"): the app's items alone, arranged as `AppItems`
/// describes, with no suggestions and no edit commands, whichever menu
/// kind is asked for. A button has no content to copy or share.
///
/// A `history` context is a back or forward button's history: its
/// deferred elements are asked for at every presentation (never cached),
/// since the visited places change with each navigation; the app lists
/// them most recent first and MenuBus keeps that order.
///
/// The primary action (a tap) is one of the app's items, named by the
/// context's `primary-action`; it may be `hidden`, so it stays out of the
/// menu (press and hold) and is still what a tap runs.
package enum ButtonMenu {
    package static func compose(context: ContextInfo, items: [MenuElement]) -> [MenuElement] {
        var menu = AppItems.arranged(items)
        if context.kind == .history {
            for index in menu.indices where menu[index].kind == .deferred { menu[index].cached = false }
        }
        return menu
    }

    /// The app's item a tap runs, from the context's published items (a
    /// hidden one too); nil when the button has none, or it is no action.
    package static func primaryItem(context: ContextInfo, items: [MenuElement]) -> MenuElement? {
        guard context.kind.isButton, let id = context.primaryAction else { return nil }
        return items.first { $0.id == id && $0.kind == .action }
    }

    /// Refuses a `primary-action` that names no action among `items`
    /// (`PublishContext`; a later `UpdateItems` that drops it makes a tap
    /// answer `NoSuchItem`).
    package static func validate(context: ContextInfo, items: [MenuElement], field: String = "context") throws(ModelError) {
        guard let id = context.primaryAction, primaryItem(context: context, items: items) == nil else { return }
        throw .invalid(field + ".primary-action", "\(ModelError.quoted(id)) is no action among the context's items")
    }
}
