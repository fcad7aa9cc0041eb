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

/// The Swift client on the app's own loop (its descriptors and `dispatch`),
/// filling a deferred element with an async handler after 200 ms while it
/// keeps answering menubusd's other calls.
final class AsyncClientTests: BusTestCase {
    /// Polls the client's descriptors as an app's own main loop would, calling `dispatch` when one is readable.
    private func runAppLoop(_ client: MenuBusClient, until done: () throws -> Bool, timeout: Double) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try done() { return true }
            var fds = client.fileDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let next = client.dispatch()
            let wait = Int32(min(next.map { $0 * 1000 } ?? 20, 20))
            _ = poll(&fds, nfds_t(fds.count), wait)
            client.dispatch()
        }
        return try done()
    }

    func testAsyncHandlerFillsADeferredElementLaterWhileOtherCallsAreAnswered() throws {
        _ = try startDaemon(["--deferred-timeout", "5"])
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Async")
        try app.publishContext("list", ContextInfo(), items: [
            MenuElement(id: "slow", kind: .deferred, cached: false),
            MenuElement(id: "fast", kind: .deferred, cached: false),
            MenuElement(id: "open", kind: .action, title: "Open"),
        ])
        let started = Date()
        app.provideElementsAsync { _, elementId in
            if elementId == "slow" { try await Task.sleep(nanoseconds: 200_000_000) }
            return [MenuElement(id: elementId + "-item", kind: .action, title: elementId == "slow" ? "Slow One" : "Fast One")]
        }
        var actions: [String] = []
        app.onAction = { actions.append($0.itemId) }
        XCTAssertEqual(app.fileDescriptors.count, 2, "the bus socket and the wake-up descriptor")

        let presenter = try MenuBusClient(address: try bus.address)
        let menu = try presenter.present(owner: "org.example.Async", contextId: "list", kind: .context)
        var fastAt: Date?, slowAt: Date?
        var chosen = false
        XCTAssertTrue(try runAppLoop(app, until: {
            let layout = try presenter.layout(of: menu)
            if fastAt == nil, layout.element("fast-item") != nil { fastAt = Date() }
            if slowAt == nil, layout.element("slow-item") != nil { slowAt = Date() }
            // While "slow" is still loading, a choice reaches the app: the app answers other calls meanwhile.
            if fastAt != nil, slowAt == nil, !chosen, layout.element("slow")?.title == DeferredElements.loadingTitle {
                let other = try presenter.present(owner: "org.example.Async", contextId: "list", kind: .context)
                try presenter.activate(other, itemId: "open")
                chosen = true
            }
            return slowAt != nil && !actions.isEmpty
        }, timeout: 10), "fast \(String(describing: fastAt)) slow \(String(describing: slowAt)) actions \(actions)")
        let slow = try XCTUnwrap(slowAt).timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(slow, 0.2, "filled after the handler's 200 ms")
        XCTAssertLessThan(try XCTUnwrap(fastAt), try XCTUnwrap(slowAt), "the fast element did not wait for the slow one")
        XCTAssertTrue(chosen, "a choice was made while the slow element was loading")
        XCTAssertEqual(actions, ["open"])
        XCTAssertEqual(try presenter.layout(of: menu).element("slow-item")?.title, "Slow One")
    }

    func testAsyncCallsOnTheAppsLoop() throws {
        _ = try startDaemon()
        let app = try MenuBusClient(address: try bus.address)
        try app.register(appId: "org.example.Async")
        let box = ResultBox()
        let client = UncheckedClient(app)
        Task { @MainActor in
            do {
                try await client.value.publishContext("field", ContextInfo(kind: .text, editable: true, hasContent: true))
                try await client.value.updateSelection("field", Selection(kind: .range, length: 3))
                let menu = try await client.value.editMenu(contextId: "field")
                let contexts = try await client.value.listContexts()
                box.set(menu.element("menubus:copy") != nil && contexts.contains { $0.contextId == "field" } ? "ok" : "wrong")
            } catch {
                box.set("\(error)")
            }
        }
        // The main actor is this thread's run loop: pump it and the client's descriptors together.
        XCTAssertTrue(runAppLoop(app, until: {
            RunLoop.main.run(until: Date().addingTimeInterval(0.005))
            return box.get() != nil
        }, timeout: 10))
        XCTAssertEqual(box.get(), "ok")
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ text: String) { lock.lock(); value = text; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return value }
}

private final class UncheckedClient: @unchecked Sendable {
    let value: MenuBusClient
    init(_ value: MenuBusClient) { self.value = value }
}
