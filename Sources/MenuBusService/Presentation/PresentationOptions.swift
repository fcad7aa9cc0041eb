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
///   `de:fr`), instead of the session's;
/// - `omit-commands` as: standard commands whose items the menu leaves out
///   because the presenter's toolkit shows them already
///   (`CommandOmission`), at most `maxOmittedCommands`;
/// - `appearance` s: `rich` (default), the context's preview served as the
///   menu's `Preview`, or `compact`, no preview (`MenuAppearance`).
///
/// `GetEditMenu` and `GetContextMenu` read `locale` and `omit-commands`.
package struct PresentationOptions: Hashable, Sendable {
    package var anchor: Rect?
    package var locale: String?
    package var omittedCommands: Set<StandardCommand>
    package var appearance = MenuAppearance.rich

    /// Entries in `omit-commands`, as in `supported-commands`.
    static let maxOmittedCommands = Limits.maxSupportedCommands

    init(anchor: Rect? = nil, locale: String? = nil, omittedCommands: Set<StandardCommand> = []) {
        self.anchor = anchor
        self.locale = locale
        self.omittedCommands = omittedCommands
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
                case "omit-commands":
                    omittedCommands = try Self.standardCommands(value, field: path())
                case "appearance": appearance = try WireValue.enumeration(value, MenuAppearance.self, field: path())
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

    /// An `as` of standard command names, each checked where it stands
    /// (`options.omit-commands[2]: unknown standard command 'frobnicate'`).
    private static func standardCommands(_ value: DBusValue, field: String) throws(ModelError) -> Set<StandardCommand> {
        var commands = Set<StandardCommand>()
        for (index, name) in try WireValue.strings(value, field: field, maxCount: maxOmittedCommands).enumerated() {
            guard let command = StandardCommand(rawValue: name) else {
                let known = StandardCommand.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalid("\(field)[\(index)]",
                               "unknown standard command \(ModelError.quoted(name)); expected one of \(known)")
            }
            commands.insert(command)
        }
        return commands
    }
}
