#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Ctrl-C for the commands that run until it: the handler only notes the
/// signal (an atomic store is all a handler may do); the command's loop
/// sees it within one wait, leaves the bus cleanly, and exits 130, the
/// shell's status for a program ended by SIGINT.
enum Interrupt {
    static let status: Int32 = 128 + SIGINT

    private static let received = Atomic<Bool>(false)

    static var happened: Bool { received.load(ordering: .relaxed) }

    /// Catches SIGINT, unless it is ignored: a shell starts background
    /// jobs with SIGINT ignored, and they should stay deaf to Ctrl-C.
    static func catchSIGINT() {
        var current = sigaction()
        sigaction(SIGINT, nil, &current)
        if let handler = current.__sigaction_handler.sa_handler,
           unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in Interrupt.received.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the loop's poll returns EINTR and looks
        sigaction(SIGINT, &action, nil)
    }
}
