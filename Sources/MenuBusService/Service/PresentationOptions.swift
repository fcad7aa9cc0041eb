import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The options of `PresentMenu` MenuBus reads (others are ignored):
///
/// - `x` i, `y` i: the point the presenter anchors the menu at, or
///   `anchor` (iiii): a rectangle (the presenter's surface coordinates);
///   passed through as the menu's `Anchor` property;
/// - `locale` s: the language of MenuBus's own titles (`ru`, `ja_JP.UTF-8`,
///   `de:fr`), instead of the session's.
///
/// `GetEditMenu` and `GetContextMenu` read `locale` only.
package struct PresentationOptions: Hashable, Sendable {
    package var anchor: Rect?
    package var locale: String?

    init(anchor: Rect? = nil, locale: String? = nil) {
        self.anchor = anchor
        self.locale = locale
    }

    init(wire value: DBusValue, field: String = "options") throws(BusError) {
        self.init()
        do throws(ModelError) {
            var x: Int32?, y: Int32?
            for (key, value) in try WireValue.entries(of: value, field: field) {
                func path() -> String { "\(field).\(key)" }
                switch key {
                case "x": x = try WireValue.int32(value, field: path())
                case "y": y = try WireValue.int32(value, field: path())
                case "anchor": anchor = try WireValue.rect(value, field: path())
                case "locale":
                    let text = try WireValue.string(value, field: path())
                    try Localization.validate(locale: text, field: path())
                    locale = text.isEmpty ? nil : text
                default: continue
                }
            }
            switch (x, y) {
            case (nil, nil): break
            case (let x?, let y?):
                guard anchor == nil else {
                    throw .invalid(field + ".anchor", "give either 'anchor' or 'x' and 'y', not both")
                }
                anchor = Rect(x: x, y: y)
            default:
                throw .invalid(field + (x == nil ? ".x" : ".y"), "'x' and 'y' come together: a point needs both")
            }
        } catch {
            throw error.busError
        }
    }
}
