#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport

internal import CDBus

/// Signals and replies written to the bus socket as they are marshalled.
///
/// Taking a marshalled message in through `dbus_message_demarshal` costs
/// libdbus its full check of a received message (about 26,000 instructions
/// for a 200-byte signal, more than marshalling it), and
/// `dbus_connection_send` then locks, queues, polls and writes. When the
/// marshaller has made the loader's checks itself
/// (`MessageMarshaller.Output.isChecked`) and libdbus has nothing queued,
/// the bytes go to the socket here, in one `send`; the stream then holds
/// exactly what libdbus would have written, in the same order. Anything
/// else goes through libdbus as before.
extension Connection {
    /// Whether the bus socket can be written to directly.
    enum DirectSocket {
        case unknown
        case unusable
        case unix(Int32)
    }

    /// The largest message written directly. A Unix stream socket takes a
    /// message this small whole or not at all (one buffer of its queue), so
    /// a partial write is not expected; `finishWriting` covers it anyway.
    static let maxDirectBytes = 16 << 10

    /// The first serial of a message written directly. libdbus numbers the
    /// connection's own messages from 1; these take the upper half, which it
    /// would reach after two thousand million messages. Only a message that
    /// expects no reply is written directly, so nothing, not even the bus
    /// refusing it, answers one by its serial.
    static let firstDirectSerial: UInt32 = 0x8000_0000

    /// How long the rest of a partly written message may wait for the socket.
    static let partialWriteMilliseconds: Int32 = 2000

    /// Sends the message of `header` and `values`: written to the socket
    /// when the marshaller could check it as libdbus's loader would and
    /// nothing is queued before it, else taken in by the loader and sent as
    /// `Message.marshalled`. Throws what `Message.marshalled` throws.
    func sendMarshalled(_ header: MessageMarshaller.Header, _ values: [DBusValue]) throws {
        let socket = directSocket
        switch try Message.marshalling(header, values, checking: socket != nil) {
        case .written(let message):
            send(message)
        case .marshalled(var output):
            if output.isChecked, header.noReplyExpected, let socket, writeDirectly(&output.bytes, to: socket) { return }
            send(try Message.loaded(output.bytes, header, values))
        }
    }

    /// The bus socket's descriptor when it is a Unix stream socket. Its type
    /// is asked once; the descriptor itself each time, as libdbus closes it
    /// when it reads the end of the stream (a number another socket may
    /// then take), before this connection has heard it is gone.
    var directSocket: Int32? {
        switch directSocketState {
        case .unix(let fd):
            return isConnected && socket == fd ? fd : nil
        case .unusable:
            return nil
        case .unknown:
            guard let fd = socket else { return nil }
            var type: Int32 = 0
            var domain: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            let stream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_STREAM.rawValue)
            length = socklen_t(MemoryLayout<Int32>.size)
            let unix = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 && domain == AF_UNIX
            directSocketState = stream && unix ? .unix(fd) : .unusable
            return stream && unix ? fd : nil
        }
    }

    /// Numbers `bytes` and writes them to `fd`; false, with nothing written,
    /// when libdbus has messages queued, the message is large, or the socket
    /// takes none of it now (libdbus then queues it, or finds the
    /// connection gone).
    @inline(never)
    private func writeDirectly(_ bytes: inout [UInt8], to fd: Int32) -> Bool {
        guard bytes.count <= Connection.maxDirectBytes, let raw, dbus_connection_has_messages_to_send(raw) == 0 else {
            return false
        }
        directSerial = directSerial < Connection.firstDirectSerial || directSerial == .max
            ? Connection.firstDirectSerial : directSerial + 1
        for index in 0..<4 { bytes[8 + index] = UInt8(truncatingIfNeeded: directSerial >> (8 * index)) }
        #if DEBUG
        // Every message a debug build writes directly is checked as the bus will check it.
        let accepted = bytes.withUnsafeBytes { (try? Message(marshalled: $0)) != nil }
        assert(accepted, "a message marshalled as checked was refused by libdbus's loader")
        #endif
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if sent == bytes.count { return true }
        guard sent > 0 else { return false }
        finishWriting(bytes, from: sent, to: fd)
        return true
    }

    /// The rest of a message the socket took only part of. Nothing may go
    /// on the stream before it, so it is written here, waiting for the
    /// socket up to `partialWriteMilliseconds`; a stream left with half a
    /// message is broken, so past that the connection is shut down (the loop
    /// then reads its end and reports the bus gone).
    private func finishWriting(_ bytes: [UInt8], from start: Int, to fd: Int32) {
        var offset = start
        let deadline = MessageLoop.now() + UInt64(Connection.partialWriteMilliseconds) * 1_000_000
        while offset < bytes.count {
            let now = MessageLoop.now()
            guard now < deadline else { break }
            var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let waited = poll(&ready, 1, Int32(clamping: (deadline - now) / 1_000_000 + 1))
            if waited < 0 && errno == EINTR { continue }
            guard waited > 0 else { break }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                break
            }
        }
        if offset < bytes.count {
            Log.error("the bus socket took \(offset) of a message's \(bytes.count) bytes; closing the connection")
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }
}
