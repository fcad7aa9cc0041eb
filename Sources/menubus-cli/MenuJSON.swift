import Foundation
import MenuBus

/// Menus as people write them: nested JSON, an array of elements
/// `{"id", "title", "type", "icon", "attributes", "state", "options", "children": [...]}`
/// (also "subtitle", "shortcut", "command", "element-size", "cached").
/// A file is that array, or an object with "items" and optionally
/// "context-id", "context" (the `a{sv}` keys as JSON) and "app".
enum MenuJSON {
    struct Document {
        var appId: String?
        var contextId: String?
        var context: ContextInfo?
        var items: [MenuElement]
    }

    static func read(file path: String) throws -> Document {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read \(path)")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw CommandFailure("\(path) is not valid JSON: \((error as NSError).localizedDescription)")
        }
        do {
            return try document(object)
        } catch let error as FieldError {
            throw CommandFailure("\(path): \(error.field): \(error.message)")
        }
    }

    struct FieldError: Error {
        let field: String
        let message: String
    }

    static func document(_ object: Any) throws -> Document {
        if let array = object as? [Any] {
            return Document(items: try elements(array, parent: "", field: "items"))
        }
        guard let dict = object as? [String: Any] else {
            throw FieldError(field: "(top)", message: "expected an array of elements or an object with \"items\"")
        }
        for key in dict.keys where !["items", "context-id", "context", "app"].contains(key) {
            throw FieldError(field: key, message: "unknown key (expected items, context-id, context, app)")
        }
        guard let items = dict["items"] as? [Any] else {
            throw FieldError(field: "items", message: "expected an array of elements")
        }
        var document = Document(items: try elements(items, parent: "", field: "items"))
        document.appId = try string(dict["app"], "app")
        document.contextId = try string(dict["context-id"], "context-id")
        if let context = dict["context"] {
            document.context = try contextInfo(context)
        }
        return document
    }

    private static func elements(_ array: [Any], parent: String, field: String) throws -> [MenuElement] {
        var result: [MenuElement] = []
        for (index, item) in array.enumerated() {
            let path = "\(field)[\(index)]"
            guard let dict = item as? [String: Any] else { throw FieldError(field: path, message: "expected an object") }
            let known: Set<String> = ["id", "title", "subtitle", "type", "icon", "attributes", "state", "shortcut",
                                      "command", "options", "element-size", "cached", "children"]
            for key in dict.keys where !known.contains(key) {
                throw FieldError(field: "\(path).\(key)", message: "unknown key")
            }
            guard let id = try string(dict["id"], "\(path).id") else { throw FieldError(field: "\(path).id", message: "required") }
            let kindName = try string(dict["type"], "\(path).type") ?? (dict["children"] != nil ? "menu" : "action")
            guard let kind = MenuElement.Kind(rawValue: kindName) else {
                throw FieldError(field: "\(path).type", message: "'\(kindName)' is not action, menu or deferred")
            }
            var element = MenuElement(id: id, parent: parent, kind: kind)
            element.title = try string(dict["title"], "\(path).title")
            element.subtitle = try string(dict["subtitle"], "\(path).subtitle")
            element.icon = try string(dict["icon"], "\(path).icon")
            element.shortcut = try string(dict["shortcut"], "\(path).shortcut")
            element.attributes = Set(try enumList(dict["attributes"], "\(path).attributes", MenuElement.Attribute.self))
            element.options = Set(try enumList(dict["options"], "\(path).options", MenuElement.MenuOption.self))
            if let state = try string(dict["state"], "\(path).state") {
                guard let value = MenuElement.State(rawValue: state) else {
                    throw FieldError(field: "\(path).state", message: "'\(state)' is not off, on or mixed")
                }
                element.state = value
            }
            if let command = try string(dict["command"], "\(path).command") {
                guard let value = StandardCommand(rawValue: command) else {
                    throw FieldError(field: "\(path).command", message: "'\(command)' is not a standard command")
                }
                element.command = value
            }
            if let size = try string(dict["element-size"], "\(path).element-size") {
                guard let value = MenuElement.ElementSize(rawValue: size) else {
                    throw FieldError(field: "\(path).element-size", message: "'\(size)' is not small, medium or large")
                }
                element.elementSize = value
            }
            if let cached = dict["cached"] {
                guard let flag = cached as? Bool else { throw FieldError(field: "\(path).cached", message: "expected true or false") }
                element.cached = flag
            }
            result.append(element)
            if let children = dict["children"] {
                guard let array = children as? [Any] else {
                    throw FieldError(field: "\(path).children", message: "expected an array")
                }
                result += try elements(array, parent: id, field: "\(path).children")
            }
        }
        return result
    }

    private static func contextInfo(_ object: Any) throws -> ContextInfo {
        guard let dict = object as? [String: Any] else { throw FieldError(field: "context", message: "expected an object") }
        var info = ContextInfo()
        if let kind = try string(dict["kind"], "context.kind") {
            guard let value = ContextInfo.Kind(rawValue: kind) else {
                throw FieldError(field: "context.kind", message: "'\(kind)' is not text, image, file, url or item")
            }
            info.kind = value
        }
        info.contentTypes = try stringList(dict["content-types"], "context.content-types")
        info.editable = try bool(dict["editable"], "context.editable") ?? false
        info.hasContent = try bool(dict["has-content"], "context.has-content") ?? false
        info.richText = try bool(dict["rich-text"], "context.rich-text") ?? false
        info.document = try string(dict["document"], "context.document")
        info.title = try string(dict["title"], "context.title")
        if dict["supported-commands"] != nil {
            info.supportedCommands = Set(try enumList(dict["supported-commands"], "context.supported-commands", StandardCommand.self))
        }
        return info
    }

    private static func string(_ value: Any?, _ field: String) throws -> String? {
        guard let value else { return nil }
        guard let text = value as? String else { throw FieldError(field: field, message: "expected a string") }
        return text
    }

    private static func bool(_ value: Any?, _ field: String) throws -> Bool? {
        guard let value else { return nil }
        guard let flag = value as? Bool else { throw FieldError(field: field, message: "expected true or false") }
        return flag
    }

    private static func stringList(_ value: Any?, _ field: String) throws -> [String] {
        guard let value else { return [] }
        guard let list = value as? [String] else { throw FieldError(field: field, message: "expected an array of strings") }
        return list
    }

    private static func enumList<E: RawRepresentable & CaseIterable>(_ value: Any?, _ field: String, _: E.Type) throws -> [E]
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
    static func write(_ elements: [MenuElement], indent: String = "  ") -> String {
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
                if element.kind == .deferred && !element.cached { fields.append("\"cached\": false") }
                if children[element.id] != nil {
                    fields.append("\"children\": " + render(element.id, pad + indent + indent))
                }
                return pad + indent + "{" + fields.joined(separator: ", ") + "}"
            }
            return items.isEmpty ? "[]" : "[\n" + items.joined(separator: ",\n") + "\n" + pad + "]"
        }
        return render("", "")
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
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
        return out + "\""
    }
}
