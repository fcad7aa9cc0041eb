/// The four kinds of D-Bus message, by their codes on the wire.
package enum MessageKind: Int32 {
    case methodCall = 1, methodReturn = 2, error = 3, signal = 4
}
