import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// examples/swift-async run as a program against the real daemon: its
/// deferred "Recent Albums" takes 200 ms (an async handler), and meanwhile
/// it fills another menu's deferred element and takes a choice.
final class AsyncExampleTests: BusTestCase {
    func testAsyncExampleAnswersOtherCallsWhileADeferredElementTakes200ms() throws {
        _ = try startDaemon(["--deferred-timeout", "5"])
        let example = try bus.startProgram(Binaries.url("menubus-async-example").path, [])
        XCTAssertTrue(eventually(timeout: 15) { example.stdoutText.contains("is serving") }, example.stderrText)
        let presenter = try MenuBusClient(address: try bus.address)

        let presented = Date()
        let albums = try presenter.present(owner: "org.example.AsyncLibrary", contextId: "albums", kind: .context)
        XCTAssertEqual(try presenter.layout(of: albums).element("recent")?.title, DeferredElements.loadingTitle)
        XCTAssertTrue(eventually { example.stdoutText.contains("asked for albums/recent") }, example.stdoutText)

        // While Recent Albums loads: another menu's deferred element and a choice.
        let search = try presenter.present(owner: "org.example.AsyncLibrary", contextId: "search", kind: .context)
        try presenter.activate(albums, itemId: "shuffle")
        var answeredMeanwhile = false
        XCTAssertTrue(try eventually(timeout: 5) {
            guard try presenter.layout(of: search).element("suggest-jazz") != nil,
                  example.stdoutText.contains("chose shuffle in albums") else { return false }
            let stillLoading = try presenter.layout(of: albums).element("recent")?.title == DeferredElements.loadingTitle
            answeredMeanwhile = stillLoading && !example.stdoutText.contains("filled albums/recent")
            return true
        }, example.stdoutText)

        XCTAssertTrue(try eventually(timeout: 5) { try presenter.layout(of: albums).element("album-0") != nil },
                      example.stdoutText)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(presented), 0.2, "filled after the handler's 200 ms")
        XCTAssertEqual(try presenter.layout(of: albums).element("album-1")?.title, "Kind of Blue")
        let lines = example.stdoutText.split(separator: "\n").map(String.init)
        func position(_ prefix: String) -> Int { lines.firstIndex { $0.hasPrefix(prefix) } ?? -1 }
        XCTAssertTrue(answeredMeanwhile, "the choice and the other fill were answered while Recent Albums was loading: \(lines)")
        XCTAssertLessThan(position("asked for albums/recent"), position("filled search/suggestions"), "\(lines)")
        XCTAssertLessThan(position("filled search/suggestions"), position("filled albums/recent"), "\(lines)")
        XCTAssertLessThan(position("chose shuffle in albums"), position("filled albums/recent"), "\(lines)")
        XCTAssertGreaterThanOrEqual(position("asked for albums/recent"), 0, "\(lines)")
        XCTAssertTrue(example.isRunning, example.stderrText)
    }
}
