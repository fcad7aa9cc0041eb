#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusCodec

/// A provider declared by a key file in `…/menubus/providers/`: what its
/// item is, and the D-Bus name that starts it. menubusd offers it while no
/// process of it runs and starts it through D-Bus activation when chosen.
///
/// ```
/// [MenuBus Provider]
/// Id=org.menubus.TextTransforms.Uppercase
/// Title=Make Uppercase
/// Title[ru]=Сделать прописными
/// Icon=format-text-uppercase
/// Role=
/// ContentTypes=text/plain;
/// ReturnsText=true
/// RequiresEditable=true
/// Shortcut=<Control><Alt>u
/// DBusName=org.menubus.TextTransforms
/// ObjectPath=/org/menubus/Provider
/// TryExec=menubus-provider
/// ShowIfExists=/usr/share/apertium/modes/*.mode
/// ```
package struct ProviderDeclaration: Sendable, Equatable {
    package static let group = "MenuBus Provider"
    static let defaultObjectPath = "/org/menubus/Provider"

    package var info: ProviderInfo
    /// The name whose owner answers `Process`; the bus starts it on demand.
    package var busName: String
    package var objectPath: ObjectPath
    /// The file it came from.
    package var file: String
    /// The untranslated title and its translations (`Title[ru]=`), by locale name.
    package var baseTitle = ""
    package var translatedTitles: [String: String] = [:]

    /// The title for `locales` (most specific first, as `KeyFile.locales`
    /// gives them), else the untranslated one.
    package func title(for locales: [String]) -> String {
        for locale in locales {
            if let title = translatedTitles[locale] { return title }
        }
        return baseTitle
    }

    /// A fault in a declaration: the line to look at and what is wrong.
    package struct Fault: Error, Sendable, CustomStringConvertible {
        package let line: Int
        package let message: String
        package var description: String { "line \(line): \(message)" }
    }

    /// Parses one key file. `locales` picks the title's translation;
    /// `isAvailable` answers `TryExec` and `ShowIfExists` (nil: the
    /// declaration is valid but its program or data is not installed).
    package static func parse(_ text: String, file: String, locales: [String],
                      isAvailable: (_ tryExec: String?, _ showIfExists: String?) -> Bool = ProviderDeclaration.installed)
        throws(Fault) -> ProviderDeclaration? {
        let keyFile: KeyFile
        do { keyFile = try KeyFile(parsing: text) } catch { throw Fault(line: error.line, message: error.message) }
        guard let group = keyFile.group(group) else {
            throw Fault(line: 1, message: "no [\(ProviderDeclaration.group)] group")
        }
        func required(_ key: String) throws(Fault) -> KeyFile.Entry {
            guard let entry = group.entry(key), !entry.value.isEmpty else {
                throw Fault(line: group.line, message: "[\(ProviderDeclaration.group)] needs \(key)=")
            }
            return entry
        }
        func boolean(_ key: String) throws(Fault) -> Bool {
            guard let entry = group.entry(key) else { return false }
            switch entry.value {
            case "true": return true
            case "false": return false
            default: throw Fault(line: entry.line, message: "\(key) must be true or false, not '\(entry.value)'")
            }
        }
        let id = try required("Id")
        let title = try required("Title")
        let localizedTitle = group.localized("Title", locales: locales) ?? title
        var info = ProviderInfo(id: id.value, title: localizedTitle.value)
        if let icon = group.entry("Icon"), !icon.value.isEmpty { info.icon = icon.value }
        if let role = group.entry("Role"), !role.value.isEmpty {
            guard let parsed = ProviderRole(rawValue: role.value) else {
                throw Fault(line: role.line, message: "Role must be one of \(ProviderRole.allCases.map(\.rawValue).joined(separator: ", ")) or empty, not '\(role.value)'")
            }
            info.role = parsed
        }
        if let types = group.entry("ContentTypes") {
            info.contentTypes = KeyFile.list(types.value)
            if info.contentTypes.isEmpty { throw Fault(line: types.line, message: "ContentTypes lists no type") }
            for type in info.contentTypes where !type.contains("/") {
                throw Fault(line: types.line, message: "'\(type)' in ContentTypes is not a MIME type")
            }
        }
        info.returnsText = try boolean("ReturnsText")
        info.requiresEditable = try boolean("RequiresEditable")
        let shortcut = group.entry("Shortcut")
        if let shortcut, !shortcut.value.isEmpty { info.shortcut = shortcut.value }
        do throws(ModelError) {
            try info.validate(idField: "Id", field: "")
        } catch {
            let line = switch error.field {
            case "Id": id.line
            case ".title": localizedTitle.line
            case ".shortcut": shortcut?.line ?? group.line
            default: group.line
            }
            // The key as the file spells it: `.content-types` is ContentTypes.
            let key = error.field == "Id" ? "Id" : error.field.dropFirst().split(separator: "-")
                .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            throw Fault(line: line, message: "\(key): \(error.message)")
        }
        let busName = try required("DBusName")
        guard Names.isValidBusName(busName.value), !busName.value.hasPrefix(":") else {
            throw Fault(line: busName.line, message: "'\(busName.value)' is not a well-known D-Bus name")
        }
        var path = ObjectPath(stringLiteral: defaultObjectPath)
        if let entry = group.entry("ObjectPath") {
            guard ObjectPath.isValid(entry.value) else {
                throw Fault(line: entry.line, message: "'\(entry.value)' is not a D-Bus object path")
            }
            path = ObjectPath(stringLiteral: entry.value)
        }
        guard isAvailable(group.entry("TryExec")?.value, group.entry("ShowIfExists")?.value) else { return nil }
        var declaration = ProviderDeclaration(info: info, busName: busName.value, objectPath: path, file: file)
        declaration.baseTitle = title.value
        for entry in group.entries where entry.key == "Title" {
            if let locale = entry.locale { declaration.translatedTitles[locale] = entry.value }
        }
        return declaration
    }

    /// `TryExec`: an absolute path that is executable, or a program on
    /// `PATH`. `ShowIfExists`: a path or glob that matches something.
    package static func installed(tryExec: String?, showIfExists: String?) -> Bool {
        if let tryExec, !tryExec.isEmpty {
            if tryExec.hasPrefix("/") {
                guard access(tryExec, X_OK) == 0 else { return false }
            } else {
                let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
                guard path.split(separator: ":").contains(where: { access("\($0)/\(tryExec)", X_OK) == 0 }) else {
                    return false
                }
            }
        }
        if let pattern = showIfExists, !pattern.isEmpty {
            var matches = glob_t()
            defer { globfree(&matches) }
            guard glob(pattern, 0, nil, &matches) == 0, matches.gl_pathc > 0 else { return false }
        }
        return true
    }
}
