import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Who may choose from a menu, and what a sandboxed app may reach. The
/// sandboxed caller is simulated: menubus-cli in its own mount namespace
/// under a root with a /.flatpak-info (Tests/sandbox/run-sandboxed, as root).
final class TrustModelTests: BusTestCase {
    private let field = ContextInfo(kind: .text, editable: true, hasContent: true)

    private func editorWithSelection() throws -> MenuBusClient {
        let editor = try app("org.example.Editor")
        try editor.publishContext("doc", field)
        try editor.updateSelection("doc", Selection(kind: .range, length: 5, text: "hello"))
        return editor
    }

    // MARK: Choosing

    func testOnlyThePresenterOrTheOwnerMayActivate() throws {
        _ = try startDaemon()
        let editor = try editorWithSelection()
        var commands: [CommandInvocation] = []
        editor.onCommand = { commands.append($0) }
        let shell = try client()
        let bystander = try connect()
        let menu = try shell.present(owner: "org.example.Editor", contextId: "doc", kind: .edit)
        let denied = assertBusError(BusError.Domain.accessDenied.errorName) {
            _ = try callDaemon(bystander, path: menu.path, interface: MenuBusNames.menuInterface, "Activate",
                               [.string("menubus:copy"), .array("{sv}", [])])
        }
        XCTAssertTrue(denied?.message.contains("presented") == true, denied?.message ?? "")
        assertBusError(BusError.Domain.accessDenied.errorName) {
            _ = try callDaemon(bystander, path: menu.path, interface: MenuBusNames.menuInterface, "Dismiss")
        }
        // The refusal changed nothing: the presenter still chooses.
        try shell.activate(menu, itemId: "menubus:copy")
        XCTAssertTrue(editor.run(until: { commands.count == 1 }, timeout: 5))
        // And the owner may choose from a menu someone else presented.
        let second = try shell.present(owner: "org.example.Editor", contextId: "doc", kind: .edit)
        try editor.activate(second, itemId: "menubus:copy")
        XCTAssertTrue(editor.run(until: { commands.count == 2 }, timeout: 5))
    }

    func testEveryProtocolsActivationHasTheSameRule() throws {
        _ = try startDaemon()
        let editor = try editorWithSelection()
        var commands: [CommandInvocation] = []
        editor.onCommand = { commands.append($0) }
        let shell = try client()
        let bystander = try connect()
        let menu = try shell.present(owner: "org.example.Editor", contextId: "doc", kind: .edit)
        // com.canonical.dbusmenu Event, with the id GetLayout gives Copy.
        let layout = try callDaemon(bystander, path: menu.path, interface: "com.canonical.dbusmenu", "GetLayout",
                                    [.int32(0), .int32(-1), .array("s", [])])
        let copyId = try XCTUnwrap(Self.dbusmenuId(of: "Copy", in: layout))
        assertBusError(BusError.Domain.accessDenied.errorName) {
            _ = try callDaemon(bystander, path: menu.path, interface: "com.canonical.dbusmenu", "Event",
                               [.int32(copyId), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        }
        // org.gtk.Actions Activate.
        let actions = try callDaemon(bystander, path: menu.path, interface: "org.gtk.Actions", "List")
        guard case .array(_, let names)? = actions.first, let first = names.first, case .string(let action) = first else {
            return XCTFail("no actions: \(actions)")
        }
        assertBusError(BusError.Domain.accessDenied.errorName) {
            _ = try callDaemon(bystander, path: menu.path, interface: "org.gtk.Actions", "Activate",
                               [.string(action), .array("v", []), .array("{sv}", [])])
        }
        XCTAssertFalse(editor.run(until: { !commands.isEmpty }, timeout: 0.3), "nothing reached the app")
    }

    private static func dbusmenuId(of label: String, in reply: [DBusValue]) -> Int32? {
        func search(_ node: DBusValue) -> Int32? {
            guard case .structure(let members) = node.unwrapped, members.count == 3, case .int32(let id) = members[0] else { return nil }
            if let properties = members[1].dictEntries,
               properties.contains(where: { $0.key == .string("label") && $0.value.unwrapped == .string(label) }) {
                return id
            }
            guard case .array(_, let children) = members[2] else { return nil }
            for child in children { if let found = search(child) { return found } }
            return nil
        }
        guard reply.count == 2 else { return nil }
        return search(reply[1])
    }

    // MARK: Sandboxed apps

    private func requireSandbox() throws {
        guard getuid() == 0 else { throw XCTSkip("simulating a sandbox needs root (unshare --mount)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { throw XCTSkip("no unshare") }
    }

    /// menubus-cli run as the Flatpak app `appId`.
    private func sandboxed(_ appId: String, _ arguments: [String]) throws -> RunningProcess {
        try sandboxedCommand(appId, [Binaries.url("menubus-cli").path] + arguments, environment: ["NO_COLOR": "1"])
    }

    /// `command` run as the Flatpak app `appId`.
    private func sandboxedCommand(_ appId: String, _ command: [String],
                                  environment: [String: String] = [:]) throws -> RunningProcess {
        let process = Process()
        process.executableURL = Repository.root.appendingPathComponent("Tests/sandbox/run-sandboxed")
        process.arguments = [appId] + command
        process.environment = try bus.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let running = RunningProcess(process: process, stdout: out, stderr: err)
        addTeardownBlock {
            if running.isRunning { running.signal(SIGTERM); _ = try? running.wait(timeout: 5) }
        }
        return running
    }

    private func menuFile() throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-trust-\(UUID().uuidString).json")
        try #"[{"id": "rename", "title": "Rename"}]"#.write(to: file, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        return file.path
    }

    func testTheSandboxNamesTheAppAndNoOtherIdCanBeClaimed() throws {
        try requireSandbox()
        _ = try startDaemon()
        let file = try menuFile()
        // Another app's id, from inside the sandbox: refused, naming the sandbox's id.
        let claim = try sandboxed("org.example.Sandboxed", ["publish", file, "--app", "org.example.Editor", "--for", "0"]).wait(timeout: 20)
        XCTAssertNotEqual(claim.status, 0)
        XCTAssertTrue(claim.stderr.contains("AccessDenied") && claim.stderr.contains("org.example.Sandboxed"), claim.stderr)
        // Its own id: served.
        let own = try sandboxed("org.example.Sandboxed", ["publish", file, "--app", "org.example.Sandboxed", "--context", "main"])
        XCTAssertTrue(eventually(timeout: 15) { own.stdoutText.contains("published") || !own.isRunning }, own.stderrText)
        XCTAssertTrue(own.isRunning, own.stderrText)
        // An unsandboxed connection cannot take the id the sandboxed app holds.
        let impostor = try client()
        let refused = assertBusError(BusError.Domain.accessDenied.errorName) { try impostor.register(appId: "org.example.Sandboxed") }
        XCTAssertTrue(refused?.message.contains("sandboxed") == true, refused?.message ?? "")
        // The impostor's attempt left nothing behind: it is not registered.
        assertBusError(BusError.Domain.notRegistered.errorName) { _ = try impostor.publishContext("main", ContextInfo()) }
        // Unsandboxed readers still reach the sandboxed app's menu.
        let reader = try client()
        let menu = try reader.contextMenu(owner: "org.example.Sandboxed", contextId: "main")
        XCTAssertTrue(menu.elements.contains { $0.id == "rename" }, "\(menu.elements)")
    }

    func testASandboxedAppReachesOnlyItsOwnContexts() throws {
        try requireSandbox()
        _ = try startDaemon()
        let editor = try editorWithSelection()
        var commands: [CommandInvocation] = []
        editor.onCommand = { commands.append($0) }
        let read = try sandboxed("org.example.Sandboxed", ["menu", "org.example.Editor", "doc", "--edit"]).wait(timeout: 20)
        XCTAssertNotEqual(read.status, 0)
        XCTAssertTrue(read.stderr.contains("AccessDenied"), read.stderr)
        let choose = try sandboxed("org.example.Sandboxed", ["activate", "org.example.Editor", "doc", "menubus:copy", "--edit"]).wait(timeout: 20)
        XCTAssertNotEqual(choose.status, 0)
        XCTAssertTrue(choose.stderr.contains("AccessDenied"), choose.stderr)
        let list = try sandboxed("org.example.Sandboxed", ["contexts", "--json"]).wait(timeout: 20)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertFalse(list.stdout.contains("org.example.Editor"), list.stdout)
        XCTAssertFalse(editor.run(until: { !commands.isEmpty }, timeout: 0.3), "nothing reached the editor")
        // Its own app's contexts, from another connection of the same sandbox: reachable.
        let own = try sandboxed("org.example.Sandboxed", ["publish", try menuFile(), "--app", "org.example.Sandboxed", "--context", "main"])
        XCTAssertTrue(eventually(timeout: 15) { own.stdoutText.contains("published") || !own.isRunning }, own.stderrText)
        let mine = try sandboxed("org.example.Sandboxed", ["menu", "org.example.Sandboxed", "main"]).wait(timeout: 20)
        XCTAssertEqual(mine.status, 0, mine.stderr)
        XCTAssertTrue(mine.stdout.contains("Rename"), mine.stdout)
        let chosen = try sandboxed("org.example.Sandboxed", ["activate", "org.example.Sandboxed", "main", "rename"]).wait(timeout: 20)
        XCTAssertEqual(chosen.status, 0, chosen.stderr)
        XCTAssertTrue(eventually(timeout: 10) { own.stdoutText.contains("ActionInvoked main rename") }, own.stdoutText)
    }

    /// A sandboxed app reading another app's presented menu, in every
    /// protocol and through Properties, is refused; listening to every
    /// signal menubusd sends, it hears nothing of that menu while its
    /// presenter and its unsandboxed consumers follow a rename.
    func testASandboxedAppCanNeitherReadNorOverhearAnotherAppsPresentedMenu() throws {
        try requireSandbox()
        _ = try startDaemon()
        let victim = try app("org.example.Victim")
        let secret = ContextInfo(kind: .item, hasContent: true, title: "Secret Plans.odt")
        try victim.publishContext("doc", secret, items: [MenuElement(id: "open", title: "Open Secret Plans.odt")])
        let shell = try client()
        var followed: [Menu] = []
        try shell.observeMenus { _, menu in followed.append(menu) }
        let menu = try shell.present(owner: "org.example.Victim", contextId: "doc", kind: .context)
        // Unsandboxed consumers read it through dbusmenu and GLib's protocols.
        let consumer = try connect()
        _ = try callDaemon(consumer, path: menu.path, interface: MenuBusNames.dbusMenuInterface, "GetLayout",
                           [.int32(0), .int32(-1), .array("s", [])])
        _ = try callDaemon(consumer, path: menu.path, interface: MenuBusNames.gtkMenusInterface, "Start",
                           [.array("u", [.uint32(0)])])

        let sync = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-sync-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: sync) }
        let reader = try sandboxedCommand("org.evil.App", ["/usr/bin/python3",
            Repository.root.appendingPathComponent("Tests/sandbox/menu_reader.py").path, menu.path.rawValue, sync.path])
        XCTAssertTrue(eventually(timeout: 30) { reader.stdoutText.contains("READY") || !reader.isRunning },
                      reader.stdoutText + reader.stderrText)
        let calls = reader.stdoutText.split(separator: "\n").filter { $0.hasPrefix("CALL ") }
        XCTAssertEqual(calls.count, 11, reader.stdoutText + reader.stderrText)
        for call in calls {
            XCTAssertTrue(call.hasSuffix(BusError.Domain.accessDenied.errorName), "refused: \(call)")
        }

        try victim.updateItems("doc", [MenuElement(id: "open", title: "Open Secret Plans v2.odt")])
        XCTAssertTrue(shell.run(until: { followed.contains { $0.element("open")?.title == "Open Secret Plans v2.odt" } },
                                timeout: 10), "the presenter follows the rename")
        XCTAssertTrue(FileManager.default.createFile(atPath: sync.path, contents: Data()))
        XCTAssertTrue(eventually(timeout: 20) { reader.stdoutText.contains("SYNCED") || !reader.isRunning },
                      reader.stdoutText + reader.stderrText)
        let heard = reader.stdoutText.split(separator: "\n").filter { $0.hasPrefix("SIGNAL ") && $0.contains(menu.path.rawValue) }
        XCTAssertEqual(heard, [], "nothing of the menu reached the sandboxed app")
        XCTAssertFalse(reader.stdoutText.contains("Secret"), reader.stdoutText)
    }

    /// A presenter outside the sandbox opens a preview's `image-uri`: a
    /// sandboxed app may name only a file it shared through the document
    /// portal, never a host path; its PNG bytes are taken.
    func testASandboxedAppsPreviewNamesNoHostFile() throws {
        try requireSandbox()
        _ = try startDaemon()
        func publish(_ preview: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-preview-\(UUID().uuidString).json")
            try #"{"app": "org.example.Sandboxed", "context-id": "photo", "context": {"kind": "image", "preview": \#(preview)}, "items": [{"id": "rotate", "title": "Rotate"}]}"#
                .write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try sandboxed("org.example.Sandboxed", ["publish", file.path, "--for", "0"]).wait(timeout: 20)
            return (run.status, run.stdout, run.stderr)
        }
        for uri in ["file:///etc/passwd", "file:///run/user/\(getuid())/doc/../../../../etc/passwd",
                    "file:///run/user/\(getuid())/doc/%2E%2E/%2e%2e/etc/passwd"] {
            let refused = try publish(#"{"title": "Beach", "image-uri": "\#(uri)"}"#)
            XCTAssertNotEqual(refused.status, 0, uri)
            XCTAssertTrue(refused.stderr.contains("AccessDenied") && refused.stderr.contains("context.preview.image-uri"),
                          refused.stderr)
        }
        let shared = try publish(#"{"title": "Beach", "image-uri": "file:///run/user/\#(getuid())/doc/1a2b3c/my%20beach.png"}"#)
        XCTAssertEqual(shared.status, 0, shared.stderr)
        let icon = try publish(#"{"title": "Beach", "icon": "image-x-generic"}"#)
        XCTAssertEqual(icon.status, 0, icon.stderr)
    }

    /// The provider choices that order every app's suggestions count only
    /// when an unsandboxed presenter chooses: a sandboxed app choosing in its
    /// own menu, however often, moves nothing in the user's file.
    func testASandboxedAppsChoicesDoNotReorderOtherAppsSuggestions() throws {
        try requireSandbox()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-usage-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: state) }
        let daemon = try startDaemon(["--state-dir", state.path])
        var calls = 0
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Boost", title: "Boost", returnsText: true),
                                      path: try ObjectPath(validating: "/p/boost")) { text, _ in
            calls += 1
            return text
        }
        let itemId = ElementID.provider("org.example.Boost")
        // The host editor's choice counts.
        let editor = try editorWithSelection()
        let menu = try editor.present(contextId: "doc", kind: .edit)
        try editor.activate(menu, itemId: itemId)
        XCTAssertTrue(provider.run(until: { calls == 1 }, timeout: 10), "the host's choice ran the provider")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-boost-\(UUID().uuidString).json")
        try #"{"app": "org.example.Sandboxed", "context-id": "main", "context": {"kind": "text", "editable": true, "has-content": true}, "selection": {"kind": "range", "length": 4, "text": "word"}, "items": []}"#
            .write(to: file, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let own = try sandboxed("org.example.Sandboxed", ["publish", file.path])
        XCTAssertTrue(eventually(timeout: 15) { own.stdoutText.contains("ublished") || !own.isRunning }, own.stderrText)
        for round in 1...3 {
            let chosen = try sandboxed("org.example.Sandboxed", ["activate", "org.example.Sandboxed", "main", itemId, "--edit"])
                .wait(timeout: 20)
            XCTAssertEqual(chosen.status, 0, chosen.stderr)
            XCTAssertTrue(provider.run(until: { calls == 1 + round }, timeout: 10), "the sandboxed choice \(round) ran the provider")
        }
        own.signal(SIGTERM)
        editor.close()
        provider.close()
        daemon.signal(SIGTERM)
        _ = try daemon.wait(timeout: 10)
        let usage = try String(contentsOf: state.appendingPathComponent("provider-usage"), encoding: .utf8)
        XCTAssertEqual(usage, "1\torg.example.Boost\n", "only the host's choice counted")
    }

    func testFlatpakInfoParsing() {
        XCTAssertEqual(PeerIdentity.flatpakAppId(keyFile: "[Application]\nname=org.gnome.Maps\nruntime=x\n"), "org.gnome.Maps")
        XCTAssertEqual(PeerIdentity.flatpakAppId(keyFile: "# c\r\n[Instance]\r\nname=wrong\r\n[Application]\r\nname = org.a.B \r\n"), "org.a.B")
        XCTAssertNil(PeerIdentity.flatpakAppId(keyFile: "[Runtime]\nname=org.freedesktop.Platform\n"))
        XCTAssertNil(PeerIdentity.flatpakAppId(keyFile: "[Application]\nname=\n"))
        XCTAssertEqual(PeerIdentity.snapName(label: "snap.firefox.firefox (enforce)"), "firefox")
        XCTAssertNil(PeerIdentity.snapName(label: "/usr/bin/evince (enforce)"))
        XCTAssertNil(PeerIdentity.snapName(label: "unconfined"))
    }

    func testAHostProcessIsUnsandboxedAndAGonePidIsUnidentified() throws {
        XCTAssertEqual(PeerIdentity.of(PeerCredentials(processId: UInt32(getpid()))), .host)
        guard case .unidentified = PeerIdentity.of(PeerCredentials(processId: nil)) else { return XCTFail("no pid") }
        guard case .unidentified = PeerIdentity.of(PeerCredentials(processId: 0x3FFF_FFF0)) else { return XCTFail("no such pid") }
    }
}
