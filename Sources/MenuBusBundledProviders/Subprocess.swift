#if canImport(Glibc)
import Glibc
#endif

/// The programs the bundled providers hand work to (`xdg-open`,
/// `apertium`), started with posix_spawn and found on `PATH` by
/// `/usr/bin/env`, as a shell would find them.
package enum Subprocess {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package struct Result {
        package let status: Int32
        package let output: [UInt8]
        package let errors: [UInt8]
    }

    /// Starts `arguments` with `environment` and does not wait: its
    /// standard streams are this process's. `reapFinished` collects it.
    static func start(_ arguments: [String], environment: [String: String]) throws(Failure) {
        _ = try spawn(arguments, environment: environment, streams: nil)
    }

    /// Collects started programs that have ended, so none stays a zombie.
    static func reapFinished() {
        while waitpid(-1, nil, WNOHANG) > 0 {}
    }

    /// Runs `arguments` to its end with `input` on its standard input,
    /// and gives what it wrote to standard output and standard error.
    package static func run(_ arguments: [String], environment: [String: String], input: [UInt8]) throws(Failure) -> Result {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
                pipes.flatMap { $0 }.forEach { close($0) }
                throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
            }
            pipes.append(ends)
        }
        let child: pid_t
        do {
            child = try spawn(arguments, environment: environment, streams: (pipes[0][0], pipes[1][1], pipes[2][1]))
        } catch {
            pipes.flatMap { $0 }.forEach { close($0) }
            throw error
        }
        close(pipes[0][0])
        close(pipes[1][1])
        close(pipes[2][1])
        var output: [UInt8] = [], errors: [UInt8] = []
        exchange(input: input, to: pipes[0][1], output: pipes[1][0], &output, errors: pipes[2][0], &errors)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        return Result(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output: output, errors: errors)
    }

    /// Writes `input` and reads both outputs at once with poll, so a
    /// program that answers before it has read everything cannot block.
    private static func exchange(input: [UInt8], to writeEnd: Int32, output outEnd: Int32, _ output: inout [UInt8],
                                 errors errEnd: Int32, _ errors: inout [UInt8]) {
        // Non-blocking, so a write to a full pipe writes what fits and the
        // loop reads the program's output before it writes more.
        for fd in [writeEnd, outEnd, errEnd] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        var written = 0
        var fds = [pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0),
                   pollfd(fd: outEnd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: errEnd, events: Int16(POLLIN), revents: 0)]
        if input.isEmpty { close(writeEnd); fds[0].fd = -1 }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while fds.contains(where: { $0.fd >= 0 }) {
            for index in fds.indices { fds[index].revents = 0 }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].fd >= 0, fds[0].revents != 0 {
                let count = input[written...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if count > 0 { written += count }
                if count < 0 && errno != EINTR && errno != EAGAIN || written == input.count {
                    close(writeEnd)
                    fds[0].fd = -1
                }
            }
            for index in 1...2 where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if index == 1 { output += chunk[..<count] } else { errors += chunk[..<count] }
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    close(fds[index].fd)
                    fds[index].fd = -1
                }
            }
        }
    }

    /// posix_spawn of `/usr/bin/env ARGUMENTS`; `streams` become the
    /// child's standard input, output and error.
    private static func spawn(_ arguments: [String], environment: [String: String],
                              streams: (Int32, Int32, Int32)?) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let (input, output, errors) = streams {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, errors, 2)
        }
        // As a fresh process: no blocked signals, SIGPIPE back to its
        // default (the bus library ignores it in this process).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), pipeSignal = sigset_t()
        sigemptyset(&none)
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &pipeSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failure(description: "cannot start \(arguments.first ?? "?"): \(String(cString: strerror(result)))")
        }
        return child
    }
}
