import Foundation
import XCTest

/// A real GTK 3 program (mousepad, gedit) under `xvfb-run -a`, driven by
/// Tests/apps/gtk_app.py: keys and clicks through xdotool, and everything
/// read back through AT-SPI. One command a line in, one JSON answer a line out.
final class GtkAppDriver {
    /// The Debian programs the driver runs, with the packages that bring them.
    static let requirements: [(path: String, package: String)] = [
        ("/usr/bin/xvfb-run", "xvfb"), ("/usr/bin/xauth", "xauth"), ("/usr/bin/xdotool", "xdotool"),
        ("/usr/libexec/at-spi-bus-launcher", "at-spi2-core"), ("/usr/libexec/at-spi2-registryd", "at-spi2-core"),
        ("/usr/bin/python3", "python3"),
    ]
    static let apps = ["mousepad": "/usr/bin/mousepad", "gedit": "/usr/bin/gedit"]
    static let script = Repository.root.appendingPathComponent("Tests/apps/gtk_app.py")

    /// The MenuBus GTK 3 module as `make shims` builds it, and the GTK_PATH that finds it.
    static let moduleDirectory = Repository.root.appendingPathComponent(".build/shims/gtk3")
    static let moduleFile = moduleDirectory.appendingPathComponent("modules/libmenubus.so")

    /// One item of a menu, as AT-SPI gives it.
    struct Item: Equatable, CustomStringConvertible {
        /// The accessible name exactly as read (mousepad pads its items with spaces).
        let name: String
        /// The name without that padding.
        let label: String
        /// "menu item", "check", "radio", "separator" or "submenu".
        let role: String
        let sensitive: Bool
        /// Nil where AT-SPI says nothing (Qt names only a checked item's state).
        let checked: Bool?
        let children: [Item]

        init(_ json: [String: Any]) {
            name = json["name"] as? String ?? ""
            label = json["label"] as? String ?? ""
            role = json["role"] as? String ?? ""
            sensitive = json["sensitive"] as? Bool ?? false
            checked = json["checked"] as? Bool
            children = (json["children"] as? [[String: Any]] ?? []).map(Item.init)
        }

        var description: String {
            let base = role == "separator" ? "---" : "\(label)\(sensitive ? "" : " (insensitive)")"
            return children.isEmpty ? base : "\(base) [\(children.map(\.description).joined(separator: ", "))]"
        }
    }

    /// A popup menu once it showed: how it was opened and how long that took.
    struct OpenedMenu: CustomStringConvertible {
        let way: String
        let milliseconds: Double
        let items: [Item]

        var labels: [String] { items.filter { $0.role != "separator" }.map(\.label) }
        func item(_ label: String) -> Item? { items.first { $0.label == label } }
        /// The item `label` of the submenu `submenu`.
        func item(_ label: String, in submenu: String) -> Item? {
            item(submenu)?.children.first { $0.label == label }
        }
        /// Labels shown more than once at the menu's top level.
        var repeatedLabels: [String] {
            Dictionary(grouping: labels, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        }
        var description: String { items.map(\.description).joined(separator: " | ") }
    }

    let app: String
    private let process: Process
    private let output: RunningProcess
    private let input = Pipe()
    private var answered = 0
    private var driverPid: Int32 = 0
    /// The program's own process id.
    private(set) var appPid: Int32 = 0
    private(set) var timings: [String: Any] = [:]

    /// Starts `app` under xvfb-run with `environment` (the test bus's);
    /// with `module`, GTK_MODULES=menubus and GTK_PATH to find it. `script`:
    /// a driver that adds commands to gtk_app.py's (Tests/apps/undo_property.py).
    /// `wayland`: under a headless sway the driver starts, not xvfb-run (WaylandAppTests).
    init(app: String, module: Bool, environment: [String: String], timeout: Double = 60,
         script: URL = GtkAppDriver.script, wayland: Bool = false) throws {
        self.app = app
        BusTestCase.ignoreBrokenPipes
        var arguments = ["-a", "-s", "-screen 0 1024x768x24", "/usr/bin/python3", script.path, app, "--timeout", "15"]
        if module {
            arguments += ["--gtk-module", "menubus", "--gtk-path", Self.moduleDirectory.path]
        }
        if wayland { arguments = Array(arguments.dropFirst(4)) + ["--wayland"] }
        process = Process()
        process.executableURL = URL(fileURLWithPath: wayland ? "/usr/bin/python3" : "/usr/bin/xvfb-run")
        process.arguments = arguments
        var env = environment
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.removeValue(forKey: "NO_AT_BRIDGE")
        env.removeValue(forKey: "DISPLAY")
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        output = RunningProcess(process: process, stdout: out, stderr: err)
        try process.run()
        let ready = try next(timeout: timeout)
        guard ready["ready"] as? Bool == true else {
            stop()
            throw TestFailure("\(app) did not start under the driver: \(ready["error"] ?? ready)\n\(diagnostics)")
        }
        driverPid = (ready["driver_pid"] as? NSNumber)?.int32Value ?? 0
        appPid = (ready["pid"] as? NSNumber)?.int32Value ?? 0
        timings = ready["timings"] as? [String: Any] ?? [:]
    }

    deinit { stop() }

    /// Everything the driver, xvfb-run and the program wrote on stderr so far.
    var stderrText: String { output.stderrText }

    var diagnostics: String {
        let lines = output.stderrText.split(separator: "\n").filter {
            !$0.contains("dconf-WARNING") && !$0.contains("Negative content") && !$0.isEmpty
        }
        return "driver stderr (last lines):\n" + lines.suffix(30).joined(separator: "\n")
    }

    /// The next answer line, within `timeout` seconds.
    private func next(timeout: Double) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = output.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
            if lines.count > answered, output.stdoutText.hasSuffix("\n") || lines.count > answered + 1 {
                let line = lines[answered]
                answered += 1
                guard let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                    throw TestFailure("the driver answered no JSON: \(line)")
                }
                return json
            }
            if !output.isRunning {
                throw TestFailure("the driver ended (status \(process.terminationStatus)) without answering\n\(diagnostics)")
            }
            if Date() > deadline {
                throw TestFailure("the driver gave no answer within \(timeout) s\n\(diagnostics)")
            }
            usleep(5_000)
        }
    }

    /// Sends one command and returns its answer; throws when it failed.
    @discardableResult
    func send(_ command: String, timeout: Double = 40) throws -> [String: Any] {
        let answer = try attempt(command, timeout: timeout)
        guard answer["ok"] as? Bool == true else {
            throw TestFailure("\(app): '\(command)' failed: \(answer["error"] ?? answer)")
        }
        return answer
    }

    /// Sends one command and returns its answer, failed or not.
    func attempt(_ command: String, timeout: Double = 40) throws -> [String: Any] {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        return try next(timeout: timeout)
    }

    func focus(_ widget: String) throws { try send("focus \(widget)") }
    func type(_ text: String) throws { try send("type \(text)") }
    func clear() throws { try send("clear") }
    func key(_ keys: String) throws { try send("key \(keys)") }
    func closeMenu() throws { try send("close-menu") }

    /// Selects the word left of the caret from the keyboard; the selected text.
    func selectWordLeft() throws -> String {
        try send("select-word-left")["selection"] as? String ?? ""
    }

    /// Opens the focused widget's context menu (`shift+F10`, `menu-key`,
    /// `right-click`, or `auto`: Shift+F10, then a right click).
    func openMenu(_ way: String = "auto") throws -> OpenedMenu {
        let answer = try send("open-menu \(way)")
        return OpenedMenu(way: answer["way"] as? String ?? way, milliseconds: (answer["ms"] as? NSNumber)?.doubleValue ?? -1,
                          items: (answer["items"] as? [[String: Any]] ?? []).map(Item.init))
    }

    /// The items of the menu showing now, read again.
    func shownMenu() throws -> OpenedMenu {
        let answer = try send("menu")
        return OpenedMenu(way: "", milliseconds: -1, items: (answer["items"] as? [[String: Any]] ?? []).map(Item.init))
    }

    /// A popup menu something else opens (menubus-cli show-menu), once it shows.
    func awaitMenu() throws -> OpenedMenu {
        let answer = try send("await-menu")
        return OpenedMenu(way: "awaited", milliseconds: (answer["ms"] as? NSNumber)?.doubleValue ?? -1,
                          items: (answer["items"] as? [[String: Any]] ?? []).map(Item.init))
    }

    /// Activates the item named `name` (its exact name or its label) and waits for the menu to close.
    func choose(_ name: String) throws { try send("choose \(name)") }
    /// Another X client takes the clipboard with `text`.
    func setClipboard(_ text: String) throws { try send("set-clipboard \(text)") }
    /// Another X client takes the clipboard with `text`, then stops
    /// (SIGSTOP): whoever asks it for the clipboard waits in vain.
    func setStalledClipboard(_ text: String) throws { try send("set-stalled-clipboard \(text)") }

    /// Menus open on (and `doubleClick` clicks) the widget of that
    /// accessible name, without giving it the focus.
    func target(_ name: String) throws { try send("target \(name)") }
    /// A click on the middle of the widget of that accessible name (a tap).
    func click(_ name: String) throws { try send("click \(name)") }
    /// Press and hold on the widget of that accessible name until a menu shows.
    func hold(_ name: String) throws -> OpenedMenu {
        let answer = try send("hold \(name)")
        return OpenedMenu(way: "hold", milliseconds: (answer["ms"] as? NSNumber)?.doubleValue ?? -1,
                          items: (answer["items"] as? [[String: Any]] ?? []).map(Item.init))
    }
    /// The program's window title, read through AT-SPI.
    func title() throws -> String { try send("title")["title"] as? String ?? "" }
    /// A double click near the start of the target: the focus, and the word there selected.
    func doubleClick() throws { try send("double-click") }
    /// The edit bar's button labels, nil when no edit bar shows.
    func bar() throws -> [String]? { try send("bar")["bar"] as? [String] }
    /// Waits for the edit bar: its labels, and the milliseconds the driver waited.
    func awaitBar() throws -> (labels: [String], milliseconds: Double) {
        let reply = try send("await-bar")
        return (reply["bar"] as? [String] ?? [], reply["ms"] as? Double ?? 0)
    }
    /// Clicks the edit bar's button of that label.
    func chooseFromBar(_ label: String) throws { try send("choose-bar \(label)") }

    /// The text attributes at the start of `widget`'s selection, as AT-SPI gives them.
    func attributes(_ widget: String = "") throws -> [String: String] {
        try send("attributes \(widget)")["attributes"] as? [String: String] ?? [:]
    }

    /// `editor`, `search`, or the focused widget's text, read through AT-SPI's Text interface.
    func text(_ widget: String = "") throws -> String {
        try send("text \(widget)")["text"] as? String ?? ""
    }

    func selection(_ widget: String = "") throws -> String {
        try send("selection \(widget)")["selection"] as? String ?? ""
    }

    /// Milliseconds the program's main loop took to answer an AT-SPI query.
    func ping() throws -> Double {
        (try send("ping", timeout: 10)["ms"] as? NSNumber)?.doubleValue ?? -1
    }

    /// Quits the driver (which ends the program and the accessibility bus;
    /// xvfb-run then ends its X server); kills the driver if it lingers.
    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            // Killing the driver lets xvfb-run stop its X server; the
            // driver's children die with it (PR_SET_PDEATHSIG).
            if driverPid > 0 { kill(driverPid, SIGKILL) }
            let end = Date().addingTimeInterval(5)
            while process.isRunning && Date() < end { usleep(10_000) }
            if process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
    }
}
