import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// The answer to one `ProvideElements`, given later and from any thread:
/// the app's loop keeps answering other calls meanwhile, and menubusd, which
/// never waits on an app, shows "Loading…" until it arrives (or drops the
/// element after its timeout). The first answer counts.
public final class DeferredReply: @unchecked Sendable {
    private let answer: LaterAnswer

    init(_ pending: PendingReply, loop: MessageLoop) {
        answer = LaterAnswer(pending: pending, loop: loop)
    }

    /// Answers with the elements that replace the deferred element.
    public func reply(_ elements: [MenuElement]) {
        let encoded = Wire.encode(elements)
        answer.send { $0.reply(MenuBusAPI.Client.provideElements, encoded) }
    }

    /// Answers with an error (`NoSuchItem`, …): the element disappears.
    public func fail(_ error: BusError) { answer.fail(error) }
}

/// The answer to a callback that returns nothing (`ActionInvoked`,
/// `PerformCommand`), given when the work is done, from any thread: the
/// connection answers other calls meanwhile, and menubusd never waits on
/// it (a failure or a late answer is only logged there). The first answer counts.
public final class CallReply: @unchecked Sendable {
    private let answer: LaterAnswer

    init(_ pending: PendingReply, loop: MessageLoop) {
        answer = LaterAnswer(pending: pending, loop: loop)
    }

    /// The work is done.
    public func done() { answer.send { $0.reply([]) } }

    /// The work failed: menubusd logs `error`.
    public func fail(_ error: BusError) { answer.fail(error) }
}

/// The answer to one provider `Process`, given later and from any thread.
/// The first answer counts.
public final class ProviderReply: @unchecked Sendable {
    private let answer: LaterAnswer

    init(_ pending: PendingReply, loop: MessageLoop) {
        answer = LaterAnswer(pending: pending, loop: loop)
    }

    /// Answers with replacement text, or "" for none.
    public func reply(_ text: String) {
        answer.send { $0.reply(MenuBusAPI.Provider.process, text, .array("{sv}", [])) }
    }

    /// Answers with an error; a presenter waiting for a `ProviderResult` gets it in `error`.
    public func fail(_ error: BusError) { answer.fail(error) }
}

/// A reply promised on the client's loop, given from any thread: the
/// answer is posted to the loop, which sends it (the first one counts).
private struct LaterAnswer: @unchecked Sendable {
    let pending: PendingReply
    let loop: MessageLoop

    func send(_ answer: @escaping (PendingReply) -> Void) {
        let pending = self.pending
        loop.post { answer(pending) }
    }

    func fail(_ error: BusError) { send { $0.fail(error) } }
}

/// Runs `work` in a task of its own; `reply` hears that it ended, or its error.
private func answerWhenDone(_ reply: CallReply, _ work: @escaping @Sendable () async throws -> Void) {
    Task {
        do {
            try await work()
            reply.done()
        } catch {
            reply.fail(busError(error))
        }
    }
}

/// A thrown error as the D-Bus error that answers a call.
private func busError(_ error: Error) -> BusError {
    (error as? BusError) ?? BusError.failed("\(error)")
}

extension MenuBusClient {
    /// Handles chosen items of this app with an async handler: each runs in
    /// its own task, and menubusd hears its outcome when it ends.
    public func onActionAsync(_ handler: @escaping @Sendable (ActionInvocation) async throws -> Void) {
        onActionLater = { invocation, reply in
            answerWhenDone(reply) { try await handler(invocation) }
        }
    }

    /// Handles standard commands with an async handler: each runs in its own
    /// task, and menubusd hears its outcome when it ends.
    public func onCommandAsync(_ handler: @escaping @Sendable (CommandInvocation) async throws -> Void) {
        onCommandLater = { invocation, reply in
            answerWhenDone(reply) { try await handler(invocation) }
        }
    }

    /// Offers a provider whose `Process` is an async handler: each request
    /// runs in its own task; its text, or its error, answers menubusd when ready.
    public func registerProviderAsync(_ description: ProviderInfo, path: ObjectPath = "/org/menubus/Provider",
                                      process: @escaping @Sendable (String, [String: DBusValue]) async throws -> String) throws {
        try registerProvider(description, path: path) { text, context, reply in
            Task {
                do {
                    reply.reply(try await process(text, context))
                } catch {
                    reply.fail(busError(error))
                }
            }
        }
    }

    /// Fills deferred elements with an async handler (Swift concurrency):
    /// each request runs in its own task; its result, or its error, answers
    /// menubusd when it is ready.
    public func provideElementsAsync(_ handler: @escaping @Sendable (String, String) async throws -> [MenuElement]) {
        provideElementsLater = { contextId, elementId, reply in
            Task {
                do {
                    reply.reply(try await handler(contextId, elementId))
                } catch let error as BusError {
                    reply.fail(error)
                } catch {
                    reply.fail(BusError.failed("\(error)"))
                }
            }
        }
    }

    // MARK: The app's own loop

    /// The descriptors to watch for reading when the app runs its own loop
    /// (GLib, CFRunLoop, epoll): the bus socket and a wake-up descriptor for
    /// answers given from other threads. When any is readable, or
    /// `dispatch()` said a timer is due, call `dispatch()`.
    public var fileDescriptors: [Int32] {
        [connection.socket, loop.inbox.fd].compactMap { $0 }
    }

    /// One step of the client's work without waiting: reads what arrived,
    /// runs callbacks and due timers, writes what is queued. Returns the
    /// seconds until the next timer (a call's timeout), nil when none.
    @discardableResult
    public func dispatch() -> Double? {
        loop.step()
        connection.flush()
        return loop.secondsToNextTimer
    }

    // MARK: async calls

    /// A manager call that suspends instead of blocking; the reply arrives
    /// while the client is pumped (`run`, `runForever`, or the app's loop via `dispatch`).
    func callManager<each In, each Out: Sendable>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>, _ arguments: repeat each In
    ) async throws -> (repeat each Out) {
        try await withCheckedThrowingContinuation { continuation in
            connection.call(method, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                            repeat each arguments, timeout: callTimeout) { result in
                continuation.resume(with: result.mapError { $0 as Error })
            }
        }
    }

    /// `contextMenu(owner:contextId:locale:)`, suspending.
    public func contextMenu(owner: String = "", contextId: String, locale: String? = nil) async throws -> Menu {
        try await composed(MenuBusAPI.Manager.getContextMenu, owner: owner, contextId: contextId, locale: locale)
    }

    /// `editMenu(owner:contextId:locale:)`, suspending.
    public func editMenu(owner: String = "", contextId: String, locale: String? = nil) async throws -> Menu {
        try await composed(MenuBusAPI.Manager.getEditMenu, owner: owner, contextId: contextId, locale: locale)
    }

    private func composed(
        _ method: DeclaredMethod<ArgumentList<String, String, DBusValue>, ArgumentList<UInt32, DBusValue>>,
        owner: String, contextId: String, locale: String?
    ) async throws -> Menu {
        let (revision, items) = try await callManager(method, owner, contextId, Self.localeOptions(locale))
        return try menu(revision, items)
    }

    /// `publishContext`, suspending.
    @discardableResult
    public func publishContext(_ contextId: String, _ context: ContextInfo, items: [MenuElement] = []) async throws -> UInt32 {
        try await callManager(MenuBusAPI.Manager.publishContext, contextId, Wire.encode(context), Wire.encode(items))
    }

    /// `updateSelection`, suspending.
    public func updateSelection(_ contextId: String, _ selection: Selection) async throws {
        try await callManager(MenuBusAPI.Manager.updateSelection, contextId, Wire.encode(selection))
    }

    /// `listContexts`, suspending.
    public func listContexts() async throws -> [ContextListing] {
        Self.contextListings(try await callManager(MenuBusAPI.Manager.listContexts))
    }
}
