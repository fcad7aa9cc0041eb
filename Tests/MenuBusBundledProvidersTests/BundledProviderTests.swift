import Foundation
import XCTest
@testable import MenuBusBundledProviders

/// The bundled providers' text work, as the tables Foundation gave before
/// they linked no Foundation: Sort Lines as `localizedStandardCompare`,
/// Search Web's query as `addingPercentEncoding` with the unreserved set.
final class BundledProviderTests: XCTestCase {
    func testSortLinesIgnoresCaseAndOrdersNumbersByValue() {
        XCTAssertEqual(TextTransforms.sortLines("pear\napple\nfig"), "apple\nfig\npear")
        XCTAssertEqual(TextTransforms.sortLines("file10\nFig\nfile2\napple\nx1\nx-1\n"), "apple\nFig\nfile2\nfile10\nx-1\nx1\n",
                       "case ignored, numbers by value, punctuation before digits, the final newline kept")
        XCTAssertEqual(TextTransforms.sortLines("item 02\nitem 2\nitem 10"), "item 2\nitem 02\nitem 10", "fewer leading zeros first")
        XCTAssertEqual(TextTransforms.sortLines("b\n\na"), "\na\nb", "an empty line first")
        XCTAssertEqual(TextTransforms.sortLines("v３\nv2\nv10"), "v2\nv３\nv10", "a fullwidth digit counts by its value")
        XCTAssertEqual(TextTransforms.sortLines("n123456789012345678901234\nn99"), "n99\nn123456789012345678901234")
        XCTAssertEqual(TextTransforms.sortLines(""), "")
    }

    /// Sort Lines collates in the user's language (`LC_COLLATE`): in German
    /// "Ärger" sorts with the a's, where the C locale puts it after z.
    func testSortLinesFollowsTheUsersCollation() throws {
        XCTAssertEqual(TextTransforms.sortLines("zebra\nÄrger\napple"), "apple\nzebra\nÄrger", "C: code point order")
        let locales = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-locales-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: locales, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: locales) }
        // localedef exits 1 for warnings, with the locale written.
        let compile = try Subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", locales.appendingPathComponent("de_DE.UTF-8").path],
                                         environment: ["PATH": "/usr/bin:/bin"], input: [])
        guard compile.status == 0 || compile.status == 1 else {
            throw XCTSkip("no German locale source: \(String(decoding: compile.errors, as: UTF8.self))")
        }
        let previous = String(cString: setlocale(LC_COLLATE, nil))
        let previousPath = ProcessInfo.processInfo.environment["LOCPATH"]
        setenv("LOCPATH", locales.path, 1)
        defer {
            if let previousPath { setenv("LOCPATH", previousPath, 1) } else { unsetenv("LOCPATH") }
            setlocale(LC_COLLATE, previous)
        }
        guard setlocale(LC_COLLATE, "de_DE.UTF-8") != nil else { return XCTFail("the compiled locale does not load") }
        XCTAssertEqual(TextTransforms.sortLines("zebra\nÄrger\napple\nBanane"), "apple\nÄrger\nBanane\nzebra")
    }

    func testCapitalizeAndTheCaseTransforms() {
        XCTAssertEqual(TextTransforms.capitalize("the quick BROWN fox's tail"), "The Quick Brown Fox's Tail")
        XCTAssertEqual(TextTransforms.capitalize("élan ßtraße 3rd"), "Élan SStraße 3rd")
        let upper = TextTransforms.all.first { $0.id.hasSuffix(".Uppercase") }
        XCTAssertEqual(upper?.apply("straße ǆ"), "STRASSE Ǆ")
    }

    func testSearchWebEncodesAllButUnreservedCharacters() {
        let engine = SearchWeb.defaultEngine
        XCTAssertEqual(SearchWeb.url(engine: engine, words: "key files & D-Bus"), "https://duckduckgo.com/?q=key%20files%20%26%20D-Bus")
        XCTAssertEqual(SearchWeb.url(engine: engine, words: " \u{00A0}café au lait\n"), "https://duckduckgo.com/?q=caf%C3%A9%20au%20lait",
                       "white space trimmed at both ends, UTF-8 bytes encoded")
        XCTAssertEqual(SearchWeb.url(engine: engine, words: "a+b/c?d=e#f ~_.-"), "https://duckduckgo.com/?q=a%2Bb%2Fc%3Fd%3De%23f%20~_.-")
        XCTAssertEqual(SearchWeb.url(engine: engine, words: "½ 👍🏽\t"), "https://duckduckgo.com/?q=%C2%BD%20%F0%9F%91%8D%F0%9F%8F%BD")
        XCTAssertEqual(SearchWeb.url(engine: "https://x.example/?a=%s&b=%s", words: "1 2"), "https://x.example/?a=1%202&b=1%202")
    }

    func testSettingsFilesReadGroupsAndKeys() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-settings-\(UUID().uuidString).conf")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# comment\n [Search Web] \n URL = https://e.example/?q=%s \n\n[Translate]\nPair=eng-spa\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try ProviderSettings.read(file.path), ["Search Web": ["URL": "https://e.example/?q=%s"], "Translate": ["Pair": "eng-spa"]])
        XCTAssertEqual(try ProviderSettings.read(file.path + ".missing"), [:])
        try "Key=value\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ProviderSettings.read(file.path))
    }

    /// Apertium's stand-in: the translation comes back from the program's
    /// output, whatever the size of what was written to it.
    func testSubprocessExchangesLargeInputAndOutput() throws {
        let input = Array(String(repeating: "línea de texto\n", count: 20_000).utf8)
        let result = try Subprocess.run(["sh", "-c", "tr a-z A-Z; echo done >&2"], environment: ["PATH": "/usr/bin:/bin"], input: input)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.output, Array(String(repeating: "LíNEA DE TEXTO\n", count: 20_000).utf8))
        XCTAssertEqual(String(decoding: result.errors, as: UTF8.self), "done\n")
        XCTAssertEqual(try Subprocess.run(["false"], environment: ["PATH": "/usr/bin:/bin"], input: []).status, 1)
        XCTAssertEqual(try Subprocess.run(["no-such-program-here"], environment: ["PATH": "/usr/bin:/bin"], input: []).status, 127)
    }
}
