import MenuBus
import MenuBusModel

/// Draws a menu as an indented tree: sections as rules, submenus with ▸,
/// state marks, destructive items in red and marked "destructive", disabled
/// ones dim, ids at the end.
enum MenuDrawing {
    static func draw(_ elements: [MenuElement]) -> String {
        var children: [String: [MenuElement]] = [:]
        for element in elements { children[element.parent, default: []].append(element) }
        var lines: [String] = []
        // Sections are drawn between rules, as UIKit and GTK draw them.
        func walk(_ parent: String, depth: Int) {
            let siblings = children[parent] ?? []
            var ruleDue = false
            for (index, element) in siblings.enumerated() {
                if element.isSection {
                    guard !(children[element.id] ?? []).isEmpty else { continue }
                    if index > 0 || ruleDue { lines.append(indent(depth) + Output.styled("────────", .dim)) }
                    if let title = element.title, !title.isEmpty {
                        lines.append(indent(depth) + Output.styled(title, .dim) + id(element))
                    }
                    walk(element.id, depth: depth)
                    ruleDue = true
                    continue
                }
                if ruleDue {
                    lines.append(indent(depth) + Output.styled("────────", .dim))
                    ruleDue = false
                }
                lines.append(indent(depth) + label(element) + id(element))
                if element.kind == .menu { walk(element.id, depth: depth + 1) }
            }
        }
        walk("", depth: 0)
        return lines.isEmpty ? "  (empty menu)\n" : lines.joined(separator: "\n") + "\n"
    }

    private static func indent(_ depth: Int) -> String {
        String(repeating: "  ", count: depth + 1)
    }

    private static func id(_ element: MenuElement) -> String {
        "  " + Output.styled("[\(element.id)]", .dim)
    }

    private static func label(_ element: MenuElement) -> String {
        var text: String
        switch element.state {
        case .on: text = "✓ "
        case .mixed: text = "– "
        case .off: text = "  "
        }
        let title = element.title ?? (element.kind == .deferred ? "(deferred)" : "(untitled)")
        text += element.kind == .menu ? title + " ▸" : title
        if let subtitle = element.subtitle { text += " — " + subtitle }
        var notes: [String] = []
        if let shortcut = element.shortcut { notes.append(shortcut) }
        if let icon = element.icon { notes.append("icon " + icon) }
        if element.kind == .deferred { notes.append("deferred" + (element.cached ? "" : ", uncached")) }
        if element.has(.disabled) { notes.append("disabled") }
        if element.has(.keepsMenuPresented) { notes.append("keeps menu open") }
        // Colour is not the only mark: without it (a pipe, NO_COLOR) the text says so.
        if element.isDestructive { notes.append("destructive") }
        if !notes.isEmpty { text += "  (" + notes.joined(separator: ", ") + ")" }
        if element.isDestructive { return Output.styled(text, .red) }
        if element.has(.disabled) { return Output.styled(text, .dim) }
        return text
    }

    /// A D-Bus value as a person reads it.
    static func describe(_ value: DBusValue) -> String { describe(value, full: false) }

    /// `full`: every item of a long array, not the first eight.
    static func describe(_ value: DBusValue, full: Bool) -> String {
        func describe(_ value: DBusValue) -> String { MenuDrawing.describe(value, full: full) }
        return switch value {
        case .byte(let v): "\(v)"
        case .boolean(let v): v ? "true" : "false"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .objectPath(let v): v.rawValue
        case .signature(let v): "'\(v.rawValue)'"
        case .variant(let inner): describe(inner)
        case .bytes(let bytes): "<\(bytes.count) bytes>"
        case .structure(let members): "(" + members.map(describe).joined(separator: ", ") + ")"
        case .dictEntry(let key, let value): describe(key) + ": " + describe(value)
        case .array(_, let items):
            if items.count > 8 && !full { "[" + items.prefix(8).map(describe).joined(separator: ", ") + ", … \(items.count) in all]" }
            else { "[" + items.map(describe).joined(separator: ", ") + "]" }
        }
    }
}
