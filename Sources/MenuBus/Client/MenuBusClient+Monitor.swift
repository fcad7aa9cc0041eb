#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// One message to or from menubusd, as a monitor sees it.
public struct MonitoredMessage: Sendable {
    public enum Kind: String, Sendable {
        case methodCall = "method_call", methodReturn = "method_return", error, signal
    }

    /// Seconds since 1970, when this process read it.
    public let time: Double
    public let kind: Kind
    public let sender: String?
    public let destination: String?
    /// nil for replies and errors.
    public let path: String?
    public let interface: String?
    /// The member of a call or signal; the error name of an error.
    public let member: String?
    public let serial: UInt32
    public let replySerial: UInt32
    /// Every argument, decoded; empty when they use a type MenuBus does not speak.
    public let arguments: [DBusValue]
}

/// How `monitorMenuBus` sees messages.
public enum MonitorMode: String, Sendable {
    /// `org.freedesktop.DBus.Monitoring.BecomeMonitor`: every matching message.
    case monitor
    /// Match rules with `eavesdrop='true'`, where the bus refused BecomeMonitor.
    case eavesdrop
}

extension MenuBusClient {
    /// Watches every message sent by or to menubusd: calls to it and their
    /// replies, its calls to apps and providers, and its signals. The
    /// connection only listens from then on (a monitor may send nothing);
    /// pump it with `run` or `runForever`.
    @discardableResult
    public func monitorMenuBus(_ handler: @escaping (MonitoredMessage) -> Void) throws -> MonitorMode {
        let owner = try resolveDaemonOwner()
        let deliver: (Message) -> Void = { message in
            guard let kind = message.kind else { return }
            let monitored: MonitoredMessage.Kind
            switch kind {
            case .methodCall: monitored = .methodCall
            case .methodReturn: monitored = .methodReturn
            case .error: monitored = .error
            case .signal: monitored = .signal
            }
            // The bus's own NameAcquired/NameLost to this connection are not MenuBus's.
            if message.sender == "org.freedesktop.DBus", message.destination == self.uniqueName { return }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            handler(MonitoredMessage(
                time: Double(now.tv_sec) + Double(now.tv_nsec / 1_000_000) / 1000, kind: monitored,
                sender: message.sender, destination: message.destination, path: message.path,
                interface: message.interface, member: kind == .error ? message.errorName : message.member,
                serial: message.serial, replySerial: message.replySerial,
                arguments: (try? message.arguments()) ?? []))
        }
        // The well-known name matches whichever menubusd owns it when a
        // message goes, so the monitor follows the daemon across a restart.
        let rules = ["sender='\(MenuBusNames.busName)'", "destination='\(owner)'", "destination='\(MenuBusNames.busName)'"]
        do {
            _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                            interface: "org.freedesktop.DBus.Monitoring", member: "BecomeMonitor",
                                            arguments: [.array("s", rules.map { .string($0) }), .uint32(0)],
                                            timeout: callTimeout)
            connection.monitor = deliver
            return .monitor
        } catch let error as BusError where error.name != BusError.Standard.disconnected {
            // Refused (an older bus, or a policy): eavesdrop with match rules instead.
            for rule in rules {
                for type in ["method_call", "method_return", "error", "signal"] {
                    _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                    interface: "org.freedesktop.DBus", member: "AddMatch",
                                                    arguments: [.string("type='\(type)',eavesdrop='true',\(rule)")],
                                                    timeout: callTimeout)
                }
            }
            connection.monitor = deliver
            return .eavesdrop
        }
    }
}
