/// Which menu is meant: the context menu of an item or the edit menu of
/// its selection (`PresentMenu` and `Lint` take it as `s`).
public enum MenuKind: String, CaseIterable, Hashable, Sendable {
    case context
    case edit
}
