#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusModel
import MenuBusSupport

/// Menus as people write them: nested JSON, an array of elements
/// `{"id", "title", "type", "icon", "attributes", "state", "options", "children": [...]}`
/// (also "subtitle", "shortcut", "command", "element-size", "cached").
/// A file is that array, or an object with "items" and optionally
/// "context-id", "context" (the `a{sv}` keys as JSON, a preview's PNG in
/// base64), "selection", "app"
/// and what `menu --json` adds ("kind", "revision", "composed", read and
/// ignored but for "kind", which `lint` checks by). A deferred element may
/// carry its content inline as "provides": an array of elements.
enum MenuJSON {
    struct Document {
        var appId: String?
        var contextId: String?
        var kind: MenuKind?
        var context: ContextInfo?
        var selection: Selection?
        var items: [MenuElement]
        /// Content for deferred elements, by element id.
        var fills: [String: [MenuElement]] = [:]
        /// The menu menubusd composed from it, as `menu --json` writes it.
        var composed: [MenuElement]?
    }

    static let documentKeys = ["app", "context-id", "kind", "revision", "context", "selection", "items", "composed"]

    /// The bytes of `path` ("-": standard input); a failure says why, as
    /// cat(1) would ("cannot read menu.json: No such file or directory").
    static func contents(of path: String) throws -> [UInt8] {
        func failure() -> CommandFailure { CommandFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure() }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure()
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    static func read(file path: String) throws -> Document {
        let bytes = try contents(of: path)
        let object: JSON
        do {
            object = try JSONSyntax.parse(bytes)
        } catch {
            let place = JSONSyntax.describe(error, in: bytes)
            throw CommandFailure("\(path == "-" ? "standard input" : path) is not valid JSON: \(place)")
        }
        problems = []
        defer { problems = [] }
        var result: Document?
        soft { result = try document(object) }
        guard let result, problems.isEmpty else {
            // One line each, every one of them: "FILE: field: message".
            throw CommandFailure(problems.map { "\(path): \($0.field): \($0.message)" }.joined(separator: "\nmenubus-cli: "))
        }
        return result
    }

    typealias JSON = JSONSyntax.Value

    struct FieldError: Error {
        let field: String
        let message: String
    }

    /// Schema errors found so far in the document being read: every one is
    /// reported, not only the first.
    nonisolated(unsafe) private static var problems: [FieldError] = []

    /// Runs one field's check; a failure is recorded and reading goes on.
    private static func soft(_ body: () throws -> Void) {
        do {
            try body()
        } catch let error as FieldError {
            problems.append(error)
        } catch {
            problems.append(FieldError(field: "(top)", message: "\(error)"))
        }
    }

    static func document(_ object: JSON) throws -> Document {
        var fills: [String: [MenuElement]] = [:]
        if case .array(let array) = object {
            var document = Document(items: try elements(array, parent: "", field: "items", fills: &fills))
            document.fills = fills
            return document
        }
        guard case .object(let dict) = object else {
            throw FieldError(field: "(top)", message: "expected an array of elements or an object with \"items\"")
        }
        for key in dict.keys.sorted() where !documentKeys.contains(key) {
            problems.append(FieldError(field: key, message: "unknown key (expected \(documentKeys.joined(separator: ", ")))"))
        }
        guard case .array(let items)? = dict["items"] else {
            throw FieldError(field: "items", message: "expected an array of elements")
        }
        var document = Document(items: try elements(items, parent: "", field: "items", fills: &fills))
        document.fills = fills
        soft { document.appId = try string(dict["app"], "app") }
        soft { document.contextId = try string(dict["context-id"], "context-id") }
        if let kind = try string(dict["kind"], "kind") {
            guard let value = MenuKind(rawValue: kind) else {
                throw FieldError(field: "kind", message: "'\(kind)' is not context or edit")
            }
            document.kind = value
        }
        if let composed = dict["composed"] {
            guard case .array(let list) = composed else { throw FieldError(field: "composed", message: "expected an array of elements") }
            var ignored: [String: [MenuElement]] = [:]
            document.composed = try elements(list, parent: "", field: "composed", fills: &ignored)
        }
        if let revision = dict["revision"] {
            guard case .number = revision else { throw FieldError(field: "revision", message: "expected a number") }
        }
        if let context = dict["context"] {
            document.context = try contextInfo(context)
        }
        if let selection = dict["selection"] {
            document.selection = try selectionInfo(selection)
        }
        return document
    }

    /// Reads `--fill ID=FILE`: the file's items answer deferred element ID.
    static func fill(_ argument: String) throws -> (String, [MenuElement]) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw UsageError("--fill needs ID=FILE")
        }
        let id = String(argument[..<equals])
        let file = String(argument[argument.index(after: equals)...])
        return (id, try read(file: file).items)
    }

    private static func elements(_ array: [JSON], parent: String, field: String) throws -> [MenuElement] {
        var fills: [String: [MenuElement]] = [:]
        let result = try elements(array, parent: parent, field: field, fills: &fills)
        if let id = fills.keys.sorted().first {
            throw FieldError(field: "\(field): \(id).provides", message: "provided content cannot provide again")
        }
        return result
    }

    private static func elements(_ array: [JSON], parent: String, field: String,
                                 fills: inout [String: [MenuElement]]) throws -> [MenuElement] {
        var result: [MenuElement] = []
        for (index, item) in array.enumerated() {
            soft {
                let path = "\(field)[\(index)]"
                guard case .object(let dict) = item else { throw FieldError(field: path, message: "expected an object") }
                let known: Set<String> = ["id", "title", "subtitle", "type", "icon", "attributes", "state", "shortcut",
                                          "command", "options", "element-size", "cached", "children", "provides"]
                for key in dict.keys.sorted() where !known.contains(key) {
                    problems.append(FieldError(field: "\(path).\(key)", message: "unknown key"))
                }
                guard let id = try string(dict["id"], "\(path).id") else { throw FieldError(field: "\(path).id", message: "required") }
                let kindName = try string(dict["type"], "\(path).type") ?? (dict["children"] != nil ? "menu" : "action")
                guard let kind = MenuElement.Kind(rawValue: kindName) else {
                    throw FieldError(field: "\(path).type", message: "'\(kindName)' is not action, menu or deferred")
                }
                var element = MenuElement(id: id, parent: parent, kind: kind)
                soft { element.title = try string(dict["title"], "\(path).title") }
                soft { element.subtitle = try string(dict["subtitle"], "\(path).subtitle") }
                soft { element.icon = try string(dict["icon"], "\(path).icon") }
                soft { element.shortcut = try string(dict["shortcut"], "\(path).shortcut") }
                soft { element.attributes = Set(try enumList(dict["attributes"], "\(path).attributes", MenuElement.Attribute.self)) }
                soft { element.options = Set(try enumList(dict["options"], "\(path).options", MenuElement.MenuOption.self)) }
                soft {
                    if let state = try string(dict["state"], "\(path).state") {
                        guard let value = MenuElement.State(rawValue: state) else {
                            throw FieldError(field: "\(path).state", message: "'\(state)' is not off, on or mixed")
                        }
                        element.state = value
                    }
                }
                soft {
                    if let command = try string(dict["command"], "\(path).command") {
                        guard let value = StandardCommand(rawValue: command) else {
                            throw FieldError(field: "\(path).command", message: "'\(command)' is not a standard command")
                        }
                        element.command = value
                    }
                }
                soft {
                    if let size = try string(dict["element-size"], "\(path).element-size") {
                        guard let value = MenuElement.ElementSize(rawValue: size) else {
                            throw FieldError(field: "\(path).element-size", message: "'\(size)' is not small, medium or large")
                        }
                        element.elementSize = value
                    }
                }
                soft {
                    if let cached = dict["cached"] {
                        guard case .bool(let flag) = cached else { throw FieldError(field: "\(path).cached", message: "expected true or false") }
                        element.cached = flag
                    }
                }
                soft {
                    if let provides = dict["provides"] {
                        guard kind == .deferred else {
                            throw FieldError(field: "\(path).provides", message: "only a deferred element provides content")
                        }
                        guard case .array(let array) = provides else {
                            throw FieldError(field: "\(path).provides", message: "expected an array of elements")
                        }
                        fills[id] = try elements(array, parent: "", field: "\(path).provides")
                    }
                }
                result.append(element)
                soft {
                    if let children = dict["children"] {
                        guard case .array(let array) = children else {
                            throw FieldError(field: "\(path).children", message: "expected an array")
                        }
                        result += try elements(array, parent: id, field: "\(path).children", fills: &fills)
                    }
                }
            }
        }
        return result
    }

    private static func contextInfo(_ object: JSON) throws -> ContextInfo {
        guard case .object(let dict) = object else { throw FieldError(field: "context", message: "expected an object") }
        var info = ContextInfo()
        soft {
            if let kind = try string(dict["kind"], "context.kind") {
                guard let value = ContextInfo.Kind(rawValue: kind) else {
                    let kinds = ContextInfo.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw FieldError(field: "context.kind", message: "'\(kind)' is not one of \(kinds)")
                }
                info.kind = value
            }
        }
        soft { info.contentTypes = try stringList(dict["content-types"], "context.content-types") }
        soft { info.editable = try bool(dict["editable"], "context.editable") ?? false }
        soft { info.hasContent = try bool(dict["has-content"], "context.has-content") ?? false }
        soft { info.richText = try bool(dict["rich-text"], "context.rich-text") ?? false }
        soft { info.document = try string(dict["document"], "context.document") }
        soft { info.title = try string(dict["title"], "context.title") }
        soft {
            if dict["supported-commands"] != nil {
                info.supportedCommands = Set(try enumList(dict["supported-commands"], "context.supported-commands", StandardCommand.self))
            }
        }
        soft { info.enabled = try bool(dict["enabled"], "context.enabled") ?? true }
        soft { if let value = dict["preview"] { info.preview = try preview(value) } }
        soft { info.primaryAction = try string(dict["primary-action"], "context.primary-action") }
        soft { info.menuIsPrimaryAction = try bool(dict["menu-is-primary-action"], "context.menu-is-primary-action") ?? false }
        for key in dict.keys.sorted() where !contextKeys.contains(key) {
            problems.append(FieldError(field: "context.\(key)", message: "unknown key (expected \(contextKeys.joined(separator: ", ")))"))
        }
        return info
    }

    static let contextKeys = ["kind", "content-types", "editable", "has-content", "rich-text", "document",
                              "supported-commands", "title", "enabled", "preview", "primary-action",
                              "menu-is-primary-action"]
    static let previewKeys = ["title", "subtitle", "image-uri", "icon", "image-png"]

    /// A context's `preview`: its `a{sv}` keys, a PNG as base64.
    private static func preview(_ object: JSON) throws -> ContextPreview {
        guard case .object(let dict) = object else { throw FieldError(field: "context.preview", message: "expected an object") }
        for key in dict.keys.sorted() where !previewKeys.contains(key) {
            problems.append(FieldError(field: "context.preview.\(key)",
                                       message: "unknown key (expected \(previewKeys.joined(separator: ", ")))"))
        }
        guard let title = try string(dict["title"], "context.preview.title") else {
            throw FieldError(field: "context.preview.title", message: "a preview needs a title")
        }
        var preview = ContextPreview(title: title, subtitle: try string(dict["subtitle"], "context.preview.subtitle"))
        if let uri = try string(dict["image-uri"], "context.preview.image-uri") { preview.image = .uri(uri) }
        if let icon = try string(dict["icon"], "context.preview.icon") { preview.image = .icon(icon) }
        if let png = try string(dict["image-png"], "context.preview.image-png") {
            guard let bytes = Base64.decode(png) else {
                throw FieldError(field: "context.preview.image-png", message: "expected the PNG's bytes in base64")
            }
            preview.image = .png(bytes)
        }
        return preview
    }
    static let selectionKeys = ["kind", "length", "text", "attributes", "pasteboard-types", "rect", "focused"]

    private static func selectionInfo(_ object: JSON) throws -> Selection {
        guard case .object(let dict) = object else { throw FieldError(field: "selection", message: "expected an object") }
        for key in dict.keys.sorted() where !selectionKeys.contains(key) {
            problems.append(FieldError(field: "selection.\(key)", message: "unknown key (expected \(selectionKeys.joined(separator: ", ")))"))
        }
        var selection = Selection()
        soft {
            if let kind = try string(dict["kind"], "selection.kind") {
                guard let value = Selection.Kind(rawValue: kind) else {
                    throw FieldError(field: "selection.kind", message: "'\(kind)' is not none, caret, range or all")
                }
                selection.kind = value
            }
        }
        soft {
            if let length = dict["length"] {
                guard case .number(let number) = length, let value = UInt32(exactly: number) else {
                    throw FieldError(field: "selection.length", message: "expected a whole number from 0 to 4294967295")
                }
                selection.length = value
            }
        }
        soft { selection.text = try string(dict["text"], "selection.text") }
        soft { selection.attributes = Set(try enumList(dict["attributes"], "selection.attributes", Selection.TextAttribute.self)) }
        soft { selection.pasteboardTypes = try stringList(dict["pasteboard-types"], "selection.pasteboard-types") }
        soft { selection.focused = try bool(dict["focused"], "selection.focused") ?? false }
        soft {
            if let rect = dict["rect"] {
                guard case .object(let fields) = rect else {
                    throw FieldError(field: "selection.rect", message: "expected {\"x\", \"y\", \"width\", \"height\"}")
                }
                func int(_ key: String) throws -> Int32 {
                    guard case .number(let number)? = fields[key], let value = Int32(exactly: number) else {
                        throw FieldError(field: "selection.rect.\(key)", message: "expected a 32-bit whole number")
                    }
                    return value
                }
                selection.rect = Rect(x: try int("x"), y: try int("y"), width: try int("width"), height: try int("height"))
            }
        }
        return selection
    }

    private static func string(_ value: JSON?, _ field: String) throws -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw FieldError(field: field, message: "expected a string") }
        return text
    }

    private static func bool(_ value: JSON?, _ field: String) throws -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else { throw FieldError(field: field, message: "expected true or false") }
        return flag
    }

    private static func stringList(_ value: JSON?, _ field: String) throws -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw FieldError(field: field, message: "expected an array of strings") }
        return try items.map { item in
            guard case .string(let text) = item else { throw FieldError(field: field, message: "expected an array of strings") }
            return text
        }
    }

    private static func enumList<E: RawRepresentable & CaseIterable>(_ value: JSON?, _ field: String, _: E.Type) throws -> [E]
    where E.RawValue == String {
        try stringList(value, field).map { name in
            guard let item = E(rawValue: name) else {
                let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
                throw FieldError(field: field, message: "'\(name)' is not one of \(allowed)")
            }
            return item
        }
    }

    // MARK: Writing

    /// The nested JSON form of a flat element list, keys in a fixed order.
    /// `indent` nil: all on one line (for JSON Lines streams).
    static func write(_ elements: [MenuElement], indent: String? = "  ") -> String {
        let oneLine = indent == nil
        let indent = indent ?? ""
        var children: [String: [MenuElement]] = [:]
        for element in elements { children[element.parent, default: []].append(element) }
        func render(_ parent: String, _ pad: String) -> String {
            let items = (children[parent] ?? []).map { element -> String in
                var fields: [String] = ["\"id\": \(quote(element.id))"]
                if let title = element.title { fields.append("\"title\": \(quote(title))") }
                if let subtitle = element.subtitle { fields.append("\"subtitle\": \(quote(subtitle))") }
                if element.kind != .action { fields.append("\"type\": \(quote(element.kind.rawValue))") }
                if let icon = element.icon { fields.append("\"icon\": \(quote(icon))") }
                let attributes = MenuElement.Attribute.allCases.filter { element.has($0) }
                if !attributes.isEmpty { fields.append("\"attributes\": [\(attributes.map { quote($0.rawValue) }.joined(separator: ", "))]") }
                if element.state != .off { fields.append("\"state\": \(quote(element.state.rawValue))") }
                if let shortcut = element.shortcut { fields.append("\"shortcut\": \(quote(shortcut))") }
                if let command = element.command { fields.append("\"command\": \(quote(command.rawValue))") }
                let options = MenuElement.MenuOption.allCases.filter { element.has($0) }
                if !options.isEmpty { fields.append("\"options\": [\(options.map { quote($0.rawValue) }.joined(separator: ", "))]") }
                if let size = element.elementSize { fields.append("\"element-size\": \(quote(size.rawValue))") }
                if !element.cached { fields.append("\"cached\": false") }  // as the wire writes it, valid or not
                if children[element.id] != nil {
                    fields.append("\"children\": " + render(element.id, pad + indent + indent))
                }
                return (oneLine ? "" : pad + indent) + "{" + fields.joined(separator: ", ") + "}"
            }
            if oneLine { return "[" + items.joined(separator: ", ") + "]" }
            return items.isEmpty ? "[]" : "[\n" + items.joined(separator: ",\n") + "\n" + pad + "]"
        }
        return render("", "")
    }

    /// The context's keys, those that differ from the defaults but `kind`, in a fixed order.
    static func write(_ info: ContextInfo) -> String {
        var fields = ["\"kind\": \(quote(info.kind.rawValue))"]
        if !info.contentTypes.isEmpty { fields.append("\"content-types\": \(list(info.contentTypes))") }
        if info.editable { fields.append("\"editable\": true") }
        if info.hasContent { fields.append("\"has-content\": true") }
        if info.richText { fields.append("\"rich-text\": true") }
        if let document = info.document { fields.append("\"document\": \(quote(document))") }
        if let commands = info.supportedCommands {
            fields.append("\"supported-commands\": \(list(StandardCommand.allCases.filter(commands.contains).map(\.rawValue)))")
        }
        if let title = info.title { fields.append("\"title\": \(quote(title))") }
        if !info.enabled { fields.append("\"enabled\": false") }
        if let preview = info.preview { fields.append("\"preview\": " + write(preview)) }
        if let primaryAction = info.primaryAction { fields.append("\"primary-action\": \(quote(primaryAction))") }
        if info.menuIsPrimaryAction { fields.append("\"menu-is-primary-action\": true") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// A preview's keys, a PNG as base64.
    static func write(_ preview: ContextPreview) -> String {
        var keys = ["\"title\": \(quote(preview.title))"]
        if let subtitle = preview.subtitle { keys.append("\"subtitle\": \(quote(subtitle))") }
        switch preview.image {
        case .uri(let uri): keys.append("\"image-uri\": \(quote(uri))")
        case .icon(let name): keys.append("\"icon\": \(quote(name))")
        case .png(let bytes): keys.append("\"image-png\": \(quote(Base64.encode(bytes)))")
        case nil: break
        }
        return "{" + keys.joined(separator: ", ") + "}"
    }

    /// The selection's keys, those that differ from the defaults but `kind`, in a fixed order.
    static func write(_ selection: Selection) -> String {
        var fields = ["\"kind\": \(quote(selection.kind.rawValue))"]
        if selection.length != 0 { fields.append("\"length\": \(selection.length)") }
        if let text = selection.text { fields.append("\"text\": \(quote(text))") }
        if !selection.attributes.isEmpty {
            fields.append("\"attributes\": \(list(Selection.TextAttribute.allCases.filter(selection.attributes.contains).map(\.rawValue)))")
        }
        if !selection.pasteboardTypes.isEmpty { fields.append("\"pasteboard-types\": \(list(selection.pasteboardTypes))") }
        if let rect = selection.rect {
            fields.append("\"rect\": {\"x\": \(rect.x), \"y\": \(rect.y), \"width\": \(rect.width), \"height\": \(rect.height)}")
        }
        if selection.focused { fields.append("\"focused\": true") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    static func list(_ names: [String]) -> String {
        "[" + names.map(quote).joined(separator: ", ") + "]"
    }

    static func quote(_ text: String) -> String { quote(text, mark: "\"") }

    /// `text` between `mark`s, with backslash escapes for the mark, the
    /// backslash and control characters: JSON's strings, and GVariant
    /// text's with either quote.
    static func quote(_ text: String, mark: Unicode.Scalar) -> String {
        var out = String(mark)
        for scalar in text.unicodeScalars {
            switch scalar {
            case mark: out += "\\" + String(mark)
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + String(mark)
    }
}
