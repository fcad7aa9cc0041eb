import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The reading direction a presented menu is drawn in, as dbusmenu's
/// `TextDirection` property carries it (`org.gtk.Menus` has no such field:
/// GTK takes the direction from the consumer's own locale).
enum TextDirection: String, Equatable {
    case ltr
    case rtl

    /// The direction of a menu whose presenter named none.
    static func presentationDefault() -> TextDirection {
        .ltr
    }

    /// From `PresentMenu`'s options: `text-direction` "ltr" or "rtl"; nil
    /// when the options do not name one. Anything else is `InvalidArgs`
    /// naming the field.
    static func from(options: DBusValue) throws(BusError) -> TextDirection? {
        guard case .array(_, let entries) = options else { return nil }
        for entry in entries {
            guard case .dictEntry(.string("text-direction"), .variant(let value)) = entry else { continue }
            guard case .string(let text) = value, let direction = TextDirection(rawValue: text) else {
                throw BusError.invalidArgs("options.text-direction: must be the string 'ltr' or 'rtl'")
            }
            return direction
        }
        return nil
    }
}
