import XCTest
@testable import MenuBusProviders
@testable import MenuBusCodec
@testable import MenuBusModel

/// Key files, provider declarations and the user's policy, as plain values.
final class ProviderDeclarationTests: XCTestCase {
    private let upper = """
        # a comment
        [MenuBus Provider]
        Id=org.example.Upper
        Title=Make Uppercase
        Title[ru]=Сделать прописными
        Title[sr@latin]=Velika slova
        Icon=format-text-uppercase
        ContentTypes=text/plain;text/x-csrc;
        ReturnsText=true
        RequiresEditable=true
        DBusName=org.example.Upper
        """

    private func parse(_ text: String, locales: [String] = []) throws(ProviderDeclaration.Fault) -> ProviderDeclaration? {
        try ProviderDeclaration.parse(text, file: "/x.provider", locales: locales) { _, _ in true }
    }

    private func fault(_ text: String) -> ProviderDeclaration.Fault? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    func testDeclarationCarriesEveryKey() throws {
        let declaration = try XCTUnwrap(try parse(upper))
        XCTAssertEqual(declaration.info, ProviderInfo(id: "org.example.Upper", title: "Make Uppercase", icon: "format-text-uppercase",
                                                      contentTypes: ["text/plain", "text/x-csrc"], returnsText: true,
                                                      requiresEditable: true))
        XCTAssertEqual(declaration.busName, "org.example.Upper")
        XCTAssertEqual(declaration.objectPath, "/org/menubus/Provider")
    }

    func testTitleFollowsTheLocale() throws {
        XCTAssertEqual(try parse(upper, locales: ["ru_RU", "ru"])?.info.title, "Сделать прописными")
        XCTAssertEqual(try parse(upper, locales: KeyFile.locales(environment: ["LANG": "sr_RS.UTF-8@latin"]))?.info.title,
                       "Velika slova")
        XCTAssertEqual(try parse(upper, locales: ["de_DE", "de"])?.info.title, "Make Uppercase")
    }

    func testLocalesFollowGettextsOrder() {
        XCTAssertEqual(KeyFile.locales(environment: ["LANG": "sr_RS.UTF-8@latin"]), ["sr_RS@latin", "sr_RS", "sr@latin", "sr"])
        XCTAssertEqual(KeyFile.locales(environment: ["LANGUAGE": "pt_BR:pt", "LANG": "en_US.UTF-8"]),
                       ["pt_BR", "pt", "en_US", "en"])
        XCTAssertEqual(KeyFile.locales(environment: ["LC_ALL": "de_AT.UTF-8", "LANG": "fr_FR"]), ["de_AT", "de"])
        XCTAssertEqual(KeyFile.locales(environment: ["LANG": "C.UTF-8"]), ["C"])
        XCTAssertEqual(KeyFile.locales(environment: ["LANG": "C"]), [])
    }

    func testFaultsNameTheLine() {
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nno equals here\n")?.line, 3)
        XCTAssertEqual(fault("Id=before any group\n")?.line, 1)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nId=b\n")?.line, 3, "a key twice")
        XCTAssertEqual(fault("[Other]\nId=a\n")?.message, "no [MenuBus Provider] group")
        XCTAssertEqual(fault("\n[MenuBus Provider]\nTitle=T\nDBusName=a.b\n")?.line, 2, "a missing key names the group's line")
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle=T\nReturnsText=yes\nDBusName=a.b\n")?.line, 4)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle=T\nRole=dance\nDBusName=a.b\n")?.line, 4)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=bad id!\nTitle=T\nDBusName=a.b\n")?.line, 2)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle=T\nDBusName=:1.5\n")?.line, 4, "a unique name cannot be activated")
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle=T\nDBusName=a.b\nObjectPath=no/slash\n")?.line, 5)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle=T\nContentTypes=plain\nDBusName=a.b\n")?.line, 4)
        XCTAssertEqual(fault("[MenuBus Provider]\nId=a\nTitle[not a locale!]=T\n")?.line, 3)
    }

    func testShortcutIsAnAcceleratorWithAModifierTypingDoesNotUse() throws {
        let declared = upper + "\nShortcut=<Control><Alt>u\n"
        XCTAssertEqual(try parse(declared)?.info.shortcut, "<Control><Alt>u")
        XCTAssertNil(try parse(upper)?.info.shortcut)
        XCTAssertNil(try parse(upper + "\nShortcut=\n")?.info.shortcut, "an empty Shortcut= is none")
        let lines = upper.split(separator: "\n", omittingEmptySubsequences: false).count
        let bad = fault(upper + "\nShortcut=Ctrl+Alt+U\n")
        XCTAssertEqual(bad?.line, lines + 1)
        XCTAssertEqual(bad?.message.hasPrefix("Shortcut: "), true, bad?.description ?? "")
        let plain = fault(upper + "\nShortcut=<Shift>u\n")
        XCTAssertEqual(plain?.line, lines + 1)
        XCTAssertEqual(plain?.message.contains("needs <Control>, <Alt> or <Super>"), true, plain?.description ?? "")
    }

    func testTryExecAndShowIfExistsHideADeclarationThatCannotRun() throws {
        let text = "[MenuBus Provider]\nId=a\nTitle=T\nDBusName=a.b\nTryExec=sh\nShowIfExists=/etc/host*\n"
        XCTAssertNotNil(try ProviderDeclaration.parse(text, file: "f", locales: []))
        let missing = text.replacingOccurrences(of: "TryExec=sh", with: "TryExec=no-such-program-here")
        XCTAssertNil(try ProviderDeclaration.parse(missing, file: "f", locales: []))
        let noData = text.replacingOccurrences(of: "/etc/host*", with: "/no/such/dir/*.mode")
        XCTAssertNil(try ProviderDeclaration.parse(noData, file: "f", locales: []))
    }

    func testListsAndEscapes() throws {
        XCTAssertEqual(KeyFile.list("a;b\\;c;;d;"), ["a", "b;c", "d"])
        let file = try KeyFile(parsing: "[G]\nKey = two\\swords\\n\n")
        XCTAssertEqual(file.group("G")?.entry("Key")?.value, "two words\n")
    }

    // MARK: Policy

    private let providers = [
        ProviderInfo(id: "a.Translate", title: "Translate", role: .translate),
        ProviderInfo(id: "b.Translate", title: "Translate", role: .translate),
        ProviderInfo(id: "c.Upper", title: "Upper"),
        ProviderInfo(id: "d.Lower", title: "Lower"),
    ]

    func testPolicyDisablesPrefersAndOrders() throws {
        var policy = ProviderPolicy()
        XCTAssertEqual(policy.apply(to: providers).map(\.id), ["a.Translate", "b.Translate", "c.Upper", "d.Lower"])
        try policy.disable("c.Upper")
        try policy.prefer(role: "translate", id: "b.Translate")
        policy.order = ["d.Lower"]
        XCTAssertEqual(policy.apply(to: providers).map(\.id), ["b.Translate", "d.Lower", "a.Translate"])
        XCTAssertEqual(MatchingProviders(policy.apply(to: providers), contextTypes: ContentType.parse(["text/plain"]),
                                         editable: true).provider(for: .translate)?.id, "b.Translate")
        try policy.enable("c.Upper")
        XCTAssertTrue(policy.apply(to: providers).contains { $0.id == "c.Upper" })
        XCTAssertThrowsError(try policy.prefer(role: "spelling", id: "x"))
    }

    func testPolicyFileRoundTrips() throws {
        var policy = ProviderPolicy()
        try policy.disable("c.Upper")
        XCTAssertThrowsError(try policy.disable("x;y"), "not an id")
        try policy.prefer(role: "search-web", id: "org.example.Search")
        let text = policy.text
        XCTAssertEqual(try ProviderPolicy(parsing: text), policy, text)
        XCTAssertThrowsError(try ProviderPolicy(parsing: "[Roles]\nspelling=x\n"))
        XCTAssertThrowsError(try ProviderPolicy(parsing: "not a key file"))
    }
}
