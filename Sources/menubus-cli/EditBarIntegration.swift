import MenuBusSupport

/// `menubus-cli integrate edit-bar`: turns the edit bar (a compact bar of
/// edit commands and providers over a selection made with the pointer,
/// drawn by the shims) on or off, for every app or for the programs named,
/// in the `[Edit Bar]` group of `$XDG_CONFIG_HOME/menubus/integration.conf`.
/// Every other line of the file stays as it was. Needs no daemon; apps
/// read the file when they start.
enum EditBarIntegration {
    /// The operand of `integrate` that means this.
    static let word = "edit-bar"
    static let group = "Edit Bar"

    /// What `[Edit Bar]` says: on for every program, and the programs named.
    struct Setting: Equatable {
        var everyApp = false
        var apps: [String] = []
    }

    static func path(_ environment: [String: String]) -> String {
        let home = environment["HOME"] ?? "/tmp"
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return config + "/menubus/integration.conf"
    }

    private static func lines(of text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The group's lines: where it starts (its header's index) and ends.
    private static func groupRange(_ lines: [String]) -> Range<Int>? {
        guard let header = lines.firstIndex(where: { $0.trimmingWhitespace() == "[\(group)]" }) else {
            return nil
        }
        let end = lines[(header + 1)...].firstIndex { $0.trimmingWhitespace().hasPrefix("[") } ?? lines.count
        return header..<end
    }

    private static func value(_ line: String, _ key: String) -> String? {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, String(parts[0]).trimmingWhitespace() == key else { return nil }
        return String(String(parts[1]).trimmingWhitespace())
    }

    static func read(_ text: String) -> Setting {
        let lines = lines(of: text)
        var setting = Setting()
        guard let range = groupRange(lines) else { return setting }
        for line in lines[range] {
            if let enabled = value(line, "Enabled") { setting.everyApp = enabled == "true" }
            if let apps = value(line, "Apps") {
                setting.apps = apps.split(separator: ";").map { String(String($0).trimmingWhitespace()) }.filter { !$0.isEmpty }
            }
        }
        return setting
    }

    /// `text` with the group saying `setting`: the group's other lines and
    /// every other group as they were; the group goes when it says nothing.
    static func write(_ setting: Setting, into text: String) -> String {
        var lines = text.isEmpty ? [] : lines(of: text)
        if lines.last == "" { lines.removeLast() }
        var body: [String] = []
        if let range = groupRange(lines) {
            body = lines[range].dropFirst().filter { value($0, "Enabled") == nil && value($0, "Apps") == nil }
            while body.last?.trimmingWhitespace().isEmpty == true { body.removeLast() }
            lines.removeSubrange(range)
        }
        if setting.everyApp { body.append("Enabled=true") }
        if !setting.apps.isEmpty { body.append("Apps=" + setting.apps.map { $0 + ";" }.joined()) }
        if !body.isEmpty {
            if let last = lines.last, !last.trimmingWhitespace().isEmpty { lines.append("") }
            lines += ["[\(group)]"] + body
        }
        while lines.last?.trimmingWhitespace().isEmpty == true { lines.removeLast() }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        _ = arguments.remove(word)
        let action = try Integrate.Action.take(from: &arguments) ?? .status
        let app = try arguments.option("--app")
        try arguments.finish()
        if let app {
            guard action != .status else { throw UsageError("--app goes with --enable or --disable") }
            guard !app.isEmpty, !app.contains(where: { $0 == ";" || $0 == "\n" || $0 == "=" || $0 == "/" }) else {
                throw UsageError("--app: '\(app)' is not a program name (as g_get_prgname gives it: mousepad, featherpad)")
            }
        }
        let file = path(Files.environment())
        let text: String
        do {
            text = try Files.contents(file, maxBytes: 1 << 20).map { String(decoding: $0, as: UTF8.self) } ?? ""
        } catch {
            throw CommandFailure("cannot read \(file): \(error.problem)")
        }
        var setting = read(text)
        let before = setting
        switch (action, app) {
        case (.enable, nil): setting.everyApp = true
        case (.enable, let app?): if !setting.apps.contains(app) { setting.apps.append(app) }
        case (.disable, nil): setting = Setting()
        case (.disable, let app?): setting.apps.removeAll { $0 == app }
        case (.status, _): break
        }
        if setting != before {
            do {
                try Files.makeDirectories(Files.parent(of: file))
                try Files.writeAtomically(Array(write(setting, into: text).utf8), to: file)
            } catch {
                throw CommandFailure("cannot write \(file): \(error.problem)")
            }
        }
        if options.json {
            let apps = setting.apps.map { MenuJSON.quote($0) }.joined(separator: ", ")
            Output.out("{\"every-app\": \(setting.everyApp), \"apps\": [\(apps)], \"file\": \(MenuJSON.quote(file))}\n")
            return 0
        }
        let state = setting.everyApp ? "on for every app"
            : setting.apps.isEmpty ? "off (the default)" : "on for \(setting.apps.joined(separator: ", "))"
        let change = setting == before ? (action == .status ? "" : " (unchanged)") : " (wrote \(file))"
        Output.out("Edit bar: \(state)\(change)\n")
        if setting != before { Output.out("Apps started from now on read it.\n") }
        return 0
    }
}
