/// How a presenter draws a presented menu (`PresentMenu`'s `appearance`):
/// `rich` with the context's preview above the items, as UIKit's context
/// menus, or `compact`, the items alone (a menu bar's, a toolbar's).
public enum MenuAppearance: String, CaseIterable, Hashable, Sendable {
    case rich
    case compact
}
