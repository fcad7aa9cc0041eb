/// Logging for the executables, with the same journald prefixes as the library.
package enum MenuBusLogging {
    /// Turns debug lines on or off.
    package static func setVerbose(_ verbose: Bool) {
        Log.threshold = verbose ? .debug : .info
    }

    package static func info(_ text: String) { Log.info(text) }
    package static func warning(_ text: String) { Log.warning(text) }
    package static func error(_ text: String) { Log.error(text) }
}
