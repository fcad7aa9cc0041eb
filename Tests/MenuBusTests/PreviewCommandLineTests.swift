import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusDBus
@testable import MenuBusModel

/// menubus-cli with previews, buttons and `--locale`, as processes against
/// the real menubusd on a private bus.
final class PreviewCommandLineTests: BusTestCase {
    private let noColour = ["NO_COLOR": "1"]

    override func setUpWithError() throws {
        _ = try startDaemon(extraEnvironment: ["LANGUAGE": "de"])
    }

    private func cli(_ arguments: [String]) throws -> ProcessResult {
        try bus.run("menubus-cli", arguments, timeout: 20, extraEnvironment: noColour)
    }


    private static let png = PreviewTests.png(40)

    /// A photo with a preview (Copy is MenuBus's, so `--locale` shows) and a "New" button.
    private func publish(_ app: MenuBusClient) throws {
        try app.publishContext("photo", ContextInfo(kind: .image, title: "Beach.png",
                                                    preview: ContextPreview(title: "Beach.png", subtitle: "2.1 MB",
                                                                            image: .png(Self.png))),
                               items: [MenuElement(id: "rename", title: "Rename")])
        try app.publishContext("new", ContextInfo(kind: .button, primaryAction: "new-document"), items: [
            MenuElement(id: "new-document", title: "New Document", attributes: [.hidden]),
            MenuElement(id: "new-folder", title: "New Folder"),
        ])
    }

    func testMenuShowsThePreviewAndWhatATapRunsAndTakesALocale() throws {
        let app = try app("org.example.Photos")
        try publish(app)
        let photo = try cli(["menu", "org.example.Photos", "photo", "--locale", "ru"])
        XCTAssertEqual(photo.status, 0, photo.stderr)
        XCTAssertTrue(photo.stdout.contains("Preview  Beach.png — 2.1 MB  [PNG, 40 bytes]  (menubus:preview)"), photo.stdout)
        XCTAssertTrue(photo.stdout.contains("Копировать"), "--locale ru: \(photo.stdout)")
        let session = try cli(["menu", "org.example.Photos", "photo"])
        XCTAssertTrue(session.stdout.contains("Kopieren"), "the session's language without it: \(session.stdout)")
        let button = try cli(["menu", "org.example.Photos", "new"])
        XCTAssertTrue(button.stdout.contains("Tap  New Document  (new-document; menubus:primary-action)"), button.stdout)
        XCTAssertFalse(button.stdout.contains("Kopieren"), "a button's menu has no suggestions: \(button.stdout)")
        let bad = try cli(["menu", "org.example.Photos", "photo", "--locale", "ru;rm"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("options.locale"), bad.stderr)
    }

    func testPresentDrawsThePreviewUnlessCompactAndActivateChoosesIt() throws {
        let app = try app("org.example.Photos")
        var actions: [String] = []
        app.onAction = { actions.append($0.itemId) }
        try publish(app)
        let rich = try cli(["present", "org.example.Photos", "photo", "--changes", "0", "--locale", "fr"])
        XCTAssertEqual(rich.status, 0, rich.stderr)
        XCTAssertTrue(rich.stdout.contains("Preview  Beach.png — 2.1 MB"), rich.stdout)
        XCTAssertTrue(rich.stdout.contains("Copier"), rich.stdout)
        let compact = try cli(["present", "org.example.Photos", "photo", "--changes", "0", "--compact"])
        XCTAssertFalse(compact.stdout.contains("Preview"), compact.stdout)
        let json = try cli(["present", "org.example.Photos", "photo", "--changes", "0", "--json"])
        let event = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(event["appearance"] as? String, "rich")
        XCTAssertEqual((event["preview"] as? [String: Any])?["image-png"] as? String, Data(Self.png).base64EncodedString())

        let chosen = try cli(["activate", "org.example.Photos", "photo", "menubus:preview", "--locale", "ru"])
        XCTAssertEqual(chosen.status, 0, chosen.stderr)
        XCTAssertTrue(pumpClients([app], timeout: 10) { actions == ["menubus:preview"] }, "\(actions)")
        let tapped = try cli(["activate", "org.example.Photos", "new", "menubus:primary-action"])
        XCTAssertEqual(tapped.status, 0, tapped.stderr)
        XCTAssertTrue(pumpClients([app], timeout: 10) { actions == ["menubus:preview", "new-document"] }, "\(actions)")
    }

    func testMenuJSONCarriesThePreviewAndButtonKeysThroughPublish() throws {
        let app = try app("org.example.Photos")
        try publish(app)
        for context in ["photo", "new"] {
            let printed = try cli(["menu", "org.example.Photos", context, "--json"])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-\(context)-\(UUID().uuidString).json")
            try printed.stdout.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let publisher = try bus.start("menubus-cli", ["publish", file.path, "--app", "org.example.Copy"], extraEnvironment: noColour)
            defer { publisher.signal(SIGTERM); _ = try? publisher.wait(timeout: 5) }
            XCTAssertTrue(eventually(timeout: 10) { publisher.stdoutText.contains("published") }, publisher.stderrText)
            let again = try cli(["menu", "org.example.Copy", context, "--json"])
            XCTAssertEqual(again.stdout.replacingOccurrences(of: "org.example.Copy", with: "org.example.Photos")
                                .replacingOccurrences(of: #""revision": \d+"#, with: "", options: .regularExpression),
                           printed.stdout.replacingOccurrences(of: #""revision": \d+"#, with: "", options: .regularExpression))
        }
    }
}
