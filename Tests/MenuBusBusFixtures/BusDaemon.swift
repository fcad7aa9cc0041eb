import Foundation

/// A private `dbus-daemon --session` on a fresh socket, in a folder of its
/// own that goes with it, for tests that need a bus.
package final class BusDaemon: @unchecked Sendable {
    package let address: String
    package let directory: URL
    private let process: Process

    package struct NoAddress: Error, CustomStringConvertible {
        package let description = "dbus-daemon printed no address"
    }

    /// Starts `dbus-daemon --session` on a fresh socket; throws if it does not come up.
    package init(configExtra: String = "") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory.path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
              <!-- The session bus's own limits (/usr/share/dbus-1/session.conf). -->
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <limit name="max_message_size">1000000000</limit>
              <limit name="service_start_timeout">120000</limit>
              <limit name="auth_timeout">240000</limit>
              <limit name="pending_fd_timeout">150000</limit>
              <limit name="max_completed_connections">100000</limit>
              <limit name="max_incomplete_connections">10000</limit>
              <limit name="max_connections_per_user">100000</limit>
              <limit name="max_pending_service_starts">10000</limit>
              <limit name="max_names_per_connection">50000</limit>
              <limit name="max_match_rules_per_connection">50000</limit>
              <limit name="max_replies_per_connection">50000</limit>
              \(configExtra)
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        // Daemons this bus activates keep their undo journals here, not in the user's home.
        var busEnvironment = ProcessInfo.processInfo.environment
        busEnvironment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        process.environment = busEnvironment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = Data()
        let handle = pipe.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8)?.split(separator: "\n").first, !text.isEmpty else {
            process.terminate()
            throw NoAddress()
        }
        address = String(text)
    }

    deinit {
        stop()
    }

    /// Stops the bus and removes its folder.
    package func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
