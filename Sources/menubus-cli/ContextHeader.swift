import MenuBus
import MenuBusModel

/// What `menu` and `present` print above a menu's items beside its title:
/// the preview a presenter draws there, and a button's primary action.
enum ContextHeader {
    /// "Preview  Beach.png — 2.1 MB  [PNG, 65536 bytes]  (menubus:preview)".
    static func preview(_ preview: ContextPreview) -> String {
        var line = "  " + Output.styled("Preview", .bold) + "  " + preview.title
        if let subtitle = preview.subtitle { line += " — " + subtitle }
        switch preview.image {
        case .uri(let uri): line += Output.styled("  [\(uri)]", .dim)
        case .icon(let name): line += Output.styled("  [icon \(name)]", .dim)
        case .png(let bytes): line += Output.styled("  [PNG, \(bytes.count) bytes]", .dim)
        case nil: break
        }
        return line + Output.styled("  (\(ElementID.preview))", .dim) + "\n"
    }

    /// "Tap  New Document  (new-document)", or that a tap shows the menu;
    /// nothing for a context that is no button.
    static func primaryAction(_ context: ContextInfo, items: [MenuElement]) -> String {
        guard context.kind.isButton else { return "" }
        let tap = "  " + Output.styled("Tap", .bold) + "  "
        if context.menuIsPrimaryAction { return tap + "shows this menu\n" }
        guard let id = context.primaryAction else { return "" }
        let title = items.first { $0.id == id }?.title ?? id
        return tap + title + Output.styled("  (\(id); \(ElementID.primaryAction))", .dim) + "\n"
    }

    /// The JSON fields of a presented menu's appearance and preview.
    static func jsonFields(preview: ContextPreview?, appearance: MenuAppearance) -> String {
        ", \"appearance\": \(MenuJSON.quote(appearance.rawValue))" + (preview.map { ", \"preview\": " + MenuJSON.write($0) } ?? "")
    }
}
