#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The write end of the self-pipe; the C signal handler can capture nothing.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns process signals into a readable file descriptor (the self-pipe
/// trick), so the message loop handles SIGTERM and SIGINT like any input.
final class SignalWatcher {
    let fd: Int32
    private let writeEnd: Int32
    private let signals: [Int32]

    init?(signals: [Int32]) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        fd = ends[0]
        writeEnd = ends[1]
        self.signals = signals
        signalPipeWriteEnd = writeEnd
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
    }

    deinit {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_DFL
            sigaction(signal, &action, nil)
        }
        signalPipeWriteEnd = -1
        close(fd)
        close(writeEnd)
    }

    /// The next pending signal number, if any.
    func next() -> Int32? {
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1 else { return nil }
        return Int32(byte)
    }
}
