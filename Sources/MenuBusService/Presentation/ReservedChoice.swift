import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// What a reserved id chooses that is no element of a layout: the menu's
/// preview (`menubus:preview`, UIKit's preview commit) or a button's
/// primary action (`menubus:primary-action`, a tap). The owner hears
/// either as `ActionInvoked`.
package enum ReservedChoice: Equatable, Sendable {
    /// The preview: the owner hears `ActionInvoked` of `menubus:preview`.
    case preview
    /// A button's primary action: the owner hears `ActionInvoked` of its
    /// item's own id.
    case primaryAction(itemId: String)

    /// The item id the owner's `ActionInvoked` carries.
    package var invokedId: String {
        switch self {
        case .preview: ElementID.preview
        case .primaryAction(let itemId): itemId
        }
    }

    /// The choice `itemId` names in a presentation of `context`, nil when
    /// it is no reserved id; refused when the menu does not carry it (a
    /// preview not served, a context with no primary action).
    package init?(_ itemId: String, shownPreview: ContextPreview?, context: PublishedContext) throws(BusError) {
        switch itemId {
        case ElementID.preview:
            guard shownPreview != nil else {
                throw BusError(.noSuchItem, "itemId: this menu shows no preview (the context has none, or the appearance is compact)")
            }
            self = .preview
        case ElementID.primaryAction:
            self = .primaryAction(itemId: try Self.primaryItem(of: context, field: "itemId").id)
        default:
            return nil
        }
    }

    /// The app's item a tap on a button context runs; `field` names the
    /// argument at fault.
    package static func primaryItem(of context: PublishedContext, field: String) throws(BusError) -> MenuElement {
        let info = context.info
        guard info.kind.isButton else {
            throw BusError(.noSuchItem, "\(field): '\(context.id)' is a \(info.kind.rawValue) context; only a button has a primary action")
        }
        guard !info.menuIsPrimaryAction else {
            throw BusError(.noSuchItem, "\(field): the menu of '\(context.id)' is its primary action (menu-is-primary-action): present it")
        }
        guard let id = info.primaryAction else {
            throw BusError(.noSuchItem, "\(field): '\(context.id)' has no primary-action")
        }
        guard let item = ButtonMenu.primaryItem(context: info, items: context.items) else {
            throw BusError(.noSuchItem, "\(field): the primary-action '\(id)' of '\(context.id)' is no action among its items")
        }
        guard !item.attributes.contains(.disabled) else {
            throw BusError.invalidArgs("\(field): the primary-action '\(id)' of '\(context.id)' is disabled")
        }
        return item
    }
}
